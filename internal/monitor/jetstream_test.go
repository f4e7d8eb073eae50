package monitor

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/testwait"
)

// TestStreamResumes: a JetStream monitor stopped after a work unit
// completed, and started again after the peer (fault reopen-terminal)
// acted on a continuation of it, still knows the unit was complete: it
// reads again, silently, what it had judged, and finds exactly what a
// monitor that never stopped finds, nothing missing and nothing twice.
func TestStreamResumes(t *testing.T) {
	srv := startNode(t)
	app, mon := at(srv, appUser), at(srv, monUser)
	sh := Shard{PartitionOf(testWS, 3), 3}
	createStream(t, mon, sh.K, 1)
	cfg := Config{Endpoint: mon, Subject: Subject(testWS, ""), Shard: sh, JetStream: true}
	r := newWatcher(t, cfg)
	cfg.Durable = "never-stops"
	whole := newWatcher(t, cfg)
	d := newDriver(t, app)
	d.sink = whole.sink
	startPeer(t, app, d, "reopen-terminal")
	judged := func(w *watcher) func() bool { return func() bool { return w.judged() >= d.seen.Load() } }

	work := newID("work_")
	d.work(t, "thread_resume", work, nil)
	d.awaitTrace(t, work, "completed")
	testwait.Eventually(t, wait, judged(r), "the monitor to judge the completed unit")
	r.stop()

	late := d.work(t, "thread_resume", work, nil)
	d.awaitReceipt(t, late["id"].(string))
	d.settle(t)
	r.start()
	testwait.Eventually(t, wait, judged(r), "the restarted monitor to judge what came while it was away")
	testwait.Eventually(t, wait, judged(whole), "the other monitor to judge everything")
	whole.stop()
	r.stop()

	got, want := r.keys(), whole.keys()
	if len(want) == 0 || !hasRule(whole, "LIFE-TERMINAL-FINAL") {
		t.Fatalf("the monitor that never stopped missed the fault: %v", want)
	}
	if d := diffKeys(sorted(got), sorted(want)); d != "" {
		t.Errorf("the restarted monitor's findings differ from those of one that never stopped:\n%s", d)
	}
	if r.sums[1].Replayed == 0 || r.sums[0].Judged+r.sums[1].Judged != whole.sums[0].Judged {
		t.Errorf("judged %d then %d (replayed %d), the other monitor %d", r.sums[0].Judged, r.sums[1].Judged, r.sums[1].Replayed, whole.sums[0].Judged)
	}
}

func hasRule(w *watcher, rule string) bool {
	w.sink.mu.Lock()
	defer w.sink.mu.Unlock()
	for _, f := range w.sink.findings {
		if f.Rule.ID == rule {
			return true
		}
	}
	return false
}
