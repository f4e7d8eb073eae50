package requirements

import (
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/agh"
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
		if seen[r.Name] || r.Name == "" || r.Description == "" || kinds(r) != 1 {
			t.Errorf("reading %+v: want a unique name, a description, and a swap, an envelope reading or forms (one)", r)
		}
		if n := r.Envelope.Names(); len(n) > 0 && !slices.Equal(n, []string{r.Name}) {
			t.Errorf("%s: its envelope reading is %v, want validate's reading of the same name", r.Name, n)
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
	for _, e := range agh.ErrataNames() {
		if !seen[e.Name] {
			t.Errorf("validate's reading %s is not a reading of run", e.Name)
		}
	}
	_, err = LookupReading("no-such-reading")
	if err == nil || !strings.Contains(err.Error(), "capability-catalog-required") || !strings.Contains(err.Error(), "null-as-absent") {
		t.Errorf("an unknown reading is an error naming the known ones: %v", err)
	}
}

// --compat reference selects validate's reference preset, then each
// --errata name once; an unknown runtime or name is an error.
func TestSelect(t *testing.T) {
	rs, err := Select("reference", []string{"capability-catalog-required", "null-as-absent"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
	}
	want := append(agh.Reference().Names(), "capability-catalog-required")
	if !slices.Equal(names, want) {
		t.Errorf("Select = %v, want %v", names, want)
	}
	if got := Envelope(rs); got != agh.Reference() {
		t.Errorf("Envelope = %v, want the reference preset %v", got.Names(), agh.Reference().Names())
	}
	if rs, err := Select("", []string{"reference"}); err != nil || Envelope(rs) != agh.Reference() {
		t.Errorf("--errata reference = %v, %v; want the reference preset, as validate reads it", rs, err)
	}
	if rs, err := Select("", nil); err != nil || len(rs) != 0 {
		t.Errorf("Select with nothing = %v, %v", rs, err)
	}
	if _, err := Select("other", nil); err == nil || !strings.Contains(err.Error(), `unknown runtime "other"`) {
		t.Errorf("an unknown runtime: %v", err)
	}
	if _, err := Select("", []string{"nope"}); err == nil {
		t.Error("an unknown reading was selected")
	}
}

// kinds counts the ways r changes what a run judges.
func kinds(r Reading) int {
	n := 0
	for _, b := range []bool{len(r.Swap) > 0, len(r.Envelope.Names()) > 0, r.Forms} {
		if b {
			n++
		}
	}
	return n
}

// ReadingsFor, worked out once, says what asking every reading says, for
// every rule; and a caller that changes its slice changes no later answer.
func TestReadingsForEveryRule(t *testing.T) {
	ids := []string{"NO-SUCH-RULE", ""}
	for _, r := range Rules() {
		ids = append(ids, r.ID)
	}
	for _, e := range agh.ErrataNames() {
		ids = append(ids, e.Rules...)
	}
	pointed := 0
	for _, id := range ids {
		var want []string
		for _, r := range Readings() {
			if slices.Contains(r.Rules, id) {
				want = append(want, r.Name)
			}
		}
		got := ReadingsFor(id)
		var names []string
		for _, r := range got {
			names = append(names, r.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("ReadingsFor(%s) = %v, want %v", id, names, want)
		}
		if len(got) > 0 {
			pointed++
			got[0] = Reading{Name: "changed"}
			if again := ReadingsFor(id); again[0].Name != want[0] {
				t.Errorf("ReadingsFor(%s) after its result was changed: %s, want %s", id, again[0].Name, want[0])
			}
		}
	}
	if pointed == 0 {
		t.Fatal("no rule points at a reading: the test checks nothing")
	}
}

// Readings hands out copies: sorting and extending a reading's rules
// leaves the table it is made from as it was (it is shared by every
// caller, some at the same time). The table here has its rules out of
// order and room to grow, which the shipped one may come to have.
func TestReadingsLeaveTheirSourcesAlone(t *testing.T) {
	orig := live
	defer func() { live = orig }()
	rules := make([]string, 2, 8)
	rules[0], rules[1] = "ZZ-RULE", "AA-RULE"
	live = []Reading{{Name: "probe", Rules: rules, Swap: map[string]string{"FROM-RULE": "TO-RULE"}}}
	got := Readings()
	if backing := rules[:cap(rules)]; !slices.Equal(backing[:4], []string{"ZZ-RULE", "AA-RULE", "", ""}) {
		t.Fatalf("Readings changed the table it reads: %q", backing[:4])
	}
	k := slices.IndexFunc(got, func(r Reading) bool { return r.Name == "probe" })
	if k < 0 || !slices.Equal(got[k].Rules, []string{"AA-RULE", "FROM-RULE", "TO-RULE", "ZZ-RULE"}) {
		t.Fatalf("reading probe: %+v", got)
	}
}
