// Package fixturetest holds the one convention every fixture corpus follows:
// an invalid fixture is named RULE-ID[+RULE-ID...]__what.json and must fire
// exactly those rules, so the corpus documents itself.
package fixturetest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Want returns the rule ids an invalid fixture's file name promises, sorted;
// ok is false when the name does not follow the convention.
func Want(name string) (ids []string, ok bool) {
	ids, _, ok = fixtures.Name(name)
	slices.Sort(ids)
	return ids, ok
}

// IDs returns the distinct rule ids of findings, sorted.
func IDs(fs []rules.Finding) []string {
	var ids []string
	for _, f := range fs {
		if !slices.Contains(ids, f.Rule.ID) {
			ids = append(ids, f.Rule.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// Exactly fails t unless got fires exactly the rules the fixture name
// promises. That every promised id is in the rule catalogue is checked by
// package catalogue's tests over the whole fixture tree: this package serves
// the declaring packages' own tests, which cannot import the catalogue that
// imports them.
func Exactly(t testing.TB, name string, got []rules.Finding) {
	t.Helper()
	want, ok := Want(name)
	if !ok {
		t.Errorf("%s: an invalid fixture is named RULE-ID[+RULE-ID...]__what.json", filepath.Base(name))
		return
	}
	if ids := IDs(got); !slices.Equal(ids, want) {
		var b strings.Builder
		for _, f := range got {
			b.WriteString("\n    " + f.String())
		}
		t.Errorf("%s: rules %v, want exactly %v%s", filepath.Base(name), ids, want, b.String())
	}
}
