// Package catalogue is the one catalogue of every rule aghcheck checks. It
// names each declaring package's list here, explicitly, instead of letting
// packages add themselves when imported: whether a rule is in the catalogue
// then never depends on which packages a binary or test happens to import.
package catalogue

import (
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/olympus"
	"github.com/aghcheck/aghcheck/internal/redkey"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// Lists returns the rule lists of every declaring package, in the order the
// catalogue takes them (the catalogue sorts by profile and id, so the order
// matters only to the error a duplicate produces).
func Lists() [][]*rules.Rule {
	return [][]*rules.Rule{
		rules.InputRules(),
		agh.Rules(),
		trust.Rules(),
		olympus.Rules(),
		redkey.Rules(),
		requirements.Rules(),
	}
}

// std is built when the package initialises: a duplicate or incomplete rule
// is a programming error, and failing at start-up makes every test and
// every command report it rather than one that happens to look the rule up.
var std = func() *rules.Catalogue {
	c, err := rules.NewCatalogue(Lists()...)
	if err != nil {
		panic(err)
	}
	return c
}()

// Lookup returns the rule with the given id.
func Lookup(id string) (*rules.Rule, bool) { return std.Lookup(id) }

// All returns every rule ordered by profile, then id.
func All() []*rules.Rule { return std.All() }

// Text is what every report says of rule id (report.RuleText): its clause
// and source, and the other readings of an erratum that change its
// verdict, with their flags. Zero for an id the catalogue does not hold.
func Text(id string) report.RuleText {
	r, ok := Lookup(id)
	if !ok {
		return report.RuleText{}
	}
	return TextOf(r)
}

// TextOf is Text for a rule in hand (a finding's).
func TextOf(r *rules.Rule) report.RuleText {
	t := report.RuleText{Clause: r.Clause, Source: r.Source}
	for _, rd := range requirements.ReadingsFor(r.ID) {
		t.Errata = append(t.Errata, report.ErratumReading{Erratum: rd.Erratum(), Flag: rd.Name})
	}
	return t
}
