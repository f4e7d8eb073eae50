package coverage

import (
	"strings"
	"testing"
)

// A scripted entry must name a clause only control-gated scenarios cite,
// and say why; the shipped inventory marks LIFE-NEEDS-INPUT-RESUME.
func TestScripted(t *testing.T) {
	live := map[string][]string{"A": {"s.a"}, "B": {"s.b", "s.b2"}}
	unscripted := map[string]bool{"B": true}
	for _, tc := range []struct {
		name     string
		scripted map[string]string
		want     string // "" for no error
	}{
		{"scripted", map[string]string{"A": "needs input"}, ""},
		{"empty-reason", map[string]string{"A": " "}, "A: empty reason"},
		{"not-cited", map[string]string{"C": "x"}, "C: no scenario cites it"},
		{"unscripted-scenario", map[string]string{"B": "x"}, "B: a scenario without requires.profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkScripted(tc.scripted, live, unscripted)
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: error %v, want %q", tc.scripted, err, tc.want)
			}
		})
	}
	tab, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tab {
		if e.Rule.ID == "LIFE-NEEDS-INPUT-RESUME" && (e.Scripted == "" || e.Status() != Live) {
			t.Errorf("%s: scripted %q, status %s", e.Rule.ID, e.Scripted, e.Status())
		}
	}
}
