package reporter

import (
	"strings"

	"github.com/aghcheck/aghcheck/internal/report"
)

// The sections of the run's text report, without colours, for other front
// ends of a run (package aghtest reports through testing.T with them), so
// that a failure reads the same wherever it is reported.

// ScenarioText is why sc did not pass, as the text report details it;
// verbose shows the envelopes whole.
func ScenarioText(sc *report.ScenarioResult, verbose bool) string {
	var b strings.Builder
	writeScenario(&b, newPalette(false), sc, verbose)
	return strings.TrimRight(b.String(), "\n")
}

// PassiveText is the report's passive validation section.
func PassiveText(rep *report.Report) string {
	var b strings.Builder
	writePassive(&b, newPalette(false), rep)
	return strings.TrimRight(b.String(), "\n")
}

// BaselineText is the report's --baseline section ("" without one).
func BaselineText(rep *report.Report) string {
	var b strings.Builder
	writeRunBaseline(&b, newPalette(false), rep)
	return strings.Trim(b.String(), "\n")
}

// VerdictText is the report's closing line.
func VerdictText(rep *report.Report) string { return closingLine(newPalette(false), rep) }

// TestedText names what was tested and by which aghcheck: "my-agent 1.2.3,
// by aghcheck v0.4.0".
func TestedText(rep *report.Report) string { return implementation(rep) + ", by " + checker(rep) }
