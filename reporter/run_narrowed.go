package reporter

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
)

// A run narrowed by --run earns no claim: its text report prints what it
// played, and one line for what the narrowing left out (the scenarios, and
// the claims whose requirements they cite), rather than a claims table of
// requirements nobody asked about. -v prints the whole report.

// narrowed reports whether rep is printed as a narrowed run.
func (t *runText) narrowed(rep *report.Report) bool {
	return rep.Selection != "" && !t.o.Verbose
}

// played is rep's scenarios but those --run left out, when rep is printed
// as a narrowed run, with how many were left out.
func (t *runText) played(rep *report.Report) ([]*report.ScenarioResult, int) {
	if !t.narrowed(rep) {
		return rep.Scenarios, 0
	}
	var out []*report.ScenarioResult
	for _, sc := range rep.Scenarios {
		if sc.Outcome != report.Skip || sc.Message != report.NotSelected {
			out = append(out, sc)
		}
	}
	return out, len(rep.Scenarios) - len(out)
}

// narrowedSummary prints, for a narrowed run, the requirements what it
// played judged, and one line for the rest.
func (t *runText) narrowedSummary(rep *report.Report, leftOut int) {
	var judged []string
	for _, rr := range rep.Requirements {
		switch rr.Outcome {
		case report.Pass, report.Warn, report.Fail:
			judged = append(judged, rr.ID)
		}
	}
	list := "none"
	if len(judged) > 0 {
		named := judged
		if len(named) > 8 {
			named = named[:8]
		}
		list = strings.Join(named, ", ")
		if rest := len(judged) - len(named); rest > 0 {
			list += fmt.Sprintf(", … %d more", rest)
		}
	}
	fmt.Fprintf(t.w, "\nRequirements exercised: %s\n", t.p.faint.Sprint(list))
	fmt.Fprintf(t.w, "Left out by --run: %s, and the requirements of %s they cite %s\n", plural.Count(leftOut, "scenario"), plural.Count(len(rep.Claims), "claim"),
		t.p.faint.Sprint("(a narrowed run earns no claim; -v prints them)"))
}
