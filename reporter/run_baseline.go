package reporter

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
)

// baselineRow is one --baseline entry as the run judged it.
type baselineRow struct {
	id      string
	mark    *report.BaselineMark
	message string
	// passes is, for a new deviation, whether its own test case passes in
	// JUnit (a warning): the baseline suite then fails for it.
	passes bool
}

// baselineRows lists the entries the run judged: scenarios, then passive
// findings. A passive entry whose rule is no longer broken has no finding
// to hang on: it is named in the summary's stale list only.
func baselineRows(rep *report.Report) []baselineRow {
	var rows []baselineRow
	for _, sc := range rep.Scenarios {
		if sc.Baseline != nil {
			rows = append(rows, baselineRow{id: sc.ID, mark: sc.Baseline, message: sc.Message})
		}
	}
	for _, f := range rep.Passive.Findings {
		if f.Baseline != nil {
			rows = append(rows, baselineRow{id: baseline.PassivePrefix + f.Rule, mark: f.Baseline, message: f.Example})
		}
	}
	return rows
}

// newRows lists what the baseline does not record, in the order of
// rep.Baseline.New: each fails the run. The mark is nil.
func newRows(rep *report.Report) []baselineRow {
	if rep.Baseline == nil {
		return nil
	}
	what := map[string]baselineRow{}
	for _, sc := range rep.Scenarios {
		what[sc.ID] = baselineRow{id: sc.ID, message: fmt.Sprintf("%s: %s", sc.Outcome, cmp.Or(sc.Message, strings.Join(sc.Notes, "; "))),
			passes: sc.Outcome == report.Warn}
	}
	for _, f := range rep.Passive.Findings {
		id := baseline.PassivePrefix + f.Rule
		what[id] = baselineRow{id: id, message: fmt.Sprintf("%s, ×%d: %s", f.Level, f.Count, f.Example),
			passes: rep.Passive.Outcome != report.Fail}
	}
	rows := make([]baselineRow, len(rep.Baseline.New))
	for i, id := range rep.Baseline.New {
		rows[i] = what[id]
		rows[i].id = id
	}
	return rows
}

// staleWhy says why entry id of rep's baseline no longer holds (m is nil
// for a passive rule no longer broken, or an id naming nothing).
func staleWhy(rep *report.Report, id string, m *report.BaselineMark) string {
	if rep.Baseline != nil && slices.Contains(rep.Baseline.Retired, id) {
		return "retired: no scenario or rule has this id (removed or renamed, see aghcheck list): rename or remove the entry"
	}
	if m == nil {
		return "the rule is no longer broken: remove the entry"
	}
	return fmt.Sprintf("recorded %s, now %s: update or remove the entry (%s)", m.Recorded, m.Actual, m.Reason)
}

// writeRunBaseline prints the --baseline section of a text report.
func writeRunBaseline(w io.Writer, p palette, rep *report.Report) {
	b := rep.Baseline
	if b == nil {
		return
	}
	fmt.Fprintf(w, "\nBaseline %s: %s, %d expected-fail, %d stale, %d not judged, %d new\n",
		b.File, plural.Count(b.Entries, "entry"), b.Expected, len(b.Stale), len(b.Unjudged), len(b.New))
	marked := map[string]bool{}
	for _, r := range baselineRows(rep) {
		marked[r.id] = true
		switch r.mark.Status {
		case report.BaselineExpected:
			fmt.Fprintf(w, "  %s %-46s %s  %s\n", p.outcome(report.ExpectedFail), r.id, r.mark.Reason, p.faint.Sprint(firstLine(r.message)))
		case report.BaselineStale:
			fmt.Fprintf(w, "  %s %-46s %s\n", p.red.Sprint("STALE"), r.id, staleWhy(rep, r.id, r.mark))
		default:
			fmt.Fprintf(w, "  %s %-46s %s\n", p.faint.Sprint("-    "), r.id, p.faint.Sprint(fmt.Sprintf("not judged (%s)", r.mark.Actual)))
		}
	}
	for _, id := range b.Stale {
		if !marked[id] {
			fmt.Fprintf(w, "  %s %-46s %s\n", p.red.Sprint("STALE"), id, staleWhy(rep, id, nil))
		}
	}
	for _, r := range newRows(rep) {
		fmt.Fprintf(w, "  %s %-46s %s\n", p.red.Sprint("NEW  "), r.id, firstLine("not in the baseline: "+r.message))
	}
}

// baselineVerdict is what the final line adds for a run with a baseline.
func baselineVerdict(rep *report.Report) string {
	if rep.Baseline == nil {
		return ""
	}
	s := rep.Summary
	return fmt.Sprintf(", %d expected-fail, %d stale, %d new (baseline %s)", s.ExpectedFail, s.Stale, len(rep.Baseline.New), rep.Baseline.File)
}

// junitBaseline adds a testsuite "baseline" with one failing testcase per
// stale entry and per new warning: the run fails on them although their
// scenarios passed or only warned (a new failure fails its own testcase).
func junitBaseline(rep *report.Report, get func(string) *junitTestsuite) {
	if rep.Baseline == nil {
		return
	}
	var warned []baselineRow
	for _, r := range newRows(rep) {
		if r.passes {
			warned = append(warned, r)
		}
	}
	if len(rep.Baseline.Stale)+len(warned) == 0 {
		return
	}
	marks := map[string]*report.BaselineMark{}
	for _, r := range baselineRows(rep) {
		marks[r.id] = r.mark
	}
	s := get("baseline")
	for _, id := range rep.Baseline.Stale {
		s.Tests++
		s.Failures++
		s.Cases = append(s.Cases, junitTestcase{Name: "stale: " + id, Classname: "baseline", Time: "0.000",
			Failure: &junitFailure{Escaped: true, Message: "stale baseline entry " + id + ": " + staleWhy(rep, id, marks[id]), Type: "baseline"}})
	}
	for _, r := range warned {
		s.Tests++
		s.Failures++
		s.Cases = append(s.Cases, junitTestcase{Name: "new: " + r.id, Classname: "baseline", Time: "0.000",
			Failure: &junitFailure{Escaped: true, Message: "not in the baseline: " + r.id + " " + r.message, Type: "baseline"}})
	}
}

// junitExpected is the skipped element of an expected-fail test case.
func junitExpected(m *report.BaselineMark, message string) *junitSkipped {
	reason := ""
	if m != nil {
		reason = " (" + m.Reason + ")"
	}
	return &junitSkipped{Message: "expected-fail" + reason + ": " + message}
}
