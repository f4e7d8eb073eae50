// Package coverage is the clause inventory: every requirement of the AGH
// pages aghcheck certifies against, each a rule of the one catalogue, with
// how aghcheck judges it. Whether a clause is checked offline or played live
// is computed here, from the engine and the embedded fixtures and suites, so
// the table cannot claim a check that does not exist; the one thing written
// by hand is why a clause cannot be judged from outside (inventory.yaml).
package coverage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/agh"
	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/harness/scenario"
	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/suites"
)

// Status is how a clause is judged.
type Status string

const (
	Both        Status = "both"          // offline and live
	Offline     Status = "offline"       // validate raises it on fixtures
	Live        Status = "live"          // scenarios play it
	Unjudgeable Status = "not judgeable" // from outside, with a reason
	// Open is a clause nothing judges yet and nobody has said why: a gap
	// that a scenario or a fixture should close.
	Open Status = "open"
)

// Entry is one clause: its rule and the evidence behind its status.
type Entry struct {
	Rule *rules.Rule
	// Fixtures are the invalid fixtures, named for this rule, on which
	// the engine raises it.
	Fixtures []string
	// Scenarios are the ids of the embedded scenarios (generated cases
	// included) that cite it.
	Scenarios []string
	// Reason is why the clause cannot be judged from outside ("" when it can).
	Reason string
	// Page is the protocol page that states the clause.
	Page string
}

// Status derives the entry's status from its evidence.
func (e Entry) Status() Status {
	switch {
	case len(e.Fixtures) > 0 && len(e.Scenarios) > 0:
		return Both
	case len(e.Fixtures) > 0:
		return Offline
	case len(e.Scenarios) > 0:
		return Live
	case e.Reason != "":
		return Unjudgeable
	}
	return Open
}

// Table is the inventory, ordered by page (in reading order), then rule id.
type Table []Entry

// InScope reports whether a catalogue rule is a clause of the AGH pages:
// the agh profiles, and the input rules the AGH pages state.
func InScope(r *rules.Rule) bool {
	if r.Profile == "agh" || strings.HasPrefix(r.Profile, "agh-") {
		return true
	}
	return r.Profile == "input" && strings.Contains(r.Source, "AGH")
}

//go:embed inventory.yaml
var inventoryYAML []byte

// inventory is inventory.yaml: the pages and the unjudgeable reasons.
type inventory struct {
	Pages []struct {
		Name    string   `yaml:"name"`
		Aliases []string `yaml:"aliases"`
	} `yaml:"pages"`
	Unjudgeable map[string]string `yaml:"unjudgeable"`
}

// page returns the page named first in source and its reading-order rank
// (len(Pages) and "" when none is named).
func (inv *inventory) page(source string) (int, string) {
	rank, name, at := len(inv.Pages), "", len(source)+1
	for i, p := range inv.Pages {
		for _, a := range p.Aliases {
			if j := strings.Index(source, a); j >= 0 && j < at {
				rank, name, at = i, p.Name, j
			}
		}
	}
	return rank, name
}

// Build computes the inventory from the catalogue, the embedded fixture
// corpus (run through the engine) and the embedded suites.
func Build() (Table, error) {
	var inv inventory
	if err := yaml.Unmarshal(inventoryYAML, &inv); err != nil {
		return nil, fmt.Errorf("coverage: inventory.yaml: %w", err)
	}
	reasons := inv.Unjudgeable
	offline, err := offlineChecks(fixtures.FS())
	if err != nil {
		return nil, err
	}
	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		return nil, fmt.Errorf("coverage: embedded suites: %w", err)
	}
	live := map[string][]string{}
	for _, sc := range set.Scenarios {
		for _, id := range sc.Requirements {
			live[id] = append(live[id], sc.ID)
		}
	}
	var t Table
	rank := map[string]int{}
	var unplaced []string
	for _, r := range rules.All() {
		if !InScope(r) {
			continue
		}
		n, page := inv.page(r.Source)
		if page == "" {
			unplaced = append(unplaced, r.ID)
		}
		rank[r.ID] = n
		e := Entry{Rule: r, Fixtures: offline[r.ID], Scenarios: live[r.ID], Reason: reasons[r.ID], Page: page}
		sort.Strings(e.Scenarios)
		t = append(t, e)
	}
	if len(unplaced) > 0 {
		return nil, fmt.Errorf("coverage: inventory.yaml: no page named in the source of %s", strings.Join(unplaced, ", "))
	}
	if err := checkReasons(t, reasons); err != nil {
		return nil, err
	}
	sort.SliceStable(t, func(i, j int) bool {
		if ri, rj := rank[t[i].Rule.ID], rank[t[j].Rule.ID]; ri != rj {
			return ri < rj
		}
		return t[i].Rule.ID < t[j].Rule.ID
	})
	return t, nil
}

// checkReasons keeps the hand-written data honest: a reason names a clause
// of the inventory, and a clause that is judged has none.
func checkReasons(t Table, reasons map[string]string) error {
	judged := map[string]bool{}
	known := map[string]bool{}
	for _, e := range t {
		known[e.Rule.ID] = true
		judged[e.Rule.ID] = len(e.Fixtures)+len(e.Scenarios) > 0
	}
	var bad []string
	for id, reason := range reasons {
		switch {
		case !known[id]:
			bad = append(bad, id+": not a clause of the inventory")
		case strings.TrimSpace(reason) == "":
			bad = append(bad, id+": empty reason")
		case judged[id]:
			bad = append(bad, id+": judged, yet listed as not judgeable")
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("coverage: inventory.yaml: unjudgeable: %s", strings.Join(bad, "; "))
	}
	return nil
}

// offlineChecks runs every invalid fixture of the corpus through the engine
// and maps each rule to the fixtures named for it on which it is raised.
func offlineChecks(corpus fs.FS) (map[string][]string, error) {
	c, err := agh.NewChecker(agh.Options{FullSchema: true})
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	out := map[string][]string{}
	err = fs.WalkDir(corpus, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".json" {
			return err
		}
		ids, _, ok := fixtures.Name(p)
		if !ok {
			return nil
		}
		raw, err := fs.ReadFile(corpus, p)
		if err != nil {
			return err
		}
		raised := map[string]bool{}
		for _, f := range c.CheckBytes(raw).Findings {
			raised[f.Rule.ID] = true
		}
		for _, id := range ids {
			if raised[id] {
				out[id] = append(out[id], p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("coverage: fixtures: %w", err)
	}
	return out, nil
}

// Counts is how many clauses have each status.
func (t Table) Counts() map[Status]int {
	n := map[Status]int{}
	for _, e := range t {
		n[e.Status()]++
	}
	return n
}

// jsonEntry is an entry as tools read it.
type jsonEntry struct {
	ID        string   `json:"id"`
	Page      string   `json:"page"`
	Level     string   `json:"level"`
	Clause    string   `json:"clause"`
	Status    Status   `json:"status"`
	Fixtures  []string `json:"fixtures,omitempty"`
	Scenarios []string `json:"scenarios,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

// MarshalJSON writes the table as a list of entries.
func (t Table) MarshalJSON() ([]byte, error) {
	out := make([]jsonEntry, len(t))
	for i, e := range t {
		out[i] = jsonEntry{ID: e.Rule.ID, Page: e.Page, Level: e.Rule.Severity.Level(), Clause: e.Rule.Clause,
			Status: e.Status(), Fixtures: e.Fixtures, Scenarios: e.Scenarios, Reason: e.Reason}
	}
	return json.Marshal(out)
}
