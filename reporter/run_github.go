package reporter

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/workflowcmd"
)

// embeddedPrefix labels the files of the built-in suites (the command line
// loads them under it): they are not in the user's repository, so their
// failures cannot be annotated on a file.
const embeddedPrefix = "embedded:"

// writeRunGitHub writes a run as GitHub Actions workflow commands: each
// scenario that did not pass becomes an annotation, on its scenario file
// and line when it comes from the user's own suites (--suite), and the
// passive findings and the verdict follow; plain summary lines (counts,
// claims) close the log.
//
//	::error file=suites/acme/flows.yaml,line=12,title=acme.flow-completes (MUST)::step 3 (expect): ...
func writeRunGitHub(w io.Writer, rep *report.Report) error {
	var b strings.Builder
	if rep.Error != "" {
		b.WriteString(workflowcmd.Annotation("error", "aghcheck run", "the run could not be carried out: "+rep.Error) + "\n")
	}
	// Under a baseline, a known deviation is a notice and a new warning an
	// error: it fails the run like a new failure.
	isNew := map[string]bool{}
	if rep.Baseline != nil {
		for _, id := range rep.Baseline.New {
			isNew[id] = true
		}
	}
	for _, sc := range rep.Scenarios {
		cmd := "error"
		switch {
		case sc.Outcome == report.Pass, sc.Outcome == report.Skip:
			continue
		case sc.Outcome == report.ExpectedFail:
			cmd = "notice"
		case sc.Outcome == report.Warn && !isNew[sc.ID]:
			cmd = "warning"
		}
		var props []string
		if !strings.HasPrefix(sc.File, embeddedPrefix) && sc.File != "" {
			props = append(props, "file="+workflowcmd.EscapeProperty(filepath.ToSlash(filepath.Clean(sc.File))))
			if sc.Line > 0 {
				props = append(props, "line="+strconv.Itoa(sc.Line))
			}
		}
		props = append(props, "title="+workflowcmd.EscapeProperty(fmt.Sprintf("%s (%s %s)", sc.ID, sc.Level, strings.ToUpper(string(sc.Outcome)))))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), workflowcmd.EscapeData(githubDetail(sc)))
	}
	for _, f := range rep.Passive.Findings {
		cmd, why := "error", ""
		switch {
		case f.Baseline != nil && f.Baseline.Status == report.BaselineExpected:
			cmd, why = "notice", " (expected-fail: "+f.Baseline.Reason+")"
		case f.Level != "MUST" && !isNew[baseline.PassivePrefix+f.Rule]:
			cmd = "warning"
		}
		msg := fmt.Sprintf("%s broke %s (%s)%s, e.g. %s", plural.Count(f.Count, "IUT envelope"), f.Rule, f.Level, why, f.Example)
		if c := clauseLine(f.Level, findingText(f)); c != "" {
			msg += "\n" + c
		}
		b.WriteString(workflowcmd.Annotation(cmd, "passive "+f.Rule, msg) + "\n")
	}
	if rep.Baseline != nil {
		marks := map[string]*report.BaselineMark{}
		for _, r := range baselineRows(rep) {
			marks[r.id] = r.mark
		}
		for _, id := range rep.Baseline.Stale {
			b.WriteString(workflowcmd.Annotation("error", "stale baseline entry "+id, staleWhy(rep, id, marks[id])) + "\n")
		}
	}
	s := rep.Summary
	verdict := fmt.Sprintf("%s, by %s: claim earned: %s (target %s); %d pass, %d fail, %d warn, %d skip, %d error%s",
		implementation(rep), checker(rep), s.Claim, s.Target, s.Pass, s.Fail, s.Warn, s.Skip, s.Error, baselineVerdict(rep))
	cmd, word := "notice", runVerdict(rep)
	if !s.Passed {
		cmd = "error"
	}
	b.WriteString(workflowcmd.Annotation(cmd, "aghcheck run: "+word, verdict) + "\n")
	if line := s.UnstableLine(); len(s.Unstable) > 0 {
		b.WriteString(workflowcmd.Annotation("error", "aghcheck run: unstable verdicts", line) + "\n")
	} else if line != "" {
		fmt.Fprintln(&b, line)
	}
	if line := readingsText(rep); line != "" {
		fmt.Fprintf(&b, "readings: %s\n", line)
	}
	if a := rep.AdapterOwned; a != nil {
		// The requirements whose verdict is the adapter's, not the
		// runtime's, with their outcome.
		outcome := map[string]report.Outcome{}
		for _, r := range rep.Requirements {
			outcome[r.ID] = r.Outcome
		}
		fmt.Fprintf(&b, "verdicts from the adapter's own code (%s, %s), not the runtime's:\n", a.Adapter, a.File)
		for _, r := range a.Requirements {
			o := cmp.Or(outcome[r.ID], report.Skip)
			fmt.Fprintf(&b, "  %s %s: %s\n", strings.ToUpper(string(o)), r.ID, r.Why)
		}
	}
	for _, c := range rep.Claims {
		mark, why := "✔", ""
		if !c.Earned {
			mark = "✘"
			if len(c.Why) > 0 {
				why = " " + whyLine(c.Why, 8)
			}
		}
		if c.Earned && len(c.UnexercisedInitiator) > 0 {
			why = " (initiator duties not exercised, the IUT takes no initiation orders: " + strings.Join(c.UnexercisedInitiator, ", ") + ")"
		}
		fmt.Fprintf(&b, "%s %s%s\n", mark, c.Name, why)
	}
	fmt.Fprintf(&b, "%s  %s\n", word, verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

// githubDetail is an annotation's text: what went wrong, the notes, each
// failing step's expectation beside what arrived, and the requirements.
func githubDetail(sc *report.ScenarioResult) string {
	var b strings.Builder
	b.WriteString(sc.Title)
	if m := sc.Baseline; m != nil && m.Status == report.BaselineExpected {
		b.WriteString(" (expected-fail: " + m.Reason + ")")
	}
	if sc.Message != "" {
		b.WriteString(": " + sc.Message)
	}
	for _, n := range sc.Notes {
		if n != sc.Message {
			b.WriteString("\nnote: " + n)
		}
	}
	for _, l := range stepEvidence(sc, evidenceClip) {
		b.WriteString("\n" + l)
	}
	for _, c := range requirementClauses(sc) {
		b.WriteString("\n" + c)
	}
	b.WriteString("\nrequirements: " + strings.Join(sc.Requirements, ", "))
	return b.String()
}
