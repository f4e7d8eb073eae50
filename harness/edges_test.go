package harness

import (
	"regexp"
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
