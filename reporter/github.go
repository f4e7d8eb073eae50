package reporter

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
	"github.com/aghcheck/aghcheck/internal/workflowcmd"
)

// githubReporter prints GitHub Actions workflow commands, which the runner
// turns into annotations on the files and lines of a pull request:
//
//	::error file=msgs.ndjson,line=3,title=ENV-CHANNEL-GRAMMAR::at /channel: ...
//
// Warnings become ::warning (or ::error under --strict). With --quiet the
// findings of valid documents (their warnings) are left out, as in the other
// formats; the summary line closes the log.
type githubReporter struct {
	w  io.Writer
	bw *bufio.Writer
	o  Options
}

func (r *githubReporter) start() {
	if r.bw == nil {
		r.bw = bufio.NewWriterSize(r.w, 64<<10)
	}
}

// Flush writes out the annotations so far.
func (r *githubReporter) Flush() error {
	r.start()
	return r.bw.Flush()
}

func (r *githubReporter) Item(d *validate.Document) error {
	r.start()
	if r.o.Quiet && d.Valid {
		return nil
	}
	for i, f := range d.Findings {
		cmd := "error"
		if f.Severity(r.o.Strict) == rules.Warning {
			cmd = "warning"
		}
		var props []string
		if d.Source != "<stdin>" {
			props = append(props, "file="+workflowcmd.EscapeProperty(d.Source))
			if at := position(d, i); at.Line > 0 {
				props = append(props, "line="+strconv.Itoa(at.Line))
				if at.Column > 0 {
					props = append(props, "col="+strconv.Itoa(at.Column))
				}
			}
		}
		title := f.Rule.ID
		if d.Index >= 0 {
			title += " [" + strconv.Itoa(d.Index) + "]"
		}
		props = append(props, "title="+workflowcmd.EscapeProperty(title))
		msg := f.Detail() + "\n" + ruleClause(f.Rule)
		if d.Source == "<stdin>" {
			msg = fileLocation(d) + ": " + msg
		}
		fmt.Fprintf(r.bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), workflowcmd.EscapeData(msg))
	}
	return nil
}

func (r *githubReporter) Finish(s validate.Summary) error {
	r.start()
	for _, e := range s.InputErrors {
		props := "title=input error"
		if e.Source != "" {
			props = "file=" + workflowcmd.EscapeProperty(e.Source) + "," + props
		}
		fmt.Fprintf(r.bw, "::error %s::%s\n", props, workflowcmd.EscapeData(e.Message))
	}
	fmt.Fprintln(r.bw, summaryLine(s))
	return r.bw.Flush()
}
