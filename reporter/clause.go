package reporter

import (
	"slices"
	"strings"
	"sync"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// clauseLine is the one line every report, validate's and run's, gives a
// rule a finding or a failing step names: its level and clause, where the
// pages state it, and each other reading of an erratum that changes its
// verdict with the flag that applies it, e.g.
//
//	MUST: reply_to, ... MUST be omitted rather than null ... [AGH Envelope §JSON schema; erratum 3]; erratum 3, read otherwise: --errata null-as-absent (docs/errata.md)
//
// so that a peer failing on a documented ambiguity learns of it where it
// fails. t is catalogue.Text's (report.RuleText carries it in the JSON).
func clauseLine(level string, t report.RuleText) string {
	if t.Clause == "" {
		return ""
	}
	s := level + ": " + t.Clause
	if t.Source != "" {
		s += " [" + t.Source + "]"
	}
	s += errataText(t)
	// One line: a newline would break the file:line: form editors parse.
	return strings.ReplaceAll(s, "\n", " ")
}

// ruleClause is clauseLine for a rule in hand (a finding's), worked out
// once per rule: a text report gives it under every finding.
func ruleClause(r *rules.Rule) string {
	k := clauseKey{r.ID, r.Severity, r.Clause, r.Source}
	if s, ok := clauses.Load(k); ok {
		return s.(string)
	}
	s := clauseLine(r.Severity.Level(), catalogue.TextOf(r))
	clauses.Store(k, s)
	return s
}

// clauses caches ruleClause by what its line is made of (the readings are
// the rule id's), not by the pointer: a rule written out again, as a test
// does, gets its own line.
var clauses sync.Map // clauseKey → string

type clauseKey struct {
	id       string
	severity rules.Severity
	clause   string
	source   string
}

// requirementClauses are the ClauseLines of the requirements the steps of
// sc that did not pass check, each once, in step order: what a report of a
// failing scenario points its reader at.
func requirementClauses(sc *report.ScenarioResult) []string {
	var out, seen []string
	for _, st := range sc.Steps {
		if st.Outcome == report.Pass || st.Outcome == report.Skip {
			continue
		}
		for _, id := range st.Checks {
			r, ok := catalogue.Lookup(id)
			if !ok || slices.Contains(seen, id) {
				continue
			}
			seen = append(seen, id)
			out = append(out, id+" "+clauseLine(r.Severity.Level(), catalogue.TextOf(r)))
		}
	}
	return out
}

// errataText points at the other readings of t's rule: "; erratum 3, read
// otherwise: --errata null-as-absent (docs/errata.md)", one per reading.
func errataText(t report.RuleText) string {
	var b strings.Builder
	for _, e := range t.Errata {
		b.WriteString("; " + e.Erratum + ", read otherwise: --errata " + e.Flag + " (docs/errata.md)")
	}
	return b.String()
}

// findingText is what the report says of a passive finding's rule: what
// the run recorded (the JSON carries it), else the catalogue's.
func findingText(f report.PassiveFinding) report.RuleText {
	if f.Clause != "" {
		return f.RuleText
	}
	return catalogue.Text(f.Rule)
}
