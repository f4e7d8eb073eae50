package reporter

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/report"
)

// One scenario in the text report: its details (writeScenario, failure),
// the evidence of its steps, and the suite tables.

// stepEvidence is, for each step that did not pass, what it expected
// beside what arrived instead, one line each, clipped to limit bytes
// (0: whole).
func stepEvidence(sc *report.ScenarioResult, limit int) []string {
	var out []string
	for _, st := range sc.Steps {
		if st.Outcome == report.Pass {
			continue
		}
		for _, e := range st.Expected {
			b, _ := json.Marshal(e)
			out = append(out, fmt.Sprintf("step %d %s: %s", st.Index, patternLabel(st.Kind), clipTo(string(b), limit)))
		}
		for _, a := range st.Arrived {
			out = append(out, fmt.Sprintf("step %d arrived:  %s", st.Index, clipTo(a, limit)))
		}
	}
	return out
}

// patternLabel says what a step's patterns are: what had to arrive, or,
// for a silence, what must not (so a failing silence never reads as an
// expectation met).
func patternLabel(stepKind string) string {
	if stepKind == "expect_silence" {
		return "must not arrive"
	}
	return "expected"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 140)
}

func (t *runText) failure(sc *report.ScenarioResult) {
	fmt.Fprintln(t.w)
	writeScenario(t.w, t.p, sc, t.o.Verbose)
}

// writeScenario prints why a scenario did not pass: its outcome and
// message, notes, each failing step's expectation beside what arrived,
// and the envelopes exchanged (whole when verbose).
func writeScenario(w io.Writer, p palette, sc *report.ScenarioResult, verbose bool) {
	fmt.Fprintf(w, "  %s %s  %s\n", p.outcome(sc.Outcome), sc.ID, sc.Title)
	where := sc.File
	if strings.HasPrefix(where, "embedded:") {
		// Built into the binary: say how to read it.
		where += " (aghcheck show " + sc.ID + ")"
	}
	fmt.Fprintf(w, "        %s %s, %s, requirements %s\n", p.faint.Sprint("in"), where, sc.Level, strings.Join(sc.Requirements, ", "))
	if len(sc.Readings) > 0 {
		fmt.Fprintf(w, "        %s %s (docs/errata.md)\n", p.faint.Sprint("judged under the reading"), strings.Join(sc.Readings, ", "))
	}
	if sc.Message != "" {
		fmt.Fprintf(w, "        %s\n", sc.Message)
	}
	for _, n := range sc.Notes {
		if n != sc.Message {
			fmt.Fprintf(w, "        %s %s\n", p.faint.Sprint("note:"), firstLine(n))
		}
	}
	limit, whole := evidenceClip, exchangedClip
	if verbose {
		limit, whole = 0, 0
	}
	for _, l := range stepEvidence(sc, limit) {
		fmt.Fprintf(w, "        %s\n", l)
	}
	for _, c := range requirementClauses(sc) {
		fmt.Fprintf(w, "        %s\n", p.faint.Sprint(c))
	}
	if len(sc.Exchanged) > 0 {
		fmt.Fprintln(w, "        exchanged:")
		for _, e := range sc.Exchanged {
			who := "IUT →"
			if e.Direction == "sent" {
				who = e.Peer + " →"
			}
			body := string(e.Envelope)
			if body == "" {
				body = e.Raw
			}
			fmt.Fprintf(w, "          %7s %-10s %s %s\n", "+"+runDur(e.At.D()), who, p.faint.Sprint(e.Subject), clipTo(body, whole))
			for _, f := range e.Findings {
				fmt.Fprintf(w, "                             %s %s\n", p.red.Sprint("!"), f)
			}
		}
	}
}

func (t *runText) tables(scs []*report.ScenarioResult) {
	w, p := t.w, t.p
	type row struct{ pass, fail, warn, skip, errs int }
	add := func(r *row, o report.Outcome) {
		switch o {
		case report.Pass:
			r.pass++
		case report.Fail:
			r.fail++
		case report.Warn:
			r.warn++
		case report.Skip:
			r.skip++
		case report.Error:
			r.errs++
		}
	}
	suites := map[string]*row{}
	levels := map[string]*row{}
	for _, sc := range scs {
		if suites[sc.Suite] == nil {
			suites[sc.Suite] = &row{}
		}
		if levels[sc.Level] == nil {
			levels[sc.Level] = &row{}
		}
		add(suites[sc.Suite], sc.Outcome)
		add(levels[sc.Level], sc.Outcome)
	}
	names := make([]string, 0, len(suites))
	for n := range suites {
		names = append(names, n)
	}
	sort.Strings(names)
	cell := func(n int, f func(a ...any) string) string {
		s := fmt.Sprintf("%6d", n)
		if n == 0 {
			return p.faint.Sprint(s)
		}
		return f(s)
	}
	print := func(label string, r *row) {
		fmt.Fprintf(w, "  %-18s%s%s%s%s%s\n", label, cell(r.pass, p.greenBold.Sprint), cell(r.fail, p.red.Sprint), cell(r.warn, p.yellow.Sprint), cell(r.skip, p.faint.Sprint), cell(r.errs, p.red.Sprint))
	}
	fmt.Fprintf(w, "\n  %-18s%6s%6s%6s%6s%6s\n", "suite", "pass", "fail", "warn", "skip", "error")
	for _, n := range names {
		print(n, suites[n])
	}
	fmt.Fprintln(w, "  level")
	for _, l := range []string{"MUST", "SHOULD", "MAY"} {
		if levels[l] != nil {
			print(l, levels[l])
		}
	}
}

// clipTo is clip, or s whole when n is 0.
func clipTo(s string, n int) string {
	if n == 0 {
		return s
	}
	return clip(s, n)
}

// clip shortens s to at most n bytes, never splitting a UTF-8 character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pre)
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
