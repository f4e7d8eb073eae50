package rules

import (
	"strings"
	"testing"
)

func TestPointerEscapes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens []string
		want   string
	}{
		{"root", nil, ""},
		{"nested", []string{"body", "peer_card", "peer_id"}, "/body/peer_card/peer_id"},
		{"escapes", []string{"ext", "a/b~c"}, "/ext/a~1b~0c"},
		{"index", []string{"items", "0"}, "/items/0"},
		{"empty-token", []string{""}, "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Pointer(tc.tokens...); got != tc.want {
				t.Errorf("Pointer(%q) = %q, want %q", tc.tokens, got, tc.want)
			}
		})
	}
}

// TestCatalogueRefusesDuplicatesAndIncompleteRules: a malformed rule, or an
// id declared twice in one list or across two, is refused with an error
// naming it.
func TestCatalogueRefusesDuplicatesAndIncompleteRules(t *testing.T) {
	ok := &Rule{ID: "TEST-OK", Profile: "input", Severity: Error, Clause: "x"}
	for name, lists := range map[string][][]*Rule{
		"duplicate across lists": {InputRules(), {{ID: InputSyntax.ID, Profile: "agh", Severity: Error, Clause: "x"}}},
		"duplicate in a list":    {{ok, {ID: ok.ID, Profile: "input", Severity: Warning, Clause: "y"}}},
		"no id":                  {{{Profile: "input", Severity: Error, Clause: "x"}}},
		"no clause":              {{{ID: "TEST-NO-CLAUSE", Profile: "input", Severity: Error}}},
		"no severity":            {{{ID: "TEST-NO-SEVERITY", Profile: "input", Clause: "x"}}},
		"no profile set":         {{{ID: "TEST-NO-PROFILE", Severity: Warning, Clause: "x"}}},
		"nil rule":               {{nil}},
	} {
		t.Run(name, func(t *testing.T) {
			if c, err := NewCatalogue(lists...); err == nil {
				t.Fatalf("NewCatalogue accepted it: %d rules", len(c.All()))
			}
		})
	}
}

// TestDeclarerDefaults: a declared rule gets the declarer's profile, Error
// unless it says otherwise, and the default reason only when it is a MUST
// without one; it is in the declarer's list, in order, and nowhere else.
func TestDeclarerDefaults(t *testing.T) {
	d := Declarer{Profile: "test-declarer", Reason: "malformed"}
	var declared []*Rule
	for _, tc := range []struct {
		in         Rule
		sev        Severity
		wantReason string
	}{
		{Rule{ID: "TEST-DECL-MUST", Clause: "x"}, Error, "malformed"},
		{Rule{ID: "TEST-DECL-REASON", Clause: "x", Reason: "expired"}, Error, "expired"},
		{Rule{ID: "TEST-DECL-SHOULD", Clause: "x", Severity: Warning}, Warning, ""},
	} {
		r := d.Declare(tc.in)
		declared = append(declared, r)
		if r.Profile != d.Profile || r.Severity != tc.sev || r.Reason != tc.wantReason {
			t.Errorf("%s: profile %q severity %v reason %q", tc.in.ID, r.Profile, r.Severity, r.Reason)
		}
	}
	got := d.Rules()
	if len(got) != len(declared) {
		t.Fatalf("declarer lists %d rules, declared %d", len(got), len(declared))
	}
	for i := range got {
		if got[i] != declared[i] {
			t.Errorf("rule %d: listed %s, declared %s", i, got[i].ID, declared[i].ID)
		}
	}
	c, err := NewCatalogue(InputRules(), d.Rules())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := c.Lookup("TEST-DECL-MUST"); !ok || r != declared[0] {
		t.Error("a declared rule is not in a catalogue built from its declarer's list")
	}
}

func TestCatalogueIsOrderedAndLookupable(t *testing.T) {
	extra := Declarer{Profile: "a-first"}
	extra.Declare(Rule{ID: "ZZ-LAST-ID", Clause: "x"})
	c, err := NewCatalogue(InputRules(), extra.Rules())
	if err != nil {
		t.Fatal(err)
	}
	all := c.All()
	if len(all) != len(InputRules())+1 || all[0].ID != "ZZ-LAST-ID" {
		t.Fatalf("catalogue of %d rules starting %s: want the input rules after profile a-first", len(all), all[0].ID)
	}
	for i, r := range all {
		got, ok := c.Lookup(r.ID)
		if !ok || got != r {
			t.Errorf("Lookup(%s) = %v, %v", r.ID, got, ok)
		}
		if i > 0 {
			p := all[i-1]
			if p.Profile > r.Profile || (p.Profile == r.Profile && p.ID >= r.ID) {
				t.Errorf("%s/%s listed after %s/%s", r.Profile, r.ID, p.Profile, p.ID)
			}
		}
	}
	if _, ok := c.Lookup("NO-SUCH-RULE"); ok {
		t.Error("Lookup found a rule that does not exist")
	}
}

func TestFindingRendering(t *testing.T) {
	f := New(InputDuplicateKey, "/body/text", "one member", "two")
	f.Message = "member repeated"
	s := f.String()
	for _, want := range []string{"error", "INPUT-DUPLICATE-KEY", "/body/text", "member repeated", "expected one member, found two"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	w := Finding{Rule: &Rule{ID: "W", Severity: Warning}}
	if w.Severity(false) != Warning || w.Severity(true) != Error {
		t.Error("strict mode must raise warnings to errors")
	}
	if Warning.Level() != "SHOULD" || Error.Level() != "MUST" {
		t.Error("severity levels")
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 76) + "é" + "tail" // é straddles byte 77
	for _, tc := range []struct {
		name        string
		s, ellipsis string
		keep        int
		want        string
	}{
		{"short", "short", "...", 77, "short"},
		{"ellipsis-saves-nothing", strings.Repeat("x", 80), "...", 77, strings.Repeat("x", 80)}, // the ellipsis would save nothing
		{"clipped", strings.Repeat("x", 81), "...", 77, strings.Repeat("x", 77) + "..."},
		{"rune-boundary", long, "...", 77, strings.Repeat("a", 76) + "..."}, // never half a rune
		{"one-rune-ellipsis", strings.Repeat("y", 84), "…", 80, strings.Repeat("y", 80) + "…"},
		{"empty", "", "...", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clip(tc.s, tc.keep, tc.ellipsis); got != tc.want {
				t.Errorf("Clip(%q, %d, %q) = %q, want %q", tc.s, tc.keep, tc.ellipsis, got, tc.want)
			}
		})
	}
}

// Detail is the one line every text format gives a finding.
func TestFindingDetail(t *testing.T) {
	r := &Rule{ID: "TEST-DETAIL", Clause: "A test MUST pass."}
	for _, c := range []struct {
		f    Finding
		want string
	}{
		{Finding{Rule: r, Pointer: "/a", Message: "bad", Expected: "x", Found: "y"}, "at /a: bad (expected x, found y)"},
		{Finding{Rule: r, Expected: "x"}, "(expected x, found nothing)"},
		{Finding{Rule: r, Found: "y\nz"}, "(expected nothing, found y z)"},
		{Finding{Rule: r, Message: "two\nlines"}, "two lines"},
		{Finding{Rule: r}, "A test MUST pass."},
	} {
		if got := c.f.Detail(); got != c.want {
			t.Errorf("Detail(%+v) = %q, want %q", c.f, got, c.want)
		}
	}
}
