package harness

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// TestTrackerCatchesFaults: lifecycle faults of the reference peer are
// caught by the work-unit tracker with the rule they break, once: in the
// scenario whose exchange caused the finding, else in the passive verdict.
// (The correct peer giving no finding at all is
// TestReferencePeerPassesEverything.)
func TestTrackerCatchesFaults(t *testing.T) {
	all := loadSuites(t)
	for _, tc := range []struct {
		fault, scenario, rule string
	}{
		{"trace-back-to-submitted", "lifecycle.work-completes", "LIFE-TRANSITIONS"},
		{"report-after-completed", "lifecycle.work-completes", "LIFE-TERMINAL-FINAL"},
		{"container-jump", "lifecycle.work-completes", "LIFE-CORRELATION"},
		{"reuse-message-id", "lifecycle.work-completes", "DELIV-ID-UNIQUE"},
		{"receipt-for-unknown-id", "lifecycle.work-completes", "DELIV-FOR-ID-KNOWN"},
		{"reopen-terminal", "lifecycle.terminal-is-final", "LIFE-TERMINAL-FINAL"},
		{"cancel-not-idempotent", "lifecycle.cancel-idempotent", "LIFE-CANCEL-IDEMPOTENT"},
		{"ignore-container", "lifecycle.container-binding", "LIFE-CONTAINER-BINDING"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, "peer:"+tc.fault, config{Scenarios: all, Select: regexp.MustCompile("^" + regexp.QuoteMeta(tc.scenario) + "$")})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			// The tracker's finding is charged once: to the scenario whose
			// exchange caused it (which then fails, or warns for a SHOULD),
			// else to the run's passive verdict.
			want := report.Fail
			if r, _ := catalogue.Lookup(tc.rule); r.Severity == rules.Warning {
				want = report.Warn // a SHOULD (cancel idempotence) warns
			}
			passive := false
			for _, f := range rep.Passive.Findings {
				passive = passive || f.Rule == tc.rule
			}
			charged := false
			for _, sc := range rep.Scenarios {
				if sc.ID == tc.scenario && strings.Contains(strings.Join(append(sc.Notes, sc.Message), "\n"), tc.rule) &&
					(sc.Outcome == want || sc.Outcome == report.Fail) {
					charged = true
				}
			}
			switch {
			case passive && charged:
				dump(t, rep)
				t.Errorf("%s counted twice: in %s and in the passive verdict", tc.rule, tc.scenario)
			case !passive && !charged:
				dump(t, rep)
				t.Errorf("%s caught neither by %s nor by the passive verdict", tc.rule, tc.scenario)
			case passive && rep.Passive.Outcome != want:
				t.Errorf("passive verdict %s, want %s", rep.Passive.Outcome, want)
			}
		})
	}
}
