package requirements

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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

// Reading is the other reading of an erratum about what a live peer must
// do. The embedded scenarios check the default reading's requirements;
// aghcheck run --errata NAME has them check Swap's instead, each graded at
// its own level, so a report names the reading it applied.
type Reading struct {
	Name        string
	Description string
	// Swap maps a requirement the scenarios cite to the one this reading
	// cites and checks in its place.
	Swap map[string]string
}

var readings = []Reading{
	{Name: "capability-catalog-required",
		Description: "erratum 12: a peer asked for the capability catalog must attach one ([] without a catalog), even a peer with neither brief nor rich capability discovery",
		Swap:        map[string]string{DiscRichDiscovery.ID: DiscCatalogRequired.ID}},
}

// Readings lists the live errata readings, by name.
func Readings() []Reading {
	out := slices.Clone(readings)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
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
	return Reading{}, fmt.Errorf("unknown erratum reading %q for a live run (known: %s; validate and monitor take the envelope readings, docs/errata.md)", name, strings.Join(names, ", "))
}
