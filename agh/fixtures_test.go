package agh

import (
	"path/filepath"
	"reflect"
	"sort"

	"github.com/aghcheck/aghcheck/rules"
	"strings"
	"testing"
)

func TestValidFixtures(t *testing.T) {
	c := mustChecker(t, Options{})
	for _, f := range fixtureFiles(t, "valid") {
		res := checkFile(t, c, f)
		if len(res.Findings) != 0 {
			t.Errorf("%s: %s", filepath.Base(f), dump(res.Findings))
		}
		if res.Trust != "unverified" {
			t.Errorf("%s: trust %q", filepath.Base(f), res.Trust)
		}
	}
}

// Each invalid fixture is named RULE-ID[+RULE-ID...]__what.json and must
// fire exactly those rules.
func TestInvalidFixtures(t *testing.T) {
	c := mustChecker(t, Options{})
	for _, f := range fixtureFiles(t, "invalid") {
		name := filepath.Base(f)
		list, _, ok := strings.Cut(name, "__")
		if !ok {
			t.Errorf("%s: name must be RULE-ID__what.json", name)
			continue
		}
		res := checkFile(t, c, f)
		want := strings.Split(list, "+")
		sort.Strings(want)
		if got := ids(res.Findings); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: rules %v, want exactly %v%s", name, got, want, dump(res.Findings))
		}
		for _, id := range want {
			if _, ok := rules.Lookup(id); !ok {
				t.Errorf("%s: %s is not in the catalogue", name, id)
			}
		}
	}
}
