package reporter

import (
	"encoding/json"
	"io"

	"github.com/aghcheck/aghcheck/internal/report"
)

// writeRunJSON writes the full result model of a run: summary, claims,
// requirements, passive validation and every scenario with its steps and
// exchanged envelopes.
func writeRunJSON(w io.Writer, rep *report.Report) error {
	// The lists are always lists (schemas/run-report.schema.json), even
	// for a run that never got as far as filling them.
	r := *rep
	if r.Claims == nil {
		r.Claims = []report.ClaimResult{}
	}
	if r.Requirements == nil {
		r.Requirements = []report.RequirementResult{}
	}
	if r.Scenarios == nil {
		r.Scenarios = []*report.ScenarioResult{}
	}
	if r.Passive.Outcome == "" {
		// Nothing was judged (the IUT never joined): not a verdict.
		r.Passive.Outcome = report.Skip
	}
	rep = &r
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}
