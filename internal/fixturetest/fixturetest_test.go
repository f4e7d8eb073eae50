package fixturetest

import (
	"slices"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestWant(t *testing.T) {
	ids, ok := Want("dir/INPUT-UTF8+INPUT-DEPTH__both.json")
	if !ok || !slices.Equal(ids, []string{"INPUT-DEPTH", "INPUT-UTF8"}) {
		t.Errorf("Want = %v, %v", ids, ok)
	}
	if _, ok := Want("no-rule.json"); ok {
		t.Error("a name without __ promised rules")
	}
}

func TestExactly(t *testing.T) {
	utf8 := rules.New(rules.InputUTF8, "", "", "")
	depth := rules.New(rules.InputDepth, "", "", "")
	for _, tc := range []struct {
		label string
		name  string
		got   []rules.Finding
		fails bool
	}{
		{"repeated", "INPUT-UTF8__x.json", []rules.Finding{utf8, utf8}, false},
		{"another-rule", "INPUT-UTF8__x.json", []rules.Finding{utf8, depth}, true},
		{"none", "INPUT-UTF8__x.json", nil, true},
		{"two-rules", "INPUT-UTF8+INPUT-DEPTH__x.json", []rules.Finding{depth, utf8}, false},
		{"unknown-rule", "NO-SUCH-RULE__x.json", nil, true},
		{"unnamed", "unnamed.json", nil, true},
	} {
		t.Run(tc.label, func(t *testing.T) {
			r := &recorder{TB: t}
			Exactly(r, tc.name, tc.got)
			if r.failed != tc.fails {
				t.Errorf("%s with %d findings: failed=%v, want %v", tc.name, len(tc.got), r.failed, tc.fails)
			}
		})
	}
}
