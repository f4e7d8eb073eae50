package reporter

import (
	"fmt"
	"io"

	"github.com/aghcheck/aghcheck/harness"
)

// baselineRow is one --baseline entry as the run judged it.
type baselineRow struct {
	id      string
	mark    *harness.BaselineMark
	message string
}

// baselineRows lists the entries the run judged: scenarios, then passive
// findings. A passive entry whose rule is no longer broken has no finding
// to hang on: it is named in the summary's stale list only.
func baselineRows(rep *harness.Report) []baselineRow {
	var rows []baselineRow
	for _, sc := range rep.Scenarios {
		if sc.Baseline != nil {
			rows = append(rows, baselineRow{sc.ID, sc.Baseline, sc.Message})
		}
	}
	for _, f := range rep.Passive.Findings {
		if f.Baseline != nil {
			rows = append(rows, baselineRow{"passive:" + f.Rule, f.Baseline, f.Example})
		}
	}
	return rows
}

// staleWhy says why an entry no longer holds (m is nil for a passive rule
// no longer broken).
func staleWhy(m *harness.BaselineMark) string {
	if m == nil {
		return "the rule is no longer broken: remove the entry"
	}
	return fmt.Sprintf("recorded %s, now %s: update or remove the entry (%s)", m.Recorded, m.Actual, m.Reason)
}

// writeRunBaseline prints the --baseline section of a text report.
func writeRunBaseline(w io.Writer, p palette, rep *harness.Report) {
	b := rep.Baseline
	if b == nil {
		return
	}
	fmt.Fprintf(w, "\nBaseline %s: %s, %d expected-fail, %d stale, %d not judged\n",
		b.File, Plural(b.Entries, "entry"), b.Expected, len(b.Stale), len(b.Unjudged))
	marked := map[string]bool{}
	for _, r := range baselineRows(rep) {
		marked[r.id] = true
		switch r.mark.Status {
		case harness.BaselineExpected:
			fmt.Fprintf(w, "  %s %-46s %s  %s\n", p.outcome(harness.ExpectedFail), r.id, r.mark.Reason, p.faint.Sprint(firstLine(r.message)))
		case harness.BaselineStale:
			fmt.Fprintf(w, "  %s %-46s %s\n", p.red.Sprint("STALE"), r.id, staleWhy(r.mark))
		default:
			fmt.Fprintf(w, "  %s %-46s %s\n", p.faint.Sprint("-    "), r.id, p.faint.Sprint(fmt.Sprintf("not judged (%s)", r.mark.Actual)))
		}
	}
	for _, id := range b.Stale {
		if !marked[id] {
			fmt.Fprintf(w, "  %s %-46s %s\n", p.red.Sprint("STALE"), id, staleWhy(nil))
		}
	}
}

// baselineVerdict is what the final line adds for a run with a baseline.
func baselineVerdict(rep *harness.Report) string {
	if rep.Baseline == nil {
		return ""
	}
	s := rep.Summary
	return fmt.Sprintf(", %d expected-fail, %d stale (baseline %s)", s.ExpectedFail, s.Stale, rep.Baseline.File)
}

// junitBaseline adds a testsuite "baseline" with one failing testcase per
// stale entry: the run fails on them although their scenarios passed.
func junitBaseline(rep *harness.Report, get func(string) *JUnitSuite) {
	if rep.Baseline == nil || len(rep.Baseline.Stale) == 0 {
		return
	}
	marks := map[string]*harness.BaselineMark{}
	for _, r := range baselineRows(rep) {
		marks[r.id] = r.mark
	}
	s := get("baseline")
	for _, id := range rep.Baseline.Stale {
		s.Tests++
		s.Failures++
		s.Cases = append(s.Cases, JUnitCase{Name: "stale: " + id, Classname: "baseline", Time: "0",
			Failure: &JUnitFailure{Escaped: true, Message: "stale baseline entry " + id + ": " + staleWhy(marks[id]), Type: "baseline"}})
	}
}

// junitExpected is the skipped element of an expected-fail test case.
func junitExpected(m *harness.BaselineMark, message string) *JUnitSkipped {
	reason := ""
	if m != nil {
		reason = " (" + m.Reason + ")"
	}
	return &JUnitSkipped{Message: "expected-fail" + reason + ": " + message}
}
