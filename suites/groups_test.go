package suites_test

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// Every shipped scenario belongs to exactly one record group, and every
// group holds at least one: a new suite or receiver rule prefix must be
// placed in groups.yaml, or a record would silently leave it out.
func TestGroupsCoverEveryScenario(t *testing.T) {
	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	for _, sc := range set.Scenarios {
		var in []string
		for _, g := range suites.Groups() {
			if g.Holds(sc.Suite, sc.ID) {
				in = append(in, g.ID)
				held[g.ID]++
			}
		}
		if len(in) != 1 {
			t.Errorf("%s (suite %s) is in groups %v, want exactly one", sc.ID, sc.Suite, in)
		}
	}
	for _, g := range suites.Groups() {
		if held[g.ID] == 0 {
			t.Errorf("group %s holds no scenario", g.ID)
		}
	}
}
