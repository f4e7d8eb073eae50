package monitor

import (
	"context"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
)

// countSink counts findings and keeps the latest summary.
type countSink struct {
	findings atomic.Int64
	judged   atomic.Uint64
	first    Finding
}

func (c *countSink) Finding(f Finding) {
	if c.findings.Add(1) == 1 {
		c.first = f
	}
}
func (c *countSink) Tick(s *Summary)        { c.judged.Store(s.Judged) }
func (c *countSink) Close(s *Summary) error { c.judged.Store(s.Judged); return nil }

// traffic renders a steady flow of valid work units among 300 peers (say,
// accepted receipt, working and completed traces, ~420 bytes each), each
// envelope on its correct subject, and the peers' presence greets.
type traffic struct {
	n     int // work envelopes rendered
	g     int // greets rendered
	peers []string
	subj  []string
	buf   []byte
}

func newTraffic(ws, ch string) *traffic {
	t := &traffic{}
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
// process: "flat-out" publishes as fast as it can (the monitor's capacity;
// the backlog waits in the delivery channel), "paced-100k" at 100,000
// envelopes a second (sustained: the backlog stays small). envelopes/s
// counts from the first publication until the last envelope is judged;
// every envelope must be judged and none dropped. Run it with -benchtime
// 1000000x (make bench-monitor).
func BenchmarkMonitor(b *testing.B) {
	b.Run("flat-out", func(b *testing.B) { benchMonitor(b, 0) })
	b.Run("paced-100k", func(b *testing.B) { benchMonitor(b, 100_000) })
}

func benchMonitor(b *testing.B, rate int) {
	br, err := broker.Start(broker.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	const ws, ch = "ws_bench", "load"
	sink := &countSink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Summary, 1)
	go func() {
		cfg := Config{Endpoint: br.Endpoint, Tick: 50 * time.Millisecond}
		if rate == 0 {
			// Flat out, the backlog may hold everything: this measures
			// capacity, not the default burst buffer.
			cfg.PendingMsgs = b.N + 1000
		}
		s, err := Run(ctx, cfg, sink)
		if err != nil {
			b.Error(err)
		}
		done <- s
	}()
	nc, err := br.Connect("load")
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	// Wait until the monitor is subscribed (it judges a probe; those sent
	// before it subscribed are never delivered) and the count is settled.
	tr := newTraffic(ws, ch)
	for sink.judged.Load() == 0 {
		subj, data := tr.next(ws, ch, time.Now().Unix())
		_ = nc.Publish(subj, data)
		time.Sleep(20 * time.Millisecond)
	}
	before := uint64(0)
	for before != sink.judged.Load() {
		before = sink.judged.Load()
		time.Sleep(150 * time.Millisecond) // three ticks
	}
	// Peers greet when they join and again every 20 s (the heartbeat
	// the monitor judges), on top of the b.N work envelopes.
	greets := 0
	var greeted time.Time
	greetAll := func(now time.Time) {
		for p := range tr.peers {
			subj, data := tr.greet(ws, ch, p, now.Unix())
			_ = nc.Publish(subj, data)
			greets++
		}
		greeted = now
	}
	greetAll(time.Now())
	cpu0 := cpuTime()
	b.ResetTimer()
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
		subj, data := tr.next(ws, ch, ts)
		if err := nc.Publish(subj, data); err != nil {
			b.Fatal(err)
		}
	}
	_ = nc.Flush()
	for sink.judged.Load() < before+uint64(b.N+greets) {
		time.Sleep(time.Millisecond)
		if time.Since(start) > 10*time.Minute {
			b.Fatal("the monitor never caught up")
		}
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	cancel()
	s := <-done
	b.Logf("%d envelopes (+%d greets) in %s: %.0f/s, judged %d of %d delivered, %d dropped, %.1f CPU-µs each, peak heap %.0f MiB",
		b.N, greets, elapsed.Round(time.Millisecond), float64(b.N)/elapsed.Seconds(), s.Judged, s.Delivered, s.Dropped,
		float64(cpu.Microseconds())/float64(b.N), float64(s.PeakHeap)/(1<<20))
	if s.Dropped != 0 || s.Judged != s.Delivered {
		b.Errorf("judged %d of %d delivered, %d dropped", s.Judged, s.Delivered, s.Dropped)
	}
	if n := sink.findings.Load(); n != 0 {
		b.Errorf("%d findings on valid traffic, the first: %s", n, line(&sink.first))
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "envelopes/s")
	b.ReportMetric(float64(s.Dropped), "dropped")
	// CPU time of the whole process (publisher, broker and monitor) per
	// envelope: what the throughput is bounded by on a machine shared with
	// other work, where wall time is not.
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/envelope")
	b.ReportMetric(float64(s.PeakHeap)/(1<<20), "peak-heap-MiB")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
