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
// caught by the work-unit tracker in passive judging, with the rule they
// break; a finding on a message that reaches a scenario before it ends
// (owned) also fails that scenario. (The correct peer giving no finding at
// all is TestReferencePeerPassesEverything.)
func TestTrackerCatchesFaults(t *testing.T) {
	all := loadSuites(t)
	for _, tc := range []struct {
		fault, scenario, rule string
		owned                 bool
	}{
		{"trace-back-to-submitted", "lifecycle.work-completes", "LIFE-TRANSITIONS", false},
		{"report-after-completed", "lifecycle.work-completes", "LIFE-TERMINAL-FINAL", false},
		{"container-jump", "lifecycle.work-completes", "LIFE-CORRELATION", false},
		{"reuse-message-id", "lifecycle.work-completes", "DELIV-ID-UNIQUE", false},
		{"receipt-for-unknown-id", "lifecycle.work-completes", "DELIV-FOR-ID-KNOWN", true},
		{"reopen-terminal", "lifecycle.terminal-is-final", "LIFE-TERMINAL-FINAL", true},
		{"cancel-not-idempotent", "lifecycle.cancel-idempotent", "LIFE-CANCEL-IDEMPOTENT", false},
		{"ignore-container", "lifecycle.container-binding", "LIFE-CONTAINER-BINDING", false},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, "peer:"+tc.fault, config{Scenarios: all, Select: regexp.MustCompile("^" + regexp.QuoteMeta(tc.scenario) + "$")})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			passive := false
			for _, f := range rep.Passive.Findings {
				passive = passive || f.Rule == tc.rule
			}
			want := report.Fail
			if r, _ := catalogue.Lookup(tc.rule); r.Severity == rules.Warning {
				want = report. // a SHOULD (cancel idempotence) warns
						Warn
			}
			if rep.Passive.Outcome != want || !passive {
				dump(t, rep)
				t.Errorf("passive verdict %s without %s", rep.Passive.Outcome, tc.rule)
			}
			for _, sc := range rep.Scenarios {
				if sc.ID != tc.scenario || !tc.owned {
					continue
				}
				if sc.Outcome != report.Fail || !strings.Contains(strings.Join(append(sc.Notes, sc.Message), "\n"), tc.rule) {
					dump(t, rep)
					t.Errorf("%s: %s (%s), want a fail citing %s", sc.ID, sc.Outcome, sc.Message, tc.rule)
				}
			}
		})
	}
}
