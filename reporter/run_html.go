package reporter

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
)

// The HTML report is one self-contained file (inline CSS and a few lines of
// script, no fonts, nothing fetched): what a vendor publishes next to its
// certificate. It is built from a view of the report, so that the template
// only lays it out.

//go:embed run.html.tmpl
var runHTMLSource string

// runHTMLTemplate is parsed on first use, not at start-up: every command
// of the binary (aghcheck validate of one envelope included) paid for it.
var runHTMLTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("run").Funcs(template.FuncMap{
		"dur":         runDur,
		"upper":       func(o report.Outcome) string { return strings.ToUpper(string(o)) },
		"clipAt":      func() string { return thousands(htmlClip) },
		"bytes":       thousands,
		"plural":      plural.Count,
		"gaps":        gapGroups,
		"add":         func(a, b int) int { return a + b },
		"clause":      clauseLine,
		"findingText": findingText,
	}).Parse(runHTMLSource))
})

// thousands renders n with thousands separators (1,048,576).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// htmlClip is how much of a pretty-printed envelope the report shows.
const htmlClip = 4096

type htmlView struct {
	Rep      *report.Report
	Command  string
	Name     string // the IUT's display name
	Started  string
	Counts   []htmlCount
	Grid     []htmlRow
	Coverage htmlCoverage
	Reqs     []htmlReq
	Readings string // readingsText: the other readings of errata applied
	Passive  []htmlEntry
	Details  []htmlScenario
	Skipped  []*report.ScenarioResult
	// NotSelected counts the scenarios --run left out: one line, not a row
	// each.
	NotSelected int
	Killers     []htmlKiller
	// Open shows the details expanded; a long list starts collapsed (the
	// grid's links and "expand all" open them).
	Open bool
}

// htmlOpenDetails is how many scenario details the page shows expanded.
const htmlOpenDetails = 12

type htmlCount struct {
	Outcome report.Outcome
	N       int
}

// htmlRow is one suite of the grid: a cell per scenario.
type htmlRow struct {
	Suite  string
	Counts string
	Cells  []htmlCell
}

type htmlCell struct {
	Label   string // the id without its suite prefix
	Outcome report.Outcome
	Anchor  string // "" when the scenario has no details (it passed)
	Tip     string
}

type htmlCoverage struct {
	Tested, Total, Percent int
	MustTested, MustTotal  int
}

type htmlReq struct {
	report.RequirementResult
	Clause    string
	Scenarios []htmlLink
}

// htmlKiller is a scenario that killed the IUT, linked to what the page
// says of it.
type htmlKiller struct {
	report.Killer
	Anchor string
}

// htmlLink names a scenario, with the anchor of its details if it has any.
type htmlLink struct{ ID, Anchor string }

type htmlScenario struct {
	*report.ScenarioResult
	Anchor    string
	Notes     []string // those that do not repeat the message
	Steps     []htmlStep
	Exchanged []htmlEntry
	Peers     []string
	// Clauses are the requirements the steps that did not pass check,
	// each with its clauseLine.
	Clauses []string
}

type htmlStep struct {
	report.StepResult
	Expected []string // pretty JSON, one per pattern
	Label    string   // what the patterns are (patternLabel)
}

type htmlEntry struct {
	At, From, To, Subject string
	About                 string // kind, id, status: what the envelope is
	Body                  string // pretty-printed, clipped
	Bytes                 int    // the whole envelope's size
	Clipped               bool
	Findings              []string
}

func anchor(id string) string { return "sc-" + id }

// notSelectedAnchor is the line that sums up the scenarios --run left out.
const notSelectedAnchor = "not-selected"

// target is where a link to sc goes: its details, its row among the
// skipped, or the line of the scenarios not selected; "" for a pass,
// which has nothing more to show.
func target(sc *report.ScenarioResult) string {
	switch {
	case sc.Outcome == report.Pass:
		return ""
	case sc.Outcome == report.Skip && sc.Message == report.NotSelected:
		return notSelectedAnchor
	}
	return anchor(sc.ID)
}

// writeRunHTML writes rep as one HTML page.
func writeRunHTML(w io.Writer, rep *report.Report) error {
	v := htmlView{Rep: rep, Command: iut.Join(rep.IUT.Command), Started: rep.Started.UTC().Format("2006-01-02 15:04:05 UTC")}
	if dn, ok := rep.IUT.Card["display_name"].(string); ok {
		v.Name = dn
	}
	s := rep.Summary
	v.Counts = []htmlCount{{report.Pass, s.Pass}, {report.Fail, s.Fail}, {report.Warn, s.Warn}, {report.Skip, s.Skip}, {report.Error, s.Error}}
	v.Grid = htmlGrid(rep.Scenarios)
	targets := map[string]string{}
	for _, sc := range rep.Scenarios {
		targets[sc.ID] = target(sc)
	}
	v.Reqs, v.Coverage = htmlRequirements(rep.Requirements, targets)
	v.Readings = readingsText(rep)
	for _, k := range rep.IUT.Killers {
		v.Killers = append(v.Killers, htmlKiller{Killer: k, Anchor: targets[k.Scenario]})
	}
	for _, e := range rep.Passive.Samples {
		v.Passive = append(v.Passive, htmlExchanged(e, rep.IUT.PeerID, nil))
	}
	for _, sc := range rep.Scenarios {
		switch sc.Outcome {
		case report.Pass:
		case report.Skip:
			if sc.Message == report.NotSelected {
				v.NotSelected++
			} else {
				v.Skipped = append(v.Skipped, sc)
			}
		default:
			v.Details = append(v.Details, htmlDetails(sc, rep.IUT.PeerID))
		}
	}
	v.Open = len(v.Details) <= htmlOpenDetails
	var b bytes.Buffer
	if err := runHTMLTemplate().Execute(&b, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func htmlGrid(scs []*report.ScenarioResult) []htmlRow {
	suites, groups := groupInOrder(scs, func(sc *report.ScenarioResult) string { return sc.Suite })
	rows := make([]htmlRow, len(suites))
	for i, suite := range suites {
		rows[i] = htmlRow{Suite: suite}
		for _, sc := range groups[i] {
			rows[i].Cells = append(rows[i].Cells, gridCell(sc))
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Suite < rows[j].Suite })
	for i := range rows {
		n := map[report.Outcome]int{}
		for _, c := range rows[i].Cells {
			n[c.Outcome]++
		}
		rows[i].Counts = fmt.Sprintf("%d/%d pass", n[report.Pass], len(rows[i].Cells))
	}
	return rows
}

// gridCell is one scenario's cell of the suites × scenarios grid.
func gridCell(sc *report.ScenarioResult) htmlCell {
	label := sc.ID
	if _, rest, ok := strings.Cut(sc.ID, "."); ok {
		label = rest
	}
	c := htmlCell{Label: label, Outcome: sc.Outcome, Tip: sc.ID + ": " + strings.ToUpper(string(sc.Outcome))}
	if sc.Message != "" {
		c.Tip += " — " + firstLine(sc.Message)
	}
	c.Anchor = target(sc)
	return c
}

// htmlRequirements adds each requirement's clause from the catalogue and
// counts coverage: a requirement is tested when a scenario citing it ran
// (any outcome but skip).
func htmlRequirements(list []report.RequirementResult, targets map[string]string) ([]htmlReq, htmlCoverage) {
	var cov htmlCoverage
	out := make([]htmlReq, 0, len(list))
	for _, r := range list {
		h := htmlReq{RequirementResult: r}
		if rule, ok := catalogue.Lookup(r.ID); ok {
			h.Clause = rule.Clause + errataText(catalogue.TextOf(rule))
		}
		for _, id := range r.Scenarios {
			l := htmlLink{ID: id, Anchor: targets[id]}
			h.Scenarios = append(h.Scenarios, l)
		}
		cov.Total++
		tested := r.Outcome != report.Skip
		if tested {
			cov.Tested++
		}
		if r.Level == "MUST" {
			cov.MustTotal++
			if tested {
				cov.MustTested++
			}
		}
		out = append(out, h)
	}
	if cov.Total > 0 {
		cov.Percent = cov.Tested * 100 / cov.Total
	}
	return out, cov
}

func htmlDetails(sc *report.ScenarioResult, iutID string) htmlScenario {
	h := htmlScenario{ScenarioResult: sc, Anchor: anchor(sc.ID), Clauses: requirementClauses(sc)}
	for _, n := range sc.Notes {
		if n != sc.Message {
			h.Notes = append(h.Notes, n)
		}
	}
	for name, id := range sc.Peers {
		h.Peers = append(h.Peers, name+" = "+id)
	}
	sort.Strings(h.Peers)
	for _, st := range sc.Steps {
		if st.Outcome == report.Pass {
			continue
		}
		hs := htmlStep{StepResult: st, Label: patternLabel(st.Kind)}
		for _, e := range st.Expected {
			b, _ := json.MarshalIndent(e, "", "  ")
			hs.Expected = append(hs.Expected, string(b))
		}
		h.Steps = append(h.Steps, hs)
	}
	for _, e := range sc.Exchanged {
		h.Exchanged = append(h.Exchanged, htmlExchanged(e, iutID, sc.Peers))
	}
	return h
}

// htmlExchanged describes one message on the wire: who to whom, what it
// is, and its envelope pretty-printed (clipped past htmlClip bytes).
func htmlExchanged(e *report.ExchangedEntry, iutID string, peers map[string]string) htmlEntry {
	h := htmlEntry{At: "+" + runDur(e.At.D()), Subject: e.Subject, Findings: e.Findings}
	var env struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
		To   any    `json:"to"`
		Body struct {
			Status string `json:"status"`
			State  string `json:"state"`
			Reason string `json:"reason_code"`
		} `json:"body"`
	}
	if e.Direction == "sent" {
		h.From, h.To = e.Peer, "IUT"
	} else {
		h.From, h.To = "IUT", "channel"
	}
	if len(e.Envelope) > 0 {
		h.Bytes = len(e.Envelope)
		var pretty bytes.Buffer
		if json.Indent(&pretty, e.Envelope, "", "  ") == nil {
			h.Body = pretty.String()
		} else {
			h.Body = string(e.Envelope)
		}
		if json.Unmarshal(e.Envelope, &env) == nil {
			about := []string{env.Kind}
			for _, s := range []string{env.Body.Status, env.Body.State, env.Body.Reason} {
				if s != "" && s != about[len(about)-1] {
					about = append(about, s)
				}
			}
			h.About = strings.Join(about, " ")
			if env.ID != "" {
				h.About += " · " + env.ID
			}
			if to, ok := env.To.(string); ok && e.Direction == "received" {
				h.To = to
				for name, id := range peers {
					if id == to {
						h.To = name
					}
				}
			}
		}
	} else {
		h.Bytes = len(e.Raw)
		h.Body = e.Raw
		h.About = "not JSON"
	}
	if h.To == iutID && iutID != "" {
		h.To = "IUT"
	}
	if len(h.Body) > htmlClip {
		h.Body, h.Clipped = clip(h.Body, htmlClip), true
	}
	return h
}
