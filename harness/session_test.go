package harness

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// A session plays batch after batch against one IUT, each judged as a
// run judges it, and hands out what the passive judge found per batch.
func TestSessionPlaysBatches(t *testing.T) {
	t.Parallel()
	all := loadSuites(t)
	pick := func(ids ...string) []*scenario.Scenario {
		var out []*scenario.Scenario
		for _, sc := range all {
			if slices.Contains(ids, sc.ID) {
				out = append(out, sc)
			}
		}
		if len(out) != len(ids) {
			t.Fatalf("found %d of %v", len(out), ids)
		}
		return out
	}
	s, err := Open(context.Background(), Target{Command: selfIUT(t), Env: []string{"AGHCHECK_TEST_IUT=peer:emit:RECEIPT-FOR-ID"},
		GreetTimeout: 10 * time.Second, StepTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.IUT().PeerID == "" || s.IUT().Card == nil {
		t.Fatalf("IUT %+v", s.IUT())
	}
	first, err := s.Play(pick("lifecycle.work-completes", "envelope.malformed-work-refused"), PlayOptions{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.SetStepTimeout(time.Second)
	second, err := s.Play(pick("kinds.whois-directed-answered"), PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*report.Batch{first, second} {
		if len(b.Events) > 0 || len(b.Killers) > 0 || b.Flooded {
			t.Errorf("batch %+v", b)
		}
	}
	if len(first.Results) != 2 || len(second.Results) != 1 || second.Results[0].ID != "kinds.whois-directed-answered" {
		t.Fatalf("results %v %v", first.Results, second.Results)
	}
	// The faulty receipts (for_id naming nothing) are the first batch's,
	// pinned on the scenario whose peer they were for; the second batch
	// starts afresh.
	found := false
	for _, p := range first.Published {
		for _, f := range p.Findings {
			found = found || (f.Rule.ID == "RECEIPT-FOR-ID" && p.Scenario >= 0)
		}
	}
	if !found {
		t.Errorf("no RECEIPT-FOR-ID finding pinned on a scenario of the first batch: %+v", first.Published)
	}
	rep := s.Close()
	if rep.IUT.Exit == "" || rep.Duration == 0 {
		t.Errorf("closed report: exit %q, duration %v", rep.IUT.Exit, rep.Duration)
	}
}
