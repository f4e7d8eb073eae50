package scenario

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/suites"
)

// A case override that the case's shape ignores is a lint problem at its
// line, in a template and in a family file alike: a tamper on a fixture
// played as it is (shape fixture), broken pointers on a fixture played as
// bytes, anything beside a skip. The shipped template's own overrides (a
// tamper on trust fixtures, shape opening) are fine.
func TestIgnoredOverridesAreProblems(t *testing.T) {
	raw, err := fs.ReadFile(suites.FS(), "receiver.family.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := string(raw)
	if probs := overridesLinted(t, tmpl); len(probs) > 0 {
		t.Fatalf("the shipped template has ignored overrides: %q", probs)
	}
	added := []struct{ line, field, why string }{
		{"ENV-TS__string: {tamper: {ts: 5}}", "tamper", "has shape fixture"},
		{"INPUT-JSON-SYNTAX__two-envelopes: {broken: [/id]}", "broken", "played as the bytes it holds"},
		{"ENV-TS__negative: {skip: not now, broken: [/ts]}", "broken", "the case is skipped"},
	}
	for _, top := range []string{"template", "family"} {
		t.Run(top, func(t *testing.T) {
			doc := tmpl
			if top == "family" {
				doc = strings.Replace(doc, "\ntemplate:\n", "\nfamily:\n", 1)
			}
			head, rest, ok := strings.Cut(doc, "\n  cases:\n")
			if !ok {
				t.Fatal("receiver.family.yaml has no cases: block")
			}
			first := strings.Count(head, "\n") + 3 // the line after "  cases:"
			var ins strings.Builder
			for _, a := range added {
				ins.WriteString("    " + a.line + "\n")
			}
			probs := overridesLinted(t, head+"\n  cases:\n"+ins.String()+rest)
			if len(probs) != len(added) {
				t.Fatalf("want %d problems, got %d: %q", len(added), len(probs), probs)
			}
			for i, a := range added {
				name, _, _ := strings.Cut(a.line, ":")
				want := fmt.Sprintf("x/receiver.family.yaml:%d:", first+i)
				p := probs[i]
				if !strings.HasPrefix(p, want) || !strings.Contains(p, top+": cases: "+name+": "+a.field+" is ignored") || !strings.Contains(p, a.why) {
					t.Errorf("problem %q: want it at %s, naming %s's %s (%s)", p, want, name, a.field, a.why)
				}
			}
		})
	}
}

// overridesLinted loads doc as x/receiver.family.yaml and returns its
// problems about ignored overrides, in line order.
func overridesLinted(t *testing.T, doc string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "receiver.family.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	set := LoadFS(os.DirFS(dir), ".", "x/")
	var out []string
	for _, p := range set.Problems {
		if strings.Contains(p.Message, " is ignored: ") {
			out = append(out, p.String())
		}
	}
	sort.Strings(out) // same line lengths: line order
	return out
}
