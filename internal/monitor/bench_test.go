package monitor

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/brokertest"
)

// countSink counts findings (other than the monitor's own, counted
// apart) and keeps the latest counts.
type countSink struct {
	findings atomic.Int64
	losses   atomic.Int64
	judged   atomic.Uint64
	dropped  atomic.Uint64
	first    Finding
}

func (c *countSink) Finding(f Finding) {
	if f.Rule == Dropped {
		c.losses.Add(1)
	} else if c.findings.Add(1) == 1 {
		c.first = f
	}
}
func (c *countSink) Tick(s *Summary)        { c.dropped.Store(uint64(s.Dropped)); c.judged.Store(s.Judged) }
func (c *countSink) Close(s *Summary) error { c.Tick(s); return nil }

// traffic renders a steady flow of valid work units among 300 peers (say,
// accepted receipt, working and completed traces, ~420 bytes each), each
// envelope on its correct subject, and the peers' presence greets.
type traffic struct {
	ws, ch string
	n      int // work envelopes rendered
	g      int // greets rendered
	peers  []string
	subj   []string
	buf    []byte
}

func newTraffic(ws, ch string) *traffic {
	t := &traffic{ws: ws, ch: ch}
	for i := range 300 {
		p := "peer-" + strconv.Itoa(i) + ".s1"
		t.peers = append(t.peers, p)
		t.subj = append(t.subj, agh.PeerSubject(ws, ch, p))
	}
	return t
}

// greet renders peer i's greet.
func (t *traffic) greet(ws, ch string, i int, ts int64) (string, []byte) {
	t.g++
	p := t.peers[i]
	return agh.BroadcastSubject(ws, ch), []byte(`{"protocol":"agh-network/v0","id":"msg_greet_` + strconv.Itoa(t.g) +
		`","workspace_id":"` + ws + `","kind":"greet","channel":"` + ch + `","from":"` + p + `","to":null,"ts":` +
		strconv.FormatInt(ts, 10) + `,"body":{"peer_card":{"peer_id":"` + p + `","profiles_supported":["agh-network/v0"],` +
		`"capabilities":[],"artifacts_supported":[],"trust_modes_supported":["unverified"]}},"proof":null}`)
}

func (t *traffic) next(ws, ch string, ts int64) (string, []byte) {
	i := t.n
	t.n++
	unit, phase := i/4, i%4
	x, y := unit%len(t.peers), (unit+1)%len(t.peers)
	from, to := y, x
	if phase == 0 {
		from, to = x, y
	}
	body := `{"state":"working"}`
	kind := "trace"
	switch phase {
	case 0:
		kind, body = "say", `{"text":"Run the migration smoke test against staging and report blockers."}`
	case 1:
		kind, body = "receipt", `{"for_id":"msg_`+strconv.Itoa(i-1)+`","status":"accepted"}`
	case 3:
		body = `{"state":"completed","result":{"passed":true}}`
	}
	b := t.buf[:0]
	b = append(b, `{"protocol":"agh-network/v0","id":"msg_`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `","workspace_id":"`+ws+`","kind":"`+kind+`","channel":"`+ch+`","surface":"thread","thread_id":"thread_load_test","from":"`...)
	b = append(b, t.peers[from]...)
	b = append(b, `","to":"`...)
	b = append(b, t.peers[to]...)
	b = append(b, `","work_id":"work_`...)
	b = strconv.AppendInt(b, int64(unit), 10)
	b = append(b, `","ts":`...)
	b = strconv.AppendInt(b, ts, 10)
	b = append(b, `,"body":`...)
	b = append(b, body...)
	b = append(b, `,"proof":null}`...)
	t.buf = b
	return t.subj[to], b
}

// BenchmarkMonitor publishes b.N valid envelopes on an embedded broker while
// a monitor judges them (statelessly and with the tracker), all in this
// process. "flat-out" publishes as fast as the broker takes them (through
// JetStream, each publication acknowledged once stored) to a broker
// configured as docs/monitor.md says, and the monitor reads its shard's
// stream: its memory does not grow with its lag, nothing is dropped.
// "backlog" publishes the same first and starts the monitor after: how fast
// a monitor reads a stream that is already full (a restart, a catch-up).
// "flat-out-core" publishes flat out on core NATS to a monitor subscribed
// there: nothing slows the publisher, so what exceeds the subscription's
// pending limits is dropped and reported (memory stays bounded; the drops
// are the price). "paced-100k" publishes 100,000 envelopes a second on
// core NATS (sustained: the backlog stays small, nothing is dropped).
// envelopes/s counts from the first publication (backlog: from the
// monitor's start) until the last envelope is judged. Run it with
// -benchtime 1000000x (make bench-monitor).
func BenchmarkMonitor(b *testing.B) {
	b.Run("flat-out", func(b *testing.B) { benchMonitor(b, benchCase{stream: true}) })
	b.Run("backlog", func(b *testing.B) { benchMonitor(b, benchCase{stream: true, backlog: true}) })
	b.Run("flat-out-core", func(b *testing.B) { benchMonitor(b, benchCase{lossy: true}) })
	b.Run("paced-100k", func(b *testing.B) { benchMonitor(b, benchCase{rate: 100_000}) })
}

type benchCase struct {
	stream  bool // through a JetStream stream
	backlog bool // everything published before the monitor starts
	lossy   bool // drops are expected (and must be reported)
	rate    int  // envelopes a second (0: flat out)
}

// benchMonitor runs one case; the monitor runs from start until its
// context is cancelled, and sends its final summary on done.
func benchMonitor(b *testing.B, bc benchCase) {
	const ws, ch = "ws_bench", "load"
	var ep broker.Endpoint
	cfg := Config{Tick: 50 * time.Millisecond}
	if bc.stream {
		// The broker as docs/monitor.md configures it: the monitor
		// reads the shard of the workspace from its stream.
		srv := startNode(b)
		ep, cfg.Endpoint = at(srv, appUser), at(srv, monUser)
		cfg.Shard, cfg.JetStream = Shard{PartitionOf(ws, 3), 3}, true
		createStream(b, cfg.Endpoint, cfg.Shard.K, 1)
	} else {
		srv := brokertest.Start(b, &server.Options{MaxPayload: broker.MaxPayload})
		ep = broker.Endpoint{URL: srv.ClientURL()}
		cfg.Endpoint = ep
	}
	nc, err := ep.Connect("load")
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	publish, flush := corePublisher(nc)
	if bc.stream {
		publish, flush = streamPublisher(b, nc)
	}
	sink := &countSink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Summary, 1)
	start := func() {
		go func() {
			s, err := Run(ctx, cfg, sink)
			if err != nil {
				b.Error(err)
			}
			done <- s
		}()
	}
	tr := newTraffic(ws, ch)
	var before uint64
	if !bc.backlog {
		start()
		before = probe(tr, nc, sink)
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	began := time.Now()
	greets := pump(b, tr, publish, bc.rate)
	if err := flush(); err != nil {
		b.Fatal(err)
	}
	if bc.backlog {
		cpu0, began = cpuTime(), time.Now()
		start()
	}
	for sink.judged.Load()+sink.dropped.Load() < before+uint64(b.N+greets) {
		time.Sleep(time.Millisecond)
		if time.Since(began) > 10*time.Minute {
			b.Fatal("the monitor never caught up")
		}
	}
	elapsed := time.Since(began)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	cancel()
	s := <-done
	judged := s.Judged - before
	b.Logf("%d envelopes (+%d greets) in %s: %.0f/s judged, judged %d of %d delivered, %d dropped, %.1f CPU-µs each, peak heap %.0f MiB",
		b.N, greets, elapsed.Round(time.Millisecond), float64(judged)/elapsed.Seconds(), s.Judged, s.Delivered, s.Dropped,
		float64(cpu.Microseconds())/float64(b.N), float64(s.PeakHeap)/(1<<20))
	if s.Judged+uint64(s.Dropped) != s.Delivered || (s.Dropped != 0) != (sink.losses.Load() != 0) {
		b.Errorf("judged %d of %d delivered, %d dropped, %d loss findings", s.Judged, s.Delivered, s.Dropped, sink.losses.Load())
	}
	if s.Dropped != 0 && !bc.lossy {
		b.Errorf("%d dropped", s.Dropped)
	}
	// Valid traffic gives nothing to find, unless messages were dropped:
	// a work unit missing a message then looks broken, as MONITOR-DROPPED
	// warns.
	if n := sink.findings.Load(); n != 0 && s.Dropped == 0 {
		b.Errorf("%d findings on valid traffic, the first: %s", n, line(&sink.first))
	}
	b.ReportMetric(float64(judged)/elapsed.Seconds(), "envelopes/s")
	b.ReportMetric(float64(s.Dropped), "dropped")
	// CPU time of the whole process (publisher, broker and monitor) per
	// envelope: what the throughput is bounded by on a machine shared with
	// other work, where wall time is not.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/envelope")
	b.ReportMetric(float64(s.PeakHeap)/(1<<20), "peak-heap-MiB")
}

// probe publishes until the monitor judges (those sent before it
// subscribed are never delivered) and its count settles; it returns the
// count.
func probe(tr *traffic, nc *nats.Conn, sink *countSink) uint64 {
	for sink.judged.Load() == 0 {
		subj, data := tr.next(tr.ws, tr.ch, time.Now().Unix())
		_ = nc.Publish(subj, data)
		time.Sleep(20 * time.Millisecond)
	}
	before := uint64(0)
	for before != sink.judged.Load() {
		before = sink.judged.Load()
		time.Sleep(600 * time.Millisecond) // past a fetch's wait
	}
	return before
}

// pump publishes b.N work envelopes at rate a second (0: flat out), and
// the peers' greets when they join and again every 20 s (the heartbeat
// the monitor judges); it returns how many greets.
func pump(b *testing.B, tr *traffic, publish func(string, []byte) error, rate int) (greets int) {
	var greeted time.Time
	greetAll := func(now time.Time) {
		for p := range tr.peers {
			if err := publish(tr.greet(tr.ws, tr.ch, p, now.Unix())); err != nil {
				b.Fatal(err)
			}
			greets++
		}
		greeted = now
	}
	start := time.Now()
	ts := start.Unix()
	for i := range b.N {
		if i%1000 == 0 {
			now := time.Now()
			ts = now.Unix()
			if now.Sub(greeted) > 20*time.Second {
				greetAll(now)
			}
			if rate > 0 {
				// Hold back until this thousand is due.
				if due := start.Add(time.Duration(i) * time.Second / time.Duration(rate)); due.After(now) {
					time.Sleep(due.Sub(now))
				}
			}
		}
		if err := publish(tr.next(tr.ws, tr.ch, ts)); err != nil {
			b.Fatal(err)
		}
	}
	return greets
}

// corePublisher publishes on core NATS: nothing slows it.
func corePublisher(nc *nats.Conn) (publish func(string, []byte) error, flush func() error) {
	return nc.Publish, nc.Flush
}

// streamPublisher publishes through JetStream, each publication
// acknowledged once stored, at most maxUnacked outstanding: the broker
// paces the publisher at what its stream takes. (A core publication into a
// stream is not paced: past the stream's ingest buffer the broker drops it
// unseen.)
func streamPublisher(b *testing.B, nc *nats.Conn) (publish func(string, []byte) error, flush func() error) {
	const maxUnacked = 4096
	var failed atomic.Int64
	var firstErr atomic.Pointer[error]
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(maxUnacked),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, _ *nats.Msg, err error) {
			if failed.Add(1) == 1 {
				firstErr.Store(&err)
			}
		}))
	if err != nil {
		b.Fatal(err)
	}
	publish = func(subj string, data []byte) error {
		_, err := js.PublishAsync(subj, data, jetstream.WithStallWait(time.Minute))
		return err
	}
	flush = func() error {
		select {
		case <-js.PublishAsyncComplete():
		case <-time.After(time.Minute):
			return fmt.Errorf("%d publications never acknowledged, %d failed", js.PublishAsyncPending(), failed.Load())
		}
		if n := failed.Load(); n > 0 {
			return fmt.Errorf("%d publications not stored, the first: %w", n, *firstErr.Load())
		}
		return nil
	}
	return publish, flush
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
