package agh

import (
	"path/filepath"
	"testing"

	"github.com/aghcheck/aghcheck/internal/fixturetest"
)

func TestValidFixtures(t *testing.T) {
	c := mustChecker(t, Options{})
	for _, f := range fixtureFiles(t, "valid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res := checkFile(t, c, f)
			if len(res.Findings) != 0 {
				t.Errorf("%s: %s", filepath.Base(f), dump(res.Findings))
			}
			if res.Trust != "unverified" {
				t.Errorf("%s: trust %q", filepath.Base(f), res.Trust)
			}
		})
	}
}

// Each invalid fixture is named RULE-ID[+RULE-ID...]__what.json and must
// fire exactly those rules.
func TestInvalidFixtures(t *testing.T) {
	c := mustChecker(t, Options{})
	for _, f := range fixtureFiles(t, "invalid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			fixturetest.Exactly(t, f, checkFile(t, c, f).Findings)
		})
	}
}
