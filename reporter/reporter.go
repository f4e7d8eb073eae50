package reporter

import (
	"fmt"
	"io"
	"strconv"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/rundiff"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// The writers and formats of each command's results.
type (
	documentWriter = Writer[*validate.Document, validate.Summary]
	runWriter      = Writer[*report.ScenarioResult, *report.Report]
	ruleWriter     = Writer[*rules.Rule, []*rules.Rule]
	diffWriter     = Writer[rundiff.Change, *rundiff.Diff]

	documentFormat = Format[*validate.Document, validate.Summary]
	runFormat      = Format[*report.ScenarioResult, *report.Report]
	ruleFormat     = Format[*rules.Rule, []*rules.Rule]
	diffFormat     = Format[rundiff.Change, *rundiff.Diff]
	matrixFormat   = Format[rundiff.Row, *rundiff.Matrix]
)

// The formats of each command: --format names one of its registry.
var (
	// Validate holds the formats of `aghcheck validate`.
	Validate = newRegistry(
		documentFormat{Name: "text", New: func(w io.Writer, o Options) documentWriter { return newText(w, o) }},
		documentFormat{Name: "json", New: func(w io.Writer, o Options) documentWriter { return &jsonReporter{w: w, o: o} }, JSON: true},
		documentFormat{Name: "junit", New: func(w io.Writer, o Options) documentWriter { return &junitReporter{w: w, o: o} }},
		documentFormat{Name: "github", New: func(w io.Writer, o Options) documentWriter { return &githubReporter{w: w, o: o} }},
		documentFormat{Name: "sarif", New: newSARIF, JSON: true},
	)

	// Run holds the formats of `aghcheck run`.
	Run = newRegistry(
		runFormat{Name: "text", New: newRunText},
		runFormat{Name: "json", New: whole[*report.ScenarioResult](writeRunJSON), JSON: true},
		runFormat{Name: "junit", New: whole[*report.ScenarioResult](writeRunJUnit)},
		runFormat{Name: "html", New: whole[*report.ScenarioResult](writeRunHTML)},
		runFormat{Name: "github", New: whole[*report.ScenarioResult](writeRunGitHub)},
		runFormat{Name: "record-json", New: recordFormat(encodeRecordJSON)},
		runFormat{Name: "record-yaml", New: recordFormat(encodeRecordYAML)},
	)

	// Rules holds the formats of `aghcheck rules`.
	Rules = newRegistry(
		ruleFormat{Name: "text", New: func(w io.Writer, _ Options) ruleWriter { return &rulesText{w: w} }},
		ruleFormat{Name: "markdown", Aliases: []string{"md"}, New: whole[*rules.Rule](writeRulesMarkdown)},
		ruleFormat{Name: "json", New: whole[*rules.Rule](writeRulesJSON), JSON: true},
	)

	// Diff holds the formats of `aghcheck diff`.
	Diff = newRegistry(
		diffFormat{Name: "text", New: func(w io.Writer, o Options) diffWriter {
			return finishOnly[rundiff.Change, *rundiff.Diff](func(d *rundiff.Diff) error { return writeDiffText(w, newPalette(o.Color), d) })
		}},
		diffFormat{Name: "json", New: whole[rundiff.Change](writeDiffJSON), JSON: true},
		diffFormat{Name: "markdown", Aliases: []string{"md"}, New: whole[rundiff.Change](writeDiffMarkdown)},
	)

	// Matrix holds the formats of `aghcheck diff --matrix`.
	Matrix = newRegistry(
		matrixFormat{Name: "text", New: whole[rundiff.Row](writeMatrixText)},
		matrixFormat{Name: "json", New: whole[rundiff.Row](writeMatrixJSON), JSON: true},
		matrixFormat{Name: "markdown", Aliases: []string{"md"}, New: whole[rundiff.Row](writeMatrixMarkdown)},
	)
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
