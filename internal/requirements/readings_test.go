package requirements

import (
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// Each live reading swaps a catalogue requirement for another of a
// different level whose clause names the flag that asks for it, and run
// --errata finds it by name.
func TestReadings(t *testing.T) {
	c, err := rules.NewCatalogue(Rules())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range Readings() {
		if seen[r.Name] || r.Name == "" || r.Description == "" || len(r.Swap) == 0 {
			t.Errorf("reading %+v: want a unique name, a description and a swap", r)
		}
		seen[r.Name] = true
		for from, to := range r.Swap {
			a, okA := c.Lookup(from)
			b, okB := c.Lookup(to)
			if !okA || !okB {
				t.Errorf("%s swaps %s for %s: both must be in the catalogue", r.Name, from, to)
				continue
			}
			if a.Severity == b.Severity {
				t.Errorf("%s swaps %s for %s of the same level %s: the reading changes nothing", r.Name, from, to, a.Severity.Level())
			}
			if !strings.Contains(b.Clause, "--errata "+r.Name) {
				t.Errorf("%s: the clause of %s does not name the flag that asks for it: %s", r.Name, to, b.Clause)
			}
		}
		got, err := LookupReading(" " + r.Name + " ")
		if err != nil || got.Name != r.Name {
			t.Errorf("LookupReading(%q) = %v, %v", r.Name, got.Name, err)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no readings")
	}
	_, err = LookupReading("null-as-absent")
	if err == nil || !strings.Contains(err.Error(), "capability-catalog-required") {
		t.Errorf("an envelope erratum is not a live reading, and the error names the known ones: %v", err)
	}
}
