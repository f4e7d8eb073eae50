package reporter

import (
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// Sections is a run's text report cut into sections, without colours, for
// a front end that reports a run piece by piece: package aghtest reports
// each scenario on its subtest, the passive validation on its own and the
// rest on the parent test, so that a failure reads the same wherever it is
// reported.
type Sections struct {
	rep     *report.Report
	verbose bool
}

// TextSections returns the sections of rep, whose strings go through the
// sanitiser as in every format; verbose shows the envelopes whole.
func TextSections(rep *report.Report, verbose bool) Sections {
	return Sections{rep: sanitize.Copy(rep, ruleType), verbose: verbose}
}

// Scenario is why the scenario id did not pass, as the text report details
// it ("" for a scenario the report does not hold).
func (s Sections) Scenario(id string) string {
	i := slices.IndexFunc(s.rep.Scenarios, func(sc *report.ScenarioResult) bool { return sc.ID == id })
	if i < 0 {
		return ""
	}
	var b strings.Builder
	writeScenario(&b, newPalette(false), s.rep.Scenarios[i], s.verbose)
	return strings.TrimRight(b.String(), "\n")
}

// Passive is the report's passive validation section.
func (s Sections) Passive() string {
	var b strings.Builder
	writePassive(&b, newPalette(false), s.rep)
	return strings.TrimRight(b.String(), "\n")
}

// Baseline is the report's --baseline section ("" without one).
func (s Sections) Baseline() string {
	var b strings.Builder
	writeRunBaseline(&b, newPalette(false), s.rep)
	return strings.Trim(b.String(), "\n")
}

// Verdict is the report's closing line.
func (s Sections) Verdict() string { return closingLine(newPalette(false), s.rep) }

// Tested names what was tested and by which aghcheck: "my-agent 1.2.3,
// by aghcheck v0.4.0".
func (s Sections) Tested() string { return tested(s.rep) }

func tested(rep *report.Report) string { return implementation(rep) + ", by " + checker(rep) }
