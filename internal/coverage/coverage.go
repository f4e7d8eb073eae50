// Package coverage is the clause inventory: every requirement of the AGH
// pages aghcheck certifies against, each a rule of the one catalogue, with
// how aghcheck judges it. Whether a clause is checked offline or played live
// is computed here, from the engine and the embedded fixtures and suites, so
// the table cannot claim a check that does not exist; what is written by
// hand (inventory.yaml) is why a clause cannot be judged from outside, which
// judged clauses another one is judged through, and what passive judging of
// the IUT's whole traffic checks that no scenario plays.
package coverage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// Status is how a clause is judged.
type Status string

const (
	Both        Status = "both"          // offline and live
	Offline     Status = "offline"       // validate raises it on fixtures
	Live        Status = "live"          // scenarios play it
	Unjudgeable Status = "not judgeable" // from outside, with a reason
	// Passive is a clause no scenario plays but passive judging checks on
	// everything the IUT publishes in every run (and aghcheck monitor on a
	// live network).
	Passive Status = "passive"
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
	// Accepted are, for a MAY clause, the valid fixtures that use what it
	// permits, which the engine accepts.
	Accepted []string
	// Scenarios are the ids of the embedded scenarios (generated cases
	// included) that cite it.
	Scenarios []string
	// Reason is why the clause cannot be judged from outside ("" when it
	// can), or, with Through or Passive, how it is judged.
	Reason string
	// Through are the judged clauses this one is judged through: it has no
	// check of its own because those implement it (the JSON Schema's
	// constraints are the precise envelope rules).
	Through []*Entry
	// Passive says passive judging of the IUT's traffic checks it.
	Passive bool
	// Scripted says why only scenarios that script the IUT (through
	// aghcheck.control/v1) can judge the clause: for any other peer it
	// stays unexercised.
	Scripted string
	// Page is the protocol page that states the clause.
	Page string
}

// Status derives the entry's status from its evidence.
func (e Entry) Status() Status {
	off, live := e.judged()
	switch {
	case off && live:
		return Both
	case off:
		return Offline
	case live:
		return Live
	case e.Passive:
		return Passive
	case e.Reason != "":
		return Unjudgeable
	}
	return Open
}

// judged reports whether fixtures (off) or scenarios (live) judge the
// clause, its own or those of the clauses it is judged through.
func (e Entry) judged() (off, live bool) {
	off, live = len(e.Fixtures)+len(e.Accepted) > 0, len(e.Scenarios) > 0
	for _, t := range e.Through {
		o, l := t.judged()
		off, live = off || o, live || l
	}
	return off, live
}

// hasOwnCheck reports whether fixtures or scenarios of its own judge the
// clause, so no hand-written reason may stand for a check.
func (e Entry) hasOwnCheck() bool {
	return len(e.Fixtures)+len(e.Accepted)+len(e.Scenarios) > 0
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

// inventory is inventory.yaml: the pages, the unjudgeable reasons, the
// clauses judged through others, and those passive judging checks.
type inventory struct {
	Pages []struct {
		Name    string   `yaml:"name"`
		Aliases []string `yaml:"aliases"`
	} `yaml:"pages"`
	Unjudgeable map[string]string `yaml:"unjudgeable"`
	Through     map[string]struct {
		Rules []string `yaml:"rules"`
		Why   string   `yaml:"why"`
	} `yaml:"through"`
	Passive  map[string]string   `yaml:"passive"`
	Accepted map[string][]string `yaml:"accepted"`
	Scripted map[string]string   `yaml:"scripted"`
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
	unscripted := map[string]bool{} // cited by a scenario any peer plays
	for _, sc := range set.Scenarios {
		for _, id := range sc.Requirements {
			live[id] = append(live[id], sc.ID)
			unscripted[id] = unscripted[id] || sc.Requires.Profile != control.Name
		}
	}
	if err := checkScripted(inv.Scripted, live, unscripted); err != nil {
		return nil, err
	}
	var t Table
	rank := map[string]int{}
	var unplaced []string
	for _, r := range catalogue.All() {
		if !InScope(r) {
			continue
		}
		n, page := inv.page(r.Source)
		if page == "" {
			unplaced = append(unplaced, r.ID)
		}
		rank[r.ID] = n
		e := Entry{Rule: r, Fixtures: offline[r.ID], Scenarios: live[r.ID], Reason: reasons[r.ID], Page: page, Scripted: inv.Scripted[r.ID]}
		sort.Strings(e.Scenarios)
		t = append(t, e)
	}
	if len(unplaced) > 0 {
		return nil, fmt.Errorf("coverage: inventory.yaml: no page named in the source of %s", strings.Join(unplaced, ", "))
	}
	if err := t.accept(inv.Accepted, fixtures.FS()); err != nil {
		return nil, err
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
	// After sorting: entries point at the entries they are judged through.
	if err := t.judgedOtherwise(&inv); err != nil {
		return nil, err
	}
	return t, nil
}

// checkScripted holds the scripted entries to the suites: each names a
// clause that scenarios cite, all of them gated on aghcheck.control/v1,
// and says why.
func checkScripted(scripted map[string]string, live map[string][]string, unscripted map[string]bool) error {
	var bad []string
	for id, why := range scripted {
		switch {
		case strings.TrimSpace(why) == "":
			bad = append(bad, id+": empty reason")
		case len(live[id]) == 0:
			bad = append(bad, id+": no scenario cites it")
		case unscripted[id]:
			bad = append(bad, id+": a scenario without requires.profile "+control.Name+" cites it")
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("coverage: inventory.yaml: scripted: %s", strings.Join(bad, "; "))
	}
	return nil
}

// checkReasons keeps the hand-written data honest: a reason names a clause
// of the inventory, and a clause that is judged has none.
func checkReasons(t Table, reasons map[string]string) error {
	judged := map[string]bool{}
	known := map[string]bool{}
	for _, e := range t {
		known[e.Rule.ID] = true
		judged[e.Rule.ID] = e.hasOwnCheck()
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

// judgedOtherwise applies the inventory's through and passive entries,
// holding them to the same honesty as the reasons: each names a clause of
// the inventory that has no check of its own, a clause is judged through
// clauses that are themselves judged by fixtures or scenarios, and every
// entry says how.
func (t Table) judgedOtherwise(inv *inventory) error {
	byID := map[string]*Entry{}
	for i := range t {
		byID[t[i].Rule.ID] = &t[i]
	}
	var bad []string
	own := func(id, what, why string) *Entry {
		e := byID[id]
		switch {
		case e == nil:
			bad = append(bad, id+": not a clause of the inventory")
		case e.hasOwnCheck():
			bad = append(bad, id+": judged, yet listed under "+what)
		case e.Through != nil || e.Passive:
			bad = append(bad, id+": listed under through and passive")
		case e.Reason != "":
			bad = append(bad, id+": listed as not judgeable and under "+what)
		case strings.TrimSpace(why) == "":
			bad = append(bad, id+": no word on how, under "+what)
		default:
			return e
		}
		return nil
	}
	for id, th := range inv.Through {
		e := own(id, "through", th.Why)
		if e == nil {
			continue
		}
		e.Reason = th.Why
		for _, r := range th.Rules {
			via := byID[r]
			if via == nil || len(via.Fixtures)+len(via.Scenarios) == 0 {
				bad = append(bad, id+": through "+r+", which no fixture or scenario judges")
				continue
			}
			e.Through = append(e.Through, via)
		}
		if len(e.Through) == 0 {
			bad = append(bad, id+": through no clause")
		}
	}
	for id, how := range inv.Passive {
		if e := own(id, "passive", how); e != nil {
			e.Passive, e.Reason = true, how
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("coverage: inventory.yaml: %s", strings.Join(bad, "; "))
	}
	return nil
}

// offlineChecks runs every invalid fixture of the corpus through the engine
// and maps each rule to the fixtures named for it on which it is raised.
// A fixture under fixtures.ContextDir is judged in its directory's context.
func offlineChecks(corpus fs.FS) (map[string][]string, error) {
	checkers, err := contextCheckers()
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
		c := checkers[""]
		if rest, in := strings.CutPrefix(p, fixtures.ContextDir+"/"); in {
			dir, _, _ := strings.Cut(rest, "/")
			if c = checkers[dir]; c == nil {
				return fmt.Errorf("%s: no context %q in %s/contexts.yaml", p, dir, fixtures.ContextDir)
			}
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

// accept records the valid fixtures that show a MAY clause's permission,
// after checking that the engine accepts each (no error, no warning).
func (t Table) accept(accepted map[string][]string, corpus fs.FS) error {
	c, err := agh.NewChecker(agh.Options{FullSchema: true})
	if err != nil {
		return fmt.Errorf("coverage: %w", err)
	}
	var bad []string
	for id, files := range accepted {
		i := slices.IndexFunc(t, func(e Entry) bool { return e.Rule.ID == id })
		switch {
		case i < 0:
			bad = append(bad, id+": not a clause of the inventory")
			continue
		case t[i].Rule.Severity != rules.Note:
			bad = append(bad, id+": a "+t[i].Rule.Severity.Level()+" is judged by invalid fixtures, not accepted ones")
			continue
		}
		for _, f := range files {
			raw, err := fs.ReadFile(corpus, f)
			if err != nil {
				bad = append(bad, id+": "+err.Error())
				continue
			}
			if found := c.CheckBytes(raw).Findings; len(found) > 0 {
				bad = append(bad, fmt.Sprintf("%s: %s is not accepted: %s", id, f, found[0]))
				continue
			}
			t[i].Accepted = append(t[i].Accepted, f)
		}
		sort.Strings(t[i].Accepted)
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("coverage: inventory.yaml: accepted: %s", strings.Join(bad, "; "))
	}
	return nil
}

// contextCheckers builds a checker for each fixture context, and for the
// plain corpus under "".
func contextCheckers() (map[string]*agh.Checker, error) {
	ctxs, err := fixtures.Contexts()
	if err != nil {
		return nil, err
	}
	out := map[string]*agh.Checker{}
	build := func(name string, o agh.Options) error {
		c, err := agh.NewChecker(o)
		out[name] = c
		return err
	}
	if err := build("", agh.Options{FullSchema: true}); err != nil {
		return nil, err
	}
	for name, ctx := range ctxs {
		o, err := ContextOptions(ctx)
		if err == nil {
			err = build(name, o)
		}
		if err != nil {
			return nil, fmt.Errorf("context %s: %w", name, err)
		}
	}
	return out, nil
}

// ContextOptions are the engine options that judge a fixture in ctx (the
// full schema on, as for every fixture).
func ContextOptions(ctx fixtures.Context) (agh.Options, error) {
	o := agh.Options{FullSchema: true, Now: ctx.Now, RequireVerified: ctx.RequireVerified}
	for _, name := range ctx.Errata {
		if err := o.Errata.Set(name); err != nil {
			return o, err
		}
	}
	return o, nil
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
	Basis     string   `json:"level_from"`
	Clause    string   `json:"clause"`
	Status    Status   `json:"status"`
	Fixtures  []string `json:"fixtures,omitempty"`
	Accepted  []string `json:"accepted,omitempty"`
	Scenarios []string `json:"scenarios,omitempty"`
	Through   []string `json:"through,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Scripted  string   `json:"scripted,omitempty"`
}

// MarshalJSON writes the table as a list of entries.
func (t Table) MarshalJSON() ([]byte, error) {
	out := make([]jsonEntry, len(t))
	for i, e := range t {
		out[i] = jsonEntry{ID: e.Rule.ID, Page: e.Page, Level: e.Rule.Severity.Level(), Basis: e.Rule.Basis, Clause: e.Rule.Clause,
			Status: e.Status(), Fixtures: e.Fixtures, Accepted: e.Accepted, Scenarios: e.Scenarios, Through: e.throughIDs(), Reason: e.Reason, Scripted: e.Scripted}
	}
	return json.Marshal(out)
}

// throughIDs are the ids of the clauses e is judged through.
func (e Entry) throughIDs() []string {
	var out []string
	for _, t := range e.Through {
		out = append(out, t.Rule.ID)
	}
	return out
}
