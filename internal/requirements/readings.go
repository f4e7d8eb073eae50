package requirements

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Capability discovery, which the Capability Discovery page leaves open to
// two readings (erratum 12, docs/errata.md): must a peer that implements
// neither brief nor rich discovery still attach the catalog when asked?
var (
	DiscRichDiscovery = discovery.Declare(rules.Rule{ID: "DISC-RICH-DISCOVERY", Severity: rules.Note,
		Clause: "A peer MAY implement rich capability discovery: asked with ext agh.include holding capability_catalog, its whois response then carries ext[\"agh.capability_catalog\"] with a capabilities array ([] when it has no catalog or the filter matches nothing). A peer with neither brief nor rich discovery answers without agh.* keys and breaks no MUST (erratum 12).",
		Source: capDiscoSrc + " §Interop rules, §Rich discovery through whois; erratum 12",
		Basis:  `Capability Discovery §Interop rules: a peer that implements "Neither brief nor rich" shows capabilities [] and "no agh.* extension keys appear", as discovery "is designed to degrade cleanly"; no level of the Conformance Levels matrix asks for capability discovery: a MAY`})
	DiscCatalogRequired = discovery.Declare(rules.Rule{ID: "DISC-CAPABILITY-CATALOG-REQUIRED",
		Clause: "Every peer asked for the capability catalog (ext agh.include holding capability_catalog) MUST answer with ext[\"agh.capability_catalog\"], capabilities [] when it has no catalog: the other reading of erratum 12, checked in place of DISC-RICH-DISCOVERY under --errata capability-catalog-required.",
		Source: capDiscoSrc + " §Response rules; erratum 12",
		Basis:  `Capability Discovery §Response rules: "When the responder has no local catalog, agh.capability_catalog.capabilities MUST be []", read as binding every responder, whatever it implements (erratum 12, other reading)`})
)

// Reading is the other reading of a documented erratum, as aghcheck run
// judges by it (--errata NAME, or every reading of a runtime with
// --compat). The embedded scenarios judge by the default reading; under
// this one:
//
//   - Swap maps a requirement the scenarios cite to the one this reading
//     cites and checks in its place, graded at that one's level (erratum
//     12: a MAY becomes a MUST);
//   - a scenario with a form of its own for the reading (its readings:
//     NAME in the suites, or, for a generated receiver case, the message
//     the reading makes valid) is played in that form instead
//     (scenario.Under).
//
// Every envelope reading of validate (agh.ErrataNames) is one too, under
// the same name, so that a name means one thing wherever it is given.
type Reading struct {
	Name        string
	Description string
	Swap        map[string]string
	// Envelope is the validator's reading of the same name (zero for a
	// reading about what a live peer must do, erratum 12): the harness
	// judges what the IUT sends by it, and a generated receiver case whose
	// message it makes valid is played as valid work.
	Envelope agh.Errata
	// Forms says the reading changes scenarios only through forms of
	// their own (readings: NAME in the suites), neither swapping a
	// requirement nor reading envelopes otherwise (erratum 13).
	Forms bool
	// Rules are the rules whose verdict the reading changes (an envelope
	// reading's, from agh; a live reading's, those it swaps): a finding on
	// one of them points at the reading (ReadingsFor).
	Rules []string
}

// Erratum is the erratum a reading belongs to, as its description names
// it ("erratum 3", "integral times").
func (r Reading) Erratum() string {
	e, _, _ := strings.Cut(r.Description, ":")
	return e
}

// live are the readings about what a live peer must do, which validate
// does not have.
var live = []Reading{
	{Name: "capability-catalog-required",
		Description: "erratum 12: a peer asked for the capability catalog must attach one ([] without a catalog), even a peer with neither brief nor rich capability discovery",
		Swap:        map[string]string{DiscRichDiscovery.ID: DiscCatalogRequired.ID}},
	{Name: "only-rejected-fails",
		Description: "erratum 13: only a rejected receipt fails work at its initiator, as the Work Lifecycle page's transition table lists it; an expired or unsupported refusal of the opening leaves the work open",
		Forms:       true},
}

// Readings lists every reading run knows, by name: the live ones and one
// per envelope reading of validate.
func Readings() []Reading {
	out := slices.Clone(live)
	for _, info := range agh.ErrataNames() {
		var e agh.Errata
		if err := e.Set(info.Name); err != nil {
			panic(err) // agh lists only names it sets
		}
		out = append(out, Reading{Name: info.Name, Description: info.Description, Envelope: e, Rules: info.Rules})
	}
	for i := range out {
		// The rules of live and of agh's errata are shared: append and
		// sort a copy of their own.
		out[i].Rules = slices.Clone(out[i].Rules)
		for from, to := range out[i].Swap {
			out[i].Rules = append(out[i].Rules, from, to)
		}
		slices.Sort(out[i].Rules)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ReadingsFor are the readings that change the verdict of rule id, by
// name: what a report of a finding on it points at. Each call gets a slice
// of its own, its readings shared: they are read, never changed.
func ReadingsFor(id string) []Reading {
	return slices.Clone(readingsByRule()[id])
}

// readingsByRule is ReadingsFor worked out once for every rule: a report
// asks it for every finding (aghcheck validate: thousands), and building
// every reading each time cost more than the finding's check.
var readingsByRule = sync.OnceValue(func() map[string][]Reading { return readingsFor(Readings()) })

// readingsFor files each reading of all under every rule it changes, in
// name order.
func readingsFor(all []Reading) map[string][]Reading {
	m := map[string][]Reading{}
	for _, r := range all {
		for _, id := range slices.Compact(slices.Clone(r.Rules)) {
			m[id] = append(m[id], r)
		}
	}
	return m
}

// LookupReading returns the reading called name.
func LookupReading(name string) (Reading, error) {
	name = strings.TrimSpace(name)
	var names []string
	for _, r := range Readings() {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return Reading{}, fmt.Errorf("unknown erratum reading %q (known: %s; docs/errata.md)", name, strings.Join(names, ", "))
}

// Select is the readings a run judges by: every one of the runtime's
// (agh.Compat: "" for none, "reference" for compozy/agh) and then each
// name given, once each, in that order. It is the one place aghcheck run
// and aghtest turn --compat and --errata into readings.
func Select(runtime string, names []string) ([]Reading, error) {
	preset, err := agh.Compat(runtime)
	if err != nil {
		return nil, err
	}
	var out []Reading
	add := func(name string) error {
		r, err := LookupReading(name)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(out, func(x Reading) bool { return x.Name == r.Name }) {
			out = append(out, r)
		}
		return nil
	}
	for _, name := range preset.Names() {
		if err := add(name); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		// --errata reference is the whole preset, as validate reads it.
		if e, err := agh.Compat(name); err == nil && strings.TrimSpace(name) != "" {
			for _, n := range e.Names() {
				if err := add(n); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := add(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Envelope is the validator's reading of every reading of rs at once.
func Envelope(rs []Reading) agh.Errata {
	var e agh.Errata
	for _, r := range rs {
		for _, name := range r.Envelope.Names() {
			_ = e.Set(name)
		}
	}
	return e
}
