package reporter

import (
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// ruleClause, cached, gives every rule of the catalogue the line worked out
// afresh, on the first call and after; a rule written out again with
// another clause or level under the same id gets its own line.
func TestRuleClauseCached(t *testing.T) {
	errata := 0
	for _, r := range catalogue.All() {
		want := clauseLine(r.Severity.Level(), catalogue.TextOf(r))
		for range 2 {
			if got := ruleClause(r); got != want {
				t.Fatalf("ruleClause(%s) = %q, want %q", r.ID, got, want)
			}
		}
		if strings.Contains(want, "--errata") {
			errata++
		}
	}
	if errata == 0 {
		t.Error("no rule's line names an erratum reading: the readings are not in the cached lines")
	}
	a := &rules.Rule{ID: "TEST-CLAUSE", Severity: rules.Error, Clause: "A test MUST pass.", Source: "tests"}
	b := &rules.Rule{ID: "TEST-CLAUSE", Severity: rules.Warning, Clause: "A test SHOULD pass.", Source: "tests"}
	if ga, gb := ruleClause(a), ruleClause(b); ga != "MUST: A test MUST pass. [tests]" || gb != "SHOULD: A test SHOULD pass. [tests]" {
		t.Errorf("two rules of one id: %q and %q", ga, gb)
	}
}
