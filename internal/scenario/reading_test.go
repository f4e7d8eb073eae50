package scenario

import (
	"slices"
	"testing"

	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/suites"
)

// Under a reading, the scenarios citing a swapped requirement cite and
// check its replacement, graded at that one's level; the loaded scenarios
// are left alone, and the others come back as they were.
func TestReread(t *testing.T) {
	set := LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	r, err := requirements.LookupReading("capability-catalog-required")
	if err != nil {
		t.Fatal(err)
	}
	from, to := requirements.DiscRichDiscovery.ID, requirements.DiscCatalogRequired.ID
	read := Reread(set.Scenarios, r.Swap)
	changed := 0
	for i, sc := range set.Scenarios {
		got := read[i]
		if !slices.Contains(sc.Requirements, from) {
			if got != sc {
				t.Errorf("%s cites no swapped requirement, yet came back changed", sc.ID)
			}
			continue
		}
		changed++
		if slices.Contains(got.Requirements, from) || !slices.Contains(got.Requirements, to) {
			t.Errorf("%s: requirements %v under the reading", sc.ID, got.Requirements)
		}
		if !slices.Contains(sc.Requirements, from) || slices.Contains(sc.Requirements, to) {
			t.Errorf("%s: the loaded scenario was changed: %v", sc.ID, sc.Requirements)
		}
		before, after := sc.Grading(), got.Grading()
		for j := range before {
			switch {
			case slices.Contains(before[j].Checks, from):
				if before[j].Level != "MAY" || after[j].Level != "MUST" || !slices.Equal(after[j].Checks, []string{to}) {
					t.Errorf("%s step %d: %+v became %+v, want the MAY step checking %s at MUST", sc.ID, j+1, before[j], after[j], to)
				}
			case before[j].Level != after[j].Level || !slices.Equal(before[j].Checks, after[j].Checks):
				t.Errorf("%s step %d: %+v became %+v, a step the reading does not touch", sc.ID, j+1, before[j], after[j])
			}
		}
		if issues := got.checkLevels(); len(issues) > 0 {
			t.Errorf("%s under the reading does not lint: %v", sc.ID, issues)
		}
	}
	if changed == 0 {
		t.Errorf("no embedded scenario cites %s", from)
	}
}
