package reporter

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// textReporter prints, per document, one status line, then one line per
// finding in the file:line: severity RULE at /ptr: message form editors and
// terminals link, each followed by the clause it enforces.
//
//	msgs.ndjson:3: invalid (agh, trust unverified): 1 error
//	msgs.ndjson:3: error ENV-CHANNEL-GRAMMAR at /channel: ... (expected X, found Y)
//	    MUST: A channel name MUST ... [AGH Envelope §Fields]
//
// In quiet mode the status lines and the findings of valid documents are
// left out: only what makes the run fail, and the summary.
type textReporter struct {
	w *bufio.Writer
	o Options
	p palette
}

func newText(w io.Writer, o Options) *textReporter {
	return &textReporter{w: bufio.NewWriterSize(w, 64<<10), o: o, p: newPalette(o.Color)}
}

// palette holds the colours of the text formats, on or off for one writer
// (the caller decides with Options.Color).
type palette struct {
	bold, green, greenBold, red, yellow, cyan, faint *color.Color
	on                                               bool
}

// paint is c.Sprint(s) (which is s itself with colours off), without
// formatting anything when they are off: a report can have thousands of
// findings.
func (p palette) paint(c *color.Color, s string) string {
	if !p.on {
		return s
	}
	return c.Sprint(s)
}

func newPalette(on bool) palette {
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return palette{bold: mk(color.Bold), green: mk(color.FgGreen), greenBold: mk(color.FgGreen, color.Bold),
		red: mk(color.FgRed, color.Bold), yellow: mk(color.FgYellow, color.Bold), cyan: mk(color.FgCyan), faint: mk(color.Faint), on: on}
}

// Skips is a valid document in quiet mode: nothing of it is printed.
func (t *textReporter) Skips(d *validate.Document) bool { return t.o.Quiet && d.Valid }

func (t *textReporter) Item(d *validate.Document) error {
	if t.Skips(d) {
		return nil
	}
	loc := fileLocation(d)
	if !t.o.Quiet {
		var about []string
		if d.Profile != "" {
			about = append(about, d.Profile)
		} else {
			about = append(about, "no profile")
		}
		if d.Trust != "" {
			about = append(about, "trust "+d.Trust)
		}
		errs, warns := counts(d, t.o.Strict)
		status := t.p.green.Sprint("valid")
		if !d.Valid {
			status = t.p.red.Sprint("invalid")
		}
		tail := ""
		if errs+warns > 0 {
			var n []string
			if errs > 0 {
				n = append(n, plural.Count(errs, "error"))
			}
			if warns > 0 {
				n = append(n, plural.Count(warns, "warning"))
			}
			tail = ": " + strings.Join(n, ", ")
		}
		fmt.Fprintf(t.w, "%s: %s (%s)%s\n", t.p.bold.Sprint(loc), status, strings.Join(about, ", "), tail)
	}
	loc = t.p.paint(t.p.bold, loc)
	for _, f := range d.Findings {
		label := t.p.paint(t.p.red, "error")
		if f.Severity(t.o.Strict) == rules.Warning {
			label = t.p.paint(t.p.yellow, "warning")
		}
		// loc: label RULE detail, then the clause indented, written out
		// piece by piece (fmt would box every piece).
		for _, s := range [...]string{loc, ": ", label, " ", t.p.paint(t.p.bold, f.Rule.ID), " ", f.Detail(),
			"\n    ", t.p.paint(t.p.faint, ruleClause(f.Rule)), "\n"} {
			t.w.WriteString(s)
		}
	}
	return nil
}

// Flush writes out the documents reported so far.
func (t *textReporter) Flush() error { return t.w.Flush() }

func (t *textReporter) Finish(s validate.Summary) error {
	line := summaryLine(s)
	if s.Invalid > 0 {
		line = t.p.red.Sprint(line)
	} else {
		line = t.p.green.Sprint(line)
	}
	fmt.Fprintln(t.w, line)
	return t.w.Flush()
}
