package harness

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/report"
)

// The refusal of a message that carries a work's work_id from another
// container may carry that message's container or the work's (erratum 14):
// the built-in peer answers in the message's, its allowed variant in the
// work's, and both pass the container scenarios, scripted and at their own
// pace, with nothing held against them passively.
func TestContainerRefusalEitherWay(t *testing.T) {
	t.Parallel()
	sel := regexp.MustCompile(`^lifecycle\.container-binding(-unscripted)?$`)
	for _, mode := range []string{"peer", "peer:mismatch-refused-in-work-container", "plain-peer:pace:1m,mismatch-refused-in-work-container"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, mode, config{Scenarios: loadSuites(t), Select: sel})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			played := 0
			for _, sc := range rep.Scenarios {
				if !sel.MatchString(sc.ID) || sc.Outcome == report.Skip && strings.Contains(sc.Message, "aghcheck.control/v1") {
					continue
				}
				played++
				if sc.Outcome != report.Pass {
					dump(t, rep)
					t.Errorf("%s: %s (%s), want pass", sc.ID, sc.Outcome, sc.Message)
				}
			}
			if played == 0 || len(rep.Passive.Findings) > 0 {
				dump(t, rep)
				t.Errorf("%d container scenarios played, passive findings %v; want them played and nothing held against the refusal", played, rep.Passive.Findings)
			}
		})
	}
}

// A peer whose work runs long (aghcheck peer --long-work: work it does on
// its own is reported working and never ended) is conformant: the Work
// Lifecycle page defines no global work timeout. Played the whole suite,
// with and without the control extension, it fails nothing and is warned
// of nothing: what arrived is judged (the receipt and first trace of
// nats.directed-replies-on-peer-subject and delivery.ids-and-references),
// and a scenario whose requirement needs the work to end is not observable
// for it, once fresh work sent after the ceiling was answered.
func TestLongWorkPeer(t *testing.T) {
	t.Parallel()
	needEnd := []string{"lifecycle.terminal-is-final", "lifecycle.progress-detail"}
	judged := []string{"nats.directed-replies-on-peer-subject", "delivery.ids-and-references"}
	for _, mode := range []string{"peer-long-work", "plain-peer-long-work"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, mode, config{})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			for _, sc := range rep.Scenarios {
				switch {
				case sc.Outcome == report.Fail || sc.Outcome == report.Warn || sc.Outcome == report.Error:
					t.Errorf("%s: %s (%s); a peer whose work runs long is conformant", sc.ID, sc.Outcome, sc.Message)
				case slices.Contains(needEnd, sc.ID) && (sc.Outcome != report.Skip || !strings.Contains(sc.Message, "not observable") ||
					!strings.Contains(sc.Message, "is still working") || !strings.Contains(sc.Message, "it answered fresh work")):
					t.Errorf("%s: %s (%s); want not observable, the work still working and the IUT still serving", sc.ID, sc.Outcome, sc.Message)
				case slices.Contains(judged, sc.ID) && sc.Outcome != report.Pass:
					t.Errorf("%s: %s (%s); want what arrived judged: pass", sc.ID, sc.Outcome, sc.Message)
				}
			}
			if rep.Passive.Outcome == report.Fail || rep.Passive.Outcome == report.Warn {
				t.Errorf("passive %s: %v", rep.Passive.Outcome, rep.Passive.Findings)
			}
			if t.Failed() {
				dump(t, rep)
			}
		})
	}
}
