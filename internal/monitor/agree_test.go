package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/testiut"
	"github.com/aghcheck/aghcheck/suites"
)

// The test binary doubles as the IUT of a run: with AGHCHECK_TEST_IUT=peer
// it is the reference peer, configured from the IUT environment.
func TestMain(m *testing.M) {
	testiut.Main(m, func(string) int { return testiut.Peer(nil, false) })
}

// TestMonitorAgreesWithRun watches one broker while `aghcheck run` certifies
// the reference peer on it: every scenario plays, broken messages and all,
// and the monitor must find against the peer exactly what the run's
// passive validation finds (nothing).
func TestMonitorAgreesWithRun(t *testing.T) {
	b := startBroker(t)
	sink := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Endpoint: b.Endpoint, Tick: 20 * time.Millisecond}, sink)
		done <- err
	}()
	select {
	case <-sink.ticked:
	case err := <-done:
		t.Fatalf("monitor: %v", err)
	case <-time.After(wait):
		t.Fatal("the monitor never ticked")
	}

	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	exe := testiut.Self(t)
	ep := b.Endpoint
	plan, err := harness.Options{
		Target: harness.Target{External: &ep, Command: []string{exe, "-test.run=^$"}, Env: []string{"AGHCHECK_TEST_IUT=peer"},
			GreetTimeout: 10 * time.Second, MaxRestarts: harness.DefaultMaxRestarts},
		// Under -race on a shared machine, every scenario at once would
		// make verdicts measure the machine (as in the harness's tests).
		Parallel: 48,
	}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(context.Background())
	cancel()
	if mErr := <-done; mErr != nil {
		t.Fatalf("monitor: %v", mErr)
	}
	if rep == nil {
		t.Fatalf("run: %v", err)
	}
	iut := rep.IUT.PeerID
	if rep.Summary.Fail != 0 || rep.Summary.Error != 0 || len(rep.Passive.Findings) != 0 {
		t.Fatalf("run: %d fail, %d error, passive findings %v: the reference peer should pass", rep.Summary.Fail, rep.Summary.Error, rep.Passive.Findings)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	for _, f := range sink.findings {
		if f.Peer == iut {
			t.Errorf("monitor finds against the IUT what the run does not: %s on %s %s (%s, work %s)", f.Finding, f.Kind, f.ID, f.Subject, f.WorkID)
		}
	}
	if sink.final == nil || sink.final.Judged < uint64(rep.IUT.Messages) {
		t.Errorf("the monitor judged fewer envelopes than the %d the IUT published", rep.IUT.Messages)
	}
}
