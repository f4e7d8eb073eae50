package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/owned"
)

const shippedBaseline = "../compozy-agh.yaml"

// compatBaseline is the runtime's baseline under its own reading of every
// documented erratum (make reference COMPAT=reference).
const compatBaseline = "../compozy-agh.compat-reference.yaml"

// adapterOwned names the requirements whose verdict is the adapter's.
const adapterOwned = "../compozy-agh.adapter.yaml"

// shipped are the baselines and the runtime preset each is judged under.
var shipped = []struct{ file, compat string }{{shippedBaseline, ""}, {compatBaseline, "reference"}}

// The runtime's baseline names only scenarios and rules aghcheck has: an
// id that was renamed or removed would make every make reference fail
// (stale) after minutes of building the runtime, so it fails here, where
// no runtime is needed.
func TestBaselineIDsAreCurrent(t *testing.T) {
	for _, b := range shipped {
		var warned []string
		retired, err := harness.Options{Baseline: b.file, Compat: b.compat, Warn: func(s string) { warned = append(warned, s) }}.CheckBaseline()
		if err != nil {
			t.Fatal(err)
		}
		if len(retired) > 0 {
			t.Errorf("%s names ids no scenario or rule has (renamed or removed; see aghcheck list): %s", b.file, strings.Join(retired, ", "))
		}
		if len(warned) > 0 {
			t.Errorf("%s: warnings: %s", b.file, strings.Join(warned, "; "))
		}
	}
}

// The adapter's own requirements are requirements of the catalogue, each
// with why its verdict is the adapter's.
func TestAdapterOwnedIsCurrent(t *testing.T) {
	l, err := owned.Load(adapterOwned, func(id string) bool { _, ok := catalogue.Lookup(id); return ok })
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Requirements) == 0 {
		t.Fatalf("%s lists no requirement", adapterOwned)
	}
}

// pages are the protocol's pages by name: a reason says which sentence of
// which page the deviation departs from, in the pages' own names.
var pages = regexp.MustCompile(`\b(Envelope|Message Kinds|Work Lifecycle|Delivery Guarantees|NATS Transport Binding|Conformance Levels|Peer Discovery|Capability Discovery|Signature Verification) §[^:]+: `)

// Every reason names its class (an erratum or a runtime finding of
// docs/reference.md) and the page and sentence it rests on, never a file
// outside the repository nor "the seed".
func TestBaselineReasonsCitePages(t *testing.T) {
	for _, f := range shipped {
		reasonsCitePages(t, f.file)
	}
}

func reasonsCitePages(t *testing.T, file string) {
	b, err := baseline.Load(file)
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
