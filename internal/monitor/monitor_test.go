package monitor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/testwait"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

const (
	testWS, testChannel = "ws_monitor", "builders"
	refPeer, me         = "reference.s1", "initiator.s1"
	wait                = 5 * time.Second
)

// collector is a Sink for tests.
type collector struct {
	mu       sync.Mutex
	findings []Finding
	ticked   chan struct{}
	final    *Summary
	last     atomic.Pointer[Summary] // of the latest tick
}

func newCollector() *collector { return &collector{ticked: make(chan struct{}, 1)} }

func (c *collector) Finding(f Finding) {
	c.mu.Lock()
	c.findings = append(c.findings, f)
	c.mu.Unlock()
}

func (c *collector) Tick(s *Summary) {
	c.last.Store(s)
	select {
	case c.ticked <- struct{}{}:
	default:
	}
}

func (c *collector) Close(s *Summary) error { c.final = s; return nil }

func (c *collector) rules() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for _, f := range c.findings {
		out[f.Rule.ID]++
	}
	return out
}

func startBroker(t *testing.T) *broker.Broker {
	t.Helper()
	b, err := broker.Start(broker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// watch starts a broker, a monitor on it, the test driver and the
// reference peer (with faults); stop ends the monitor.
func watch(t *testing.T, faults ...string) (d *driver, sink *collector, stop func() *Summary) {
	t.Helper()
	b := startBroker(t)
	sink = newCollector()
	stop = startMonitor(t, b, sink)
	d = newDriver(t, b.Endpoint)
	d.sink = sink
	startPeer(t, b.Endpoint, d, faults...)
	return d, sink, stop
}

// startMonitor runs a monitor on the embedded broker until stop is called,
// which returns its final summary.
func startMonitor(t *testing.T, b *broker.Broker, sink *collector) (stop func() *Summary) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Endpoint: b.Endpoint, Subject: Subject(testWS, ""), Tick: 20 * time.Millisecond}, sink)
		done <- err
	}()
	select {
	case <-sink.ticked: // subscribed and judging
	case err := <-done:
		t.Fatalf("monitor: %v", err)
	case <-time.After(wait):
		t.Fatal("the monitor never ticked")
	}
	return func() *Summary {
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("monitor: %v", err)
		}
		return sink.final
	}
}

// startPeer runs the reference peer (with faults) until the test ends and
// waits for its greet.
func startPeer(t *testing.T, ep broker.Endpoint, d *driver, faults ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := peer.Run(ctx, peer.Config{URL: ep.URL, Token: ep.Token, User: ep.User, Password: ep.Password, Workspace: testWS, Channel: testChannel,
			PeerID: refPeer, Faults: faults}); err != nil {
			t.Errorf("peer: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	d.await(t, func(env map[string]any) bool { return env["kind"] == "greet" && env["from"] == refPeer })
}

// driver is a well-behaved initiator: every envelope it sends is valid.
type driver struct {
	nc  *nats.Conn
	got chan map[string]any
	// seen counts what the broker delivered on the monitor's subject, to
	// tell when the monitor (sink) has judged as much.
	seen atomic.Uint64
	sink *collector
}

func newDriver(t *testing.T, ep broker.Endpoint) *driver {
	t.Helper()
	nc, err := ep.Connect("test driver")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	d := &driver{nc: nc, got: make(chan map[string]any, 256)}
	for _, subj := range []string{agh.BroadcastSubject(testWS, testChannel), agh.PeerSubject(testWS, testChannel, me)} {
		if _, err := nc.Subscribe(subj, func(m *nats.Msg) {
			if v, _, ok := jsonx.Decode(m.Data); ok {
				if env, ok := v.(map[string]any); ok {
					d.got <- env
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := nc.Subscribe(Subject(testWS, ""), func(*nats.Msg) { d.seen.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return d
}

func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func (d *driver) send(t *testing.T, kind string, fields, body map[string]any) map[string]any {
	t.Helper()
	env := map[string]any{"protocol": agh.Protocol, "id": newID("msg_"), "workspace_id": testWS, "channel": testChannel,
		"kind": kind, "from": me, "to": refPeer, "ts": time.Now().Unix(), "proof": nil, "body": body}
	for k, v := range fields {
		env[k] = v
	}
	subj, err := agh.Subject(env)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.nc.Publish(subj, data); err != nil {
		t.Fatal(err)
	}
	return env
}

// work opens a work unit at the reference peer in thread, scripted by the
// control extension when traces is not nil.
func (d *driver) work(t *testing.T, thread, work string, traces []any) map[string]any {
	t.Helper()
	fields := map[string]any{"surface": "thread", "thread_id": thread, "work_id": work}
	if traces != nil {
		fields["ext"] = map[string]any{control.Name: map[string]any{"traces": traces}}
	}
	return d.send(t, "say", fields, map[string]any{"text": "please do " + work})
}

func (d *driver) await(t *testing.T, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case env := <-d.got:
			if match(env) {
				return env
			}
		case <-deadline:
			t.Fatal("the expected envelope never came")
		}
	}
}

func (d *driver) awaitTrace(t *testing.T, work, state string) map[string]any {
	t.Helper()
	return d.await(t, func(env map[string]any) bool {
		body, _ := agh.BodyOf(env)
		return env["kind"] == "trace" && env["work_id"] == work && body["state"] == state
	})
}

func (d *driver) awaitReceipt(t *testing.T, forID string) map[string]any {
	t.Helper()
	return d.await(t, func(env map[string]any) bool {
		body, _ := agh.BodyOf(env)
		return env["kind"] == "receipt" && body["for_id"] == forID
	})
}

// settle waits until the reference peer has published all it will in
// answer to what was sent so far, and the monitor has judged all of that.
// The peer handles its messages one at a time, in order, publishing as it
// goes: its answer to a whois sent now comes after every earlier reaction.
// Once the driver has that answer, a Barrier on the driver's connection
// lets the counting subscription catch up with it; the monitor has judged
// everything up to the answer when it has judged as many messages.
func (d *driver) settle(t *testing.T) {
	t.Helper()
	req := d.send(t, "whois", nil, map[string]any{"type": "request", "query": refPeer})
	d.await(t, func(env map[string]any) bool { return env["kind"] == "whois" && env["reply_to"] == req["id"] })
	counted := make(chan struct{})
	if err := d.nc.Barrier(func() { close(counted) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-counted:
	case <-time.After(wait):
		t.Fatal("the driver's subscriptions did not catch up")
	}
	n := d.seen.Load()
	testwait.Eventually(t, wait, func() bool {
		s := d.sink.last.Load()
		return s != nil && s.Judged+uint64(s.Dropped) >= n
	}, "the monitor to judge the %d messages the broker delivered", n)
}

// Scripts drive the reference peer through the behaviour its faults break.
var scripts = map[string]func(t *testing.T, d *driver){
	// Work completes; a continuation after completed must be refused.
	"continue completed work": func(t *testing.T, d *driver) {
		work := newID("work_")
		d.work(t, "thread_monitor_one", work, nil)
		d.awaitTrace(t, work, "completed")
		late := d.work(t, "thread_monitor_one", work, nil)
		d.awaitReceipt(t, late["id"].(string))
		d.settle(t)
	},
	// Cancel working work twice: one cancellation only.
	"cancel twice": func(t *testing.T, d *driver) {
		work := newID("work_")
		open := d.work(t, "thread_monitor_two", work, []any{map[string]any{"state": "working"}})
		d.awaitTrace(t, work, "working")
		where := map[string]any{"surface": "thread", "thread_id": "thread_monitor_two", "work_id": work}
		d.send(t, "receipt", where, map[string]any{"for_id": open["id"], "status": "canceled"})
		d.awaitTrace(t, work, "canceled")
		d.send(t, "receipt", where, map[string]any{"for_id": open["id"], "status": "canceled"})
		d.settle(t)
	},
	// Work waits for input; the same work_id from another thread must not resume it.
	"continue from another container": func(t *testing.T, d *driver) {
		work := newID("work_")
		d.work(t, "thread_monitor_three", work, []any{map[string]any{"state": "working"},
			map[string]any{"state": "needs_input", "message": "which branch?"}})
		d.awaitTrace(t, work, "needs_input")
		d.work(t, "thread_monitor_elsewhere", work, nil)
		d.settle(t)
	},
	"whois": func(t *testing.T, d *driver) {
		req := d.send(t, "whois", nil, map[string]any{"type": "request", "query": refPeer})
		d.await(t, func(env map[string]any) bool { return env["kind"] == "whois" && env["reply_to"] == req["id"] })
	},
}

// TestMonitorCorrectPeer: the reference peer driven through every script
// gives no finding, and every delivered message is judged.
func TestMonitorCorrectPeer(t *testing.T) {
	d, sink, stop := watch(t)
	d.send(t, "greet", map[string]any{"to": nil}, map[string]any{"peer_card": map[string]any{"peer_id": me,
		"profiles_supported": []any{agh.Protocol}, "capabilities": []any{}, "artifacts_supported": []any{}, "trust_modes_supported": []any{"unverified"}}})
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) { script(t, d) })
	}
	s := stop()
	writeSummary(testWriter{t}, s, painter{}, 0)
	for _, f := range sink.findings {
		t.Errorf("finding on correct traffic: %s", line(&f))
	}
	if s.Judged < 20 || s.Judged != s.Delivered || s.Dropped != 0 {
		t.Errorf("judged %d of %d delivered, %d dropped", s.Judged, s.Delivered, s.Dropped)
	}
	if s.Tracker.Units < 3 {
		t.Errorf("tracker followed %d work units", s.Tracker.Units)
	}
}

// TestMonitorCatchesFaults: each lifecycle fault of the reference peer is
// caught by the tracker with the rule it breaks.
func TestMonitorCatchesFaults(t *testing.T) {
	for _, tc := range []struct{ fault, script, rule string }{
		{"reopen-terminal", "continue completed work", "LIFE-TERMINAL-FINAL"},
		{"cancel-not-idempotent", "cancel twice", "LIFE-CANCEL-IDEMPOTENT"},
		{"ignore-container", "continue from another container", "LIFE-CONTAINER-BINDING"},
		{"receipt-on-broadcast", "continue completed work", "NATS-PUBLISH-SUBJECT"},
		{"trace-back-to-submitted", "continue completed work", "LIFE-TRANSITIONS"},
		{"container-jump", "continue completed work", "LIFE-CORRELATION"},
		{"reuse-message-id", "continue completed work", "DELIV-ID-UNIQUE"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			d, sink, stop := watch(t, tc.fault)
			scripts[tc.script](t, d)
			s := stop()
			for _, f := range sink.findings {
				t.Log(line(&f))
			}
			if got := sink.rules(); got[tc.rule] == 0 {
				t.Errorf("%s not caught: findings %v", tc.rule, got)
			}
			// A SHOULD (cancel idempotence) is a warning, the others errors.
			if s.Errors+s.Warnings == 0 || s.Judged != s.Delivered {
				t.Errorf("summary: %d errors, %d warnings, judged %d of %d", s.Errors, s.Warnings, s.Judged, s.Delivered)
			}
		})
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }

// blockingSink holds the judge loop at the first finding until released,
// so that the monitor falls behind on purpose.
type blockingSink struct {
	collector
	release chan struct{}
	once    sync.Once
	last    atomic.Pointer[Summary]
}

func (s *blockingSink) Finding(f Finding) {
	s.once.Do(func() { <-s.release })
	s.collector.Finding(f)
}

func (s *blockingSink) Tick(sum *Summary) {
	s.last.Store(sum)
	s.collector.Tick(sum)
}

// TestMonitorReportsDrops: what the broker delivered but the monitor could
// not take is counted and reported as MONITOR-DROPPED, never lost unseen.
func TestMonitorReportsDrops(t *testing.T) {
	b := startBroker(t)
	sink := &blockingSink{collector: *newCollector(), release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Summary, 1)
	go func() {
		s, err := Run(ctx, Config{Endpoint: b.Endpoint, Subject: Subject(testWS, ""), Tick: 20 * time.Millisecond, PendingMsgs: 16}, sink)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	select {
	case <-sink.ticked:
	case <-time.After(wait):
		t.Fatal("the monitor never ticked")
	}
	nc, err := b.Connect("flood")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const n = 3000
	for range n {
		if err := nc.Publish(agh.BroadcastSubject(testWS, testChannel), []byte("not json")); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	close(sink.release)
	if !testwait.Until(wait, func() bool { s := sink.last.Load(); return s != nil && s.Delivered >= n }) {
		t.Fatalf("the broker never delivered all %d messages: %+v", n, sink.last.Load())
	}
	cancel()
	s := <-done
	if s.Dropped == 0 || s.Delivered != n || s.Judged+uint64(s.Dropped) != s.Delivered {
		t.Errorf("delivered %d, judged %d, dropped %d", s.Delivered, s.Judged, s.Dropped)
	}
	if got := sink.rules(); got["MONITOR-DROPPED"] == 0 || got["INPUT-JSON-SYNTAX"] != int(s.Judged) {
		t.Errorf("findings %v for %d judged", got, s.Judged)
	}
}

// TestMonitorRepeatOnAnotherSubject: an exact repeat of a directed
// envelope, republished on the broadcast subject, is not judged again for
// its content but is judged for its subject.
func TestMonitorRepeatOnAnotherSubject(t *testing.T) {
	d, sink, stop := watch(t)
	work := newID("work_")
	open := d.work(t, "thread_monitor_repeat", work, nil)
	d.awaitTrace(t, work, "completed")
	data, err := json.Marshal(open)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.nc.Publish(agh.BroadcastSubject(testWS, testChannel), data); err != nil {
		t.Fatal(err)
	}
	if err := d.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// The broker delivers to the monitor on its own time: wait for the
	// verdict on the republished envelope before stopping.
	for deadline := time.Now().Add(wait); len(sink.rules()) == 0 && time.Now().Before(deadline); {
		<-sink.ticked
	}
	s := stop()
	var got []string
	for _, f := range sink.findings {
		got = append(got, f.Rule.ID+" "+f.Peer+" "+f.Subject)
	}
	want := []string{"NATS-PUBLISH-SUBJECT " + me + " " + agh.BroadcastSubject(testWS, testChannel)}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if s.Repeats != 1 {
		t.Errorf("%d repeats, want 1 (the republished envelope)", s.Repeats)
	}
	// The final rate is that of the whole watch, not of its quiet end.
	if want := float64(s.Judged) / s.Elapsed.Seconds(); s.Rate < want/2 || s.Rate > want*2 {
		t.Errorf("final rate %.2f/s, want about %.2f/s (%d judged in %s)", s.Rate, want, s.Judged, s.Elapsed)
	}
}

// limitSink records the runtime's memory limit while the monitor runs.
type limitSink struct {
	collector
	limit atomic.Int64
}

func (s *limitSink) Tick(sum *Summary) {
	s.limit.Store(debug.SetMemoryLimit(-1))
	s.collector.Tick(sum)
}

// TestMonitorMemoryLimit: while it runs, the monitor keeps the process
// under the soft memory limit of its tracker's cap, and gives the runtime
// back its own limit when it ends.
func TestMonitorMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	if before != math.MaxInt64 {
		t.Skip("GOMEMLIMIT is set: the monitor leaves it")
	}
	b := startBroker(t)
	sink := &limitSink{collector: *newCollector()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Endpoint: b.Endpoint, Tick: 10 * time.Millisecond, Tracker: workunit.Config{MaxEntries: 1 << 21}}, sink)
		done <- err
	}()
	<-sink.ticked
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := sink.limit.Load(), MemoryLimitFor(1<<21); got != want || want <= MemoryLimitFor(0) {
		t.Errorf("memory limit %d while running, want %d (more than the default cap's %d)", got, want, MemoryLimitFor(0))
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("memory limit %d after the monitor, want %d again", after, before)
	}
}
