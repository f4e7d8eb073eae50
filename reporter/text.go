package reporter

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"

	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/validate"
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
	w                                  *bufio.Writer
	o                                  Options
	loc, ok, bad, err, warn, dim, bold *color.Color
}

func newText(w io.Writer, o Options) *textReporter {
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if o.Color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return &textReporter{w: bufio.NewWriterSize(w, 64<<10), o: o,
		loc: mk(color.Bold), ok: mk(color.FgGreen), bad: mk(color.FgRed, color.Bold),
		err: mk(color.FgRed, color.Bold), warn: mk(color.FgYellow, color.Bold), dim: mk(color.Faint), bold: mk(color.Bold)}
}

func (t *textReporter) Document(d *validate.Document) error {
	if t.o.Quiet && d.Valid {
		return nil
	}
	loc := Location(d)
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
		status := t.ok.Sprint("valid")
		if !d.Valid {
			status = t.bad.Sprint("invalid")
		}
		tail := ""
		if errs+warns > 0 {
			var n []string
			if errs > 0 {
				n = append(n, plural(errs, "error"))
			}
			if warns > 0 {
				n = append(n, plural(warns, "warning"))
			}
			tail = ": " + strings.Join(n, ", ")
		}
		fmt.Fprintf(t.w, "%s: %s (%s)%s\n", t.loc.Sprint(loc), status, strings.Join(about, ", "), tail)
	}
	for _, f := range d.Findings {
		sev := f.Severity(t.o.Strict)
		label := t.err.Sprint("error")
		if sev == rules.Warning {
			label = t.warn.Sprint("warning")
		}
		fmt.Fprintf(t.w, "%s: %s %s %s\n", t.loc.Sprint(loc), label, t.bold.Sprint(f.Rule.ID), Detail(f))
		clause := f.Rule.Severity.Level() + ": " + f.Rule.Clause
		if f.Rule.Source != "" {
			clause += " [" + f.Rule.Source + "]"
		}
		fmt.Fprintf(t.w, "    %s\n", t.dim.Sprint(clause))
	}
	return nil
}

func (t *textReporter) Finish(s validate.Summary) error {
	line := SummaryLine(s)
	if s.Invalid > 0 {
		line = t.bad.Sprint(line)
	} else {
		line = t.ok.Sprint(line)
	}
	fmt.Fprintln(t.w, line)
	return t.w.Flush()
}
