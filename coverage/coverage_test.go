package coverage

import (
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/rules"
)

// maxOpen ratchets the clauses nothing judges yet: it may only go down. A
// new clause arrives with a fixture, a scenario or a reason it cannot be
// judged, never as one more gap.
const maxOpen = 23

func TestEveryClauseHasAStatus(t *testing.T) {
	tb, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, e := range tb {
		in[e.Rule.ID] = true
		switch e.Status() {
		case Both, Offline, Live, Unjudgeable, Open:
		default:
			t.Errorf("%s: status %q", e.Rule.ID, e.Status())
		}
		if e.Page == "" {
			t.Errorf("%s: no page", e.Rule.ID)
		}
	}
	for _, r := range rules.All() {
		if InScope(r) && !in[r.ID] {
			t.Errorf("clause %s missing from the inventory", r.ID)
		}
	}
	var open []string
	for _, e := range tb {
		if e.Status() == Open {
			open = append(open, e.Rule.ID)
		}
	}
	t.Logf("%s; open: %s", tb.Summary(), strings.Join(open, ", "))
	if len(open) > maxOpen {
		t.Errorf("%d open clauses (at most %d): give each new clause a fixture, a scenario or a reason in inventory.yaml", len(open), maxOpen)
	}
}

// The hand-written data stays honest: a reason only for a clause of the
// inventory that nothing judges.
func TestReasonsChecked(t *testing.T) {
	tb := Table{
		{Rule: &rules.Rule{ID: "A"}, Scenarios: []string{"s"}},
		{Rule: &rules.Rule{ID: "B"}},
	}
	for reasons, want := range map[*map[string]string]string{
		{"A": "cannot see it"}: "A: judged",
		{"C": "x"}:             "C: not a clause",
		{"B": " "}:             "B: empty reason",
	} {
		err := checkReasons(tb, *reasons)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", *reasons, err, want)
		}
	}
	if err := checkReasons(tb, map[string]string{"B": "inside the peer"}); err != nil {
		t.Error(err)
	}
}

// Offline status is what the engine raises, not what a file name claims.
func TestOfflineNeedsTheEngine(t *testing.T) {
	tb, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tb {
		for _, f := range e.Fixtures {
			if !strings.Contains(f, e.Rule.ID) {
				t.Errorf("%s: fixture %s not named for it", e.Rule.ID, f)
			}
		}
	}
}
