// Package reporter writes validation results in the formats people and CI
// read: coloured text, JSON, JUnit XML and GitHub workflow annotations. All
// writers share one result model (validate.Document and validate.Summary).
package reporter

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/validate"
)

// Formats lists the values of --format, the default first.
var Formats = []string{"text", "json", "junit", "github"}

// Options shape every writer.
type Options struct {
	// Strict reports every finding as an error (--strict).
	Strict bool
	// Quiet prints only the findings of invalid documents and the summary.
	Quiet bool
	// Color enables ANSI colours in text output (the caller decides: a
	// terminal, and NO_COLOR unset).
	Color bool
}

// Reporter receives documents in input order, then the summary once.
type Reporter interface {
	Document(d *validate.Document) error
	Finish(s validate.Summary) error
}

// New returns the writer for format.
func New(format string, w io.Writer, o Options) (Reporter, error) {
	switch format {
	case "text", "":
		return newText(w, o), nil
	case "json":
		return &jsonReporter{w: w, o: o}, nil
	case "junit":
		return &junitReporter{w: w, o: o}, nil
	case "github":
		return &githubReporter{w: w, o: o}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// Location renders file:line or file:line#index (index of a top-level array).
func Location(d *validate.Document) string {
	s := d.Source
	if d.Line > 0 {
		s += ":" + strconv.Itoa(d.Line)
	}
	if d.Index >= 0 {
		s += "#" + strconv.Itoa(d.Index)
	}
	return s
}

// Detail renders a finding's message part: "at /ptr: message (expected X, found Y)".
func Detail(f rules.Finding) string {
	var b strings.Builder
	if f.Pointer != "" {
		b.WriteString("at ")
		b.WriteString(f.Pointer)
	}
	if f.Message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(f.Message)
	}
	if f.Expected != "" || f.Found != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "(expected %s, found %s)", orNone(f.Expected), orNone(f.Found))
	}
	if b.Len() == 0 {
		b.WriteString(f.Rule.Clause)
	}
	// One finding, one line: a newline in a message would break the
	// file:line: form that editors and CI parse.
	return strings.ReplaceAll(b.String(), "\n", " ")
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// SummaryLine is the closing line every format prints or embeds.
func SummaryLine(s validate.Summary) string {
	return fmt.Sprintf("%s, %d valid, %d invalid, %s, %s",
		Plural(s.Documents, "document"), s.Valid, s.Invalid, Plural(s.Errors, "error"), Plural(s.Warnings, "warning"))
}

// Plural renders n with its noun, plural unless n is 1 ("1 error",
// "2 errors").
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
