package rules

import (
	"strconv"
	"strings"
	"testing"
)

func TestPointerEscapes(t *testing.T) {
	for _, tc := range []struct {
		tokens []string
		want   string
	}{
		{nil, ""},
		{[]string{"body", "peer_card", "peer_id"}, "/body/peer_card/peer_id"},
		{[]string{"ext", "a/b~c"}, "/ext/a~1b~0c"},
		{[]string{"items", "0"}, "/items/0"},
		{[]string{""}, "/"},
	} {
		if got := Pointer(tc.tokens...); got != tc.want {
			t.Errorf("Pointer(%q) = %q, want %q", tc.tokens, got, tc.want)
		}
	}
}

func TestRegisterRefusesDuplicatesAndIncompleteRules(t *testing.T) {
	for name, r := range map[string]*Rule{
		"duplicate id":   {ID: InputSyntax.ID, Profile: "input", Severity: Error, Clause: "x"},
		"no id":          {Profile: "input", Severity: Error, Clause: "x"},
		"no clause":      {ID: "TEST-NO-CLAUSE", Profile: "input", Severity: Error},
		"no severity":    {ID: "TEST-NO-SEVERITY", Profile: "input", Clause: "x"},
		"no profile set": {ID: "TEST-NO-PROFILE", Severity: Warning, Clause: "x"},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("Register accepted it")
				}
			}()
			Register(r)
		})
	}
}

var declarerRuns int

// TestDeclarerDefaults: a declared rule gets the declarer's profile, Error
// unless it says otherwise, and the default reason only when it is a MUST
// without one; it is in the catalogue at once.
func TestDeclarerDefaults(t *testing.T) {
	declarerRuns++ // ids stay unique under -count
	d := Declarer{Profile: "test-declarer", Reason: "malformed"}
	for _, tc := range []struct {
		in         Rule
		sev        Severity
		wantReason string
	}{
		{Rule{ID: "TEST-DECL-MUST", Clause: "x"}, Error, "malformed"},
		{Rule{ID: "TEST-DECL-REASON", Clause: "x", Reason: "expired"}, Error, "expired"},
		{Rule{ID: "TEST-DECL-SHOULD", Clause: "x", Severity: Warning}, Warning, ""},
	} {
		tc.in.ID += "-" + strconv.Itoa(declarerRuns)
		r := d.Declare(tc.in)
		if r.Profile != d.Profile || r.Severity != tc.sev || r.Reason != tc.wantReason {
			t.Errorf("%s: profile %q severity %v reason %q", tc.in.ID, r.Profile, r.Severity, r.Reason)
		}
		if got, ok := Lookup(tc.in.ID); !ok || got != r {
			t.Errorf("%s: not registered as declared", tc.in.ID)
		}
	}
}

func TestCatalogueIsOrderedAndLookupable(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("empty catalogue")
	}
	for i, r := range all {
		got, ok := Lookup(r.ID)
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
	if _, ok := Lookup("NO-SUCH-RULE"); ok {
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
		s, ellipsis string
		keep        int
		want        string
	}{
		{"short", "...", 77, "short"},
		{strings.Repeat("x", 80), "...", 77, strings.Repeat("x", 80)}, // the ellipsis would save nothing
		{strings.Repeat("x", 81), "...", 77, strings.Repeat("x", 77) + "..."},
		{long, "...", 77, strings.Repeat("a", 76) + "..."}, // never half a rune
		{strings.Repeat("y", 84), "…", 80, strings.Repeat("y", 80) + "…"},
		{"", "...", 0, ""},
	} {
		if got := Clip(tc.s, tc.keep, tc.ellipsis); got != tc.want {
			t.Errorf("Clip(%q, %d, %q) = %q, want %q", tc.s, tc.keep, tc.ellipsis, got, tc.want)
		}
	}
}
