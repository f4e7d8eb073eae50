package peer

import (
	"strconv"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// A busy peer's dedup window past its sweep size keeps every entry still
// within the replay window (forgetting one would take its replay) and
// forgets the expired ones.
func TestDedupWindowPastSweepSize(t *testing.T) {
	p, _ := offline(t)
	clock := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return clock }
	old := dedupKey{"tester.peer-1", "msg_old"}
	p.remember(old, nil)
	clock = clock.Add(p.cfg.MaxReplayAge + time.Second) // msg_old's window is over
	n := 2*sweepDedupAt + 10
	for i := range n {
		p.remember(dedupKey{"tester.peer-1", "msg_" + strconv.Itoa(i)}, nil)
	}
	if _, ok := p.seen[old]; ok {
		t.Error("an entry past its replay window survived two early sweeps")
	}
	for i := range n {
		if _, ok := p.seen[dedupKey{"tester.peer-1", "msg_" + strconv.Itoa(i)}]; !ok {
			t.Fatalf("msg_%d was forgotten within its replay window (%d entries)", i, len(p.seen))
		}
	}
}

// BenchmarkRememberFullWindow is the cost of remembering a message once
// the window holds more live entries than its sweep size: a sweep of the
// whole table on every message made it grow with the table.
func BenchmarkRememberFullWindow(b *testing.B) {
	p, _ := offline(b)
	for i := range sweepDedupAt {
		p.remember(dedupKey{"tester.peer-1", "fill_" + strconv.Itoa(i)}, nil)
	}
	i := 0
	for b.Loop() {
		p.remember(dedupKey{"tester.peer-1", "msg_" + strconv.Itoa(i)}, nil)
		i++
	}
}

// Past maxClosedWork closed units the oldest closed ones are forgotten
// first; open work, however old, is kept within its retention.
func TestClosedWorkIsBounded(t *testing.T) {
	p, _ := offline(t)
	clock := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return clock }
	p.work["work_open"] = &work{state: agh.StateWorking, updated: clock}
	const extra = 50
	for i := range maxClosedWork + extra {
		p.work["work_"+strconv.Itoa(i)] = &work{state: agh.StateCompleted, updated: clock.Add(time.Duration(i+1) * time.Millisecond)}
	}
	clock = clock.Add(time.Minute)
	p.sweep()
	if len(p.work) != maxClosedWork+1 {
		t.Fatalf("%d work units after the sweep, want %d closed and the open one", len(p.work), maxClosedWork)
	}
	if p.work["work_open"] == nil {
		t.Error("the open unit was forgotten")
	}
	for i := range extra {
		if p.work["work_"+strconv.Itoa(i)] != nil {
			t.Fatalf("work_%d, among the oldest closed, was kept", i)
		}
	}
	if p.work["work_"+strconv.Itoa(extra)] == nil {
		t.Error("the oldest closed unit within the bound was forgotten")
	}
}
