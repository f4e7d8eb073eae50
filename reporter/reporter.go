// Package reporter writes the results of aghcheck in the formats people and
// CI read. Three results, one Writer interface, one Registry per command:
//
//   - Validate: the documents of `aghcheck validate` (validate.Document, then
//     validate.Summary) as text, JSON, JUnit XML, GitHub annotations or
//     SARIF;
//   - Run: a live run (each harness.ScenarioResult as it ends, then the
//     harness.Report) as text, JSON, JUnit XML, one self-contained HTML
//     page, GitHub annotations or the self-certification record (JSON or
//     YAML);
//   - Rules: the rule catalogue of `aghcheck rules` as text, Markdown or JSON.
//
// The command line only picks a name from a registry; a new format is one
// entry in the registry of its command.
package reporter

import (
	"fmt"
	"io"
	"strconv"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// The writers and formats of each command's results.
type (
	DocumentWriter = Writer[*validate.Document, validate.Summary]
	RunWriter      = Writer[*report.ScenarioResult, *report.Report]
	RuleWriter     = Writer[*rules.Rule, []*rules.Rule]

	documentFormat = Format[*validate.Document, validate.Summary]
	runFormat      = Format[*report.ScenarioResult, *report.Report]
	ruleFormat     = Format[*rules.Rule, []*rules.Rule]
)

// Validate holds the formats of `aghcheck validate`.
var Validate = newRegistry(
	documentFormat{Name: "text", New: func(w io.Writer, o Options) DocumentWriter { return newText(w, o) }},
	documentFormat{Name: "json", New: func(w io.Writer, o Options) DocumentWriter { return &jsonReporter{w: w, o: o} }, JSON: true},
	documentFormat{Name: "junit", New: func(w io.Writer, o Options) DocumentWriter { return &junitReporter{w: w, o: o} }},
	documentFormat{Name: "github", New: func(w io.Writer, o Options) DocumentWriter { return &githubReporter{w: w, o: o} }},
	documentFormat{Name: "sarif", New: newSARIF, JSON: true},
)

// Run holds the formats of `aghcheck run`.
var Run = newRegistry(
	runFormat{Name: "text", New: newRunText},
	runFormat{Name: "json", New: whole[*report.ScenarioResult](writeRunJSON), JSON: true},
	runFormat{Name: "junit", New: whole[*report.ScenarioResult](writeRunJUnit)},
	runFormat{Name: "html", New: whole[*report.ScenarioResult](writeRunHTML)},
	runFormat{Name: "github", New: whole[*report.ScenarioResult](writeRunGitHub)},
	runFormat{Name: "record-json", New: recordFormat(encodeRecordJSON)},
	runFormat{Name: "record-yaml", New: recordFormat(encodeRecordYAML)},
)

// Rules holds the formats of `aghcheck rules`.
var Rules = newRegistry(
	ruleFormat{Name: "text", New: func(w io.Writer, _ Options) RuleWriter { return &rulesText{w: w} }},
	ruleFormat{Name: "markdown", Aliases: []string{"md"}, New: whole[*rules.Rule](writeRulesMarkdown)},
	ruleFormat{Name: "json", New: whole[*rules.Rule](writeRulesJSON), JSON: true},
)

// fileLocation renders file:line or file:line#index (index of a top-level array).
func fileLocation(d *validate.Document) string {
	s := d.Source
	if d.Line > 0 {
		s += ":" + strconv.Itoa(d.Line)
	}
	if d.Index >= 0 {
		s += "#" + strconv.Itoa(d.Index)
	}
	return s
}

// position is where finding i of d is in its file: its pointer's line and
// column when the validator located it, else the document's first line.
func position(d *validate.Document, i int) validate.Position {
	if i < len(d.At) && d.At[i].Line > 0 {
		return d.At[i]
	}
	return validate.Position{Line: d.Line}
}

// summaryLine is the closing line every format prints or embeds.
func summaryLine(s validate.Summary) string {
	return fmt.Sprintf("%s, %d valid, %d invalid, %s, %s",
		plural.Count(s.Documents, "document"), s.Valid, s.Invalid, plural.Count(s.Errors, "error"), plural.Count(s.Warnings, "warning"))
}

func counts(d *validate.Document, strict bool) (errs, warns int) {
	for _, f := range d.Findings {
		if f.Severity(strict) == rules.Error {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}
