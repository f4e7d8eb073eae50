package fuzz

import (
	"context"
	"testing"
	"time"
)

// A run interrupted while a batch is in flight judges none of its cases,
// and reports no finding it could not confirm: against a correct peer
// slower than the first, shortened ceiling, every finding would rest on
// that ceiling.
func TestInterruptedRunJudgesNothingInFlight(t *testing.T) {
	t.Parallel()
	hc := against(t, "slow:2500ms")
	hc.StepTimeout = 20 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := 0
	rep, err := Run(ctx, Config{Seed: 1, Duration: time.Minute, Parallel: 64, Target: hc, Progress: func(Progress) {
		// The first batch is judged: the second, which waits at least
		// its 2s ceiling on the slow peer, is interrupted midway (a
		// signal's timing, not a wait for a condition).
		if batches++; batches == 1 {
			time.AfterFunc(500*time.Millisecond, cancel)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.InFlight == 0 || rep.Cases == 0 {
		t.Fatalf("interrupted %v, %d in flight, %d judged: want an interrupted run with cases judged and in flight", rep.Interrupted, rep.InFlight, rep.Cases)
	}
	// Judged, the cases in flight would show as findings (or as findings
	// left out unconfirmed) of the shortened ceiling; the seeds, played
	// first with the full ceiling, show none.
	if len(rep.Findings) > 0 {
		t.Errorf("%d findings (%d unconfirmed): want none reported:%s", len(rep.Findings), rep.Unconfirmed, describe(rep))
	}
}
