package catalogue

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// TestEveryListIsInTheCatalogue: each declaring package's rules are in the
// one catalogue, as the same values, so a checker's finding and the
// catalogue never disagree on a rule.
func TestEveryListIsInTheCatalogue(t *testing.T) {
	n := 0
	for _, list := range Lists() {
		if len(list) == 0 {
			t.Error("a declaring package hands the catalogue no rules")
		}
		for _, r := range list {
			n++
			if got, ok := Lookup(r.ID); !ok || got != r {
				t.Errorf("%s: not in the catalogue as declared", r.ID)
			}
		}
	}
	if len(All()) != n {
		t.Errorf("catalogue has %d rules, the lists %d", len(All()), n)
	}
}

// TestDuplicateAcrossPackagesIsRefused: the catalogue refuses a rule that
// one package declares with another's id.
func TestDuplicateAcrossPackagesIsRefused(t *testing.T) {
	stray := rules.Declarer{Profile: "test"}
	stray.Declare(rules.Rule{ID: All()[len(All())-1].ID, Clause: "x"})
	if _, err := rules.NewCatalogue(append(Lists(), stray.Rules())...); err == nil {
		t.Fatal("a duplicate id across packages was accepted")
	}
}

// TestFixtureNamesAreCatalogueRules: every fixture named after the rules it
// breaks (RULE-ID[+RULE-ID...]__what.json) names rules of the catalogue.
// The declaring packages' fixture tests cannot check this themselves: they
// cannot import this package, which imports them.
func TestFixtureNamesAreCatalogueRules(t *testing.T) {
	root := filepath.Join("..", "..", "fixtures")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), "__") {
			return err
		}
		ids, _, ok := fixtures.Name(d.Name())
		if !ok {
			return nil // not a named fixture; the corpus's own test says so
		}
		n++
		for _, id := range ids {
			if _, known := Lookup(id); !known {
				t.Errorf("%s: %s is not in the rule catalogue", p, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no named fixtures under %s", root)
	}
}

// Every rule an erratum's other reading changes is in the catalogue, and
// what a report says of it points at the erratum and its flag: a sender
// that follows the trust page's example ("reply_to": null) learns of
// docs/errata.md and --errata null-as-absent.
func TestTextNamesTheErratum(t *testing.T) {
	for _, rd := range requirements.Readings() {
		if len(rd.Rules) == 0 && !rd.Forms {
			t.Errorf("reading %s names no rule it changes", rd.Name)
		}
		for _, id := range rd.Rules {
			if _, ok := Lookup(id); !ok {
				t.Errorf("reading %s changes %s, which is not in the catalogue", rd.Name, id)
			}
			if !slices.Contains(Text(id).Errata, report.ErratumReading{Erratum: rd.Erratum(), Flag: rd.Name}) {
				t.Errorf("Text(%s) = %+v does not point at %s", id, Text(id), rd.Name)
			}
		}
	}
	got := Text("ENV-NULL-OPTIONAL")
	if !strings.Contains(got.Clause, "MUST be omitted rather than null") || !strings.Contains(got.Source, "erratum 3") ||
		!slices.Equal(got.Errata, []report.ErratumReading{{Erratum: "erratum 3", Flag: "null-as-absent"}}) {
		t.Errorf("Text(ENV-NULL-OPTIONAL) = %+v", got)
	}
	if got := Text("ENV-CHANNEL-GRAMMAR"); got.Clause == "" || len(got.Errata) != 0 {
		t.Errorf("Text(ENV-CHANNEL-GRAMMAR) = %+v: want its clause and no erratum", got)
	}
}
