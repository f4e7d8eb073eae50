package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/baseline"
)

const shippedBaseline = "../compozy-agh.yaml"

// The runtime's baseline names only scenarios and rules aghcheck has: an
// id that was renamed or removed would make every make reference fail
// (stale) after minutes of building the runtime, so it fails here, where
// no runtime is needed.
func TestBaselineIDsAreCurrent(t *testing.T) {
	var warned []string
	retired, err := harness.Options{Baseline: shippedBaseline, Warn: func(s string) { warned = append(warned, s) }}.CheckBaseline()
	if err != nil {
		t.Fatal(err)
	}
	if len(retired) > 0 {
		t.Fatalf("%s names ids no scenario or rule has (renamed or removed; see aghcheck list): %s", shippedBaseline, strings.Join(retired, ", "))
	}
	if len(warned) > 0 {
		t.Errorf("warnings: %s", strings.Join(warned, "; "))
	}
}

// pages are the protocol's pages by name: a reason says which sentence of
// which page the deviation departs from, in the pages' own names.
var pages = regexp.MustCompile(`\b(Envelope|Message Kinds|Work Lifecycle|Delivery Guarantees|NATS Transport Binding|Conformance Levels|Peer Discovery|Capability Discovery|Signature Verification) §[^:]+: `)

// Every reason names its class (an erratum or a runtime finding of
// docs/reference.md) and the page and sentence it rests on, never a file
// outside the repository nor "the seed".
func TestBaselineReasonsCitePages(t *testing.T) {
	b, err := baseline.Load(shippedBaseline)
	if err != nil {
		t.Fatal(err)
	}
	class := regexp.MustCompile(`^(erratum \d+ \(docs/errata\.md\)|runtime (bug|finding) R\d+ \(docs/reference\.md\))`)
	for _, e := range b.Entries {
		switch {
		case !class.MatchString(e.Reason):
			t.Errorf("%s: the reason names no erratum nor runtime finding: %s", e.ID, e.Reason)
		case !pages.MatchString(e.Reason):
			t.Errorf("%s: the reason cites no protocol page by name (Page §Section: sentence): %s", e.ID, e.Reason)
		case strings.Contains(strings.ToLower(e.Reason), "seed"), strings.Contains(e.Reason, "spec/"):
			t.Errorf("%s: the reason cites the protocol by something other than its pages' names: %s", e.ID, e.Reason)
		}
	}
}
