package reporter

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
)

// writeRunJUnit writes a run as JUnit XML: one testsuite per scenario suite,
// one testcase per scenario (warnings pass with a note), and a testcase for
// the passive validation of the IUT's envelopes.
func writeRunJUnit(w io.Writer, rep *report.Report) error {
	suites := junitRunSuites{props: junitRunProps(rep), by: map[string]*junitTestsuite{}}
	notSelected := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Skip && sc.Message == report.NotSelected {
			notSelected++ // summed up below: a narrowed run is not a wall of skips
			continue
		}
		junitScenario(suites.get(sc.Suite), sc)
	}
	for _, s := range suites.by {
		var t report.Millis
		for _, sc := range rep.Scenarios {
			if sc.Suite == s.Name {
				t += sc.Duration
			}
		}
		s.Time = secs(t)
	}
	// Passive validation is a test case of its own: sender conformance.
	junitPassive(suites.get("passive"), rep.Passive)
	if notSelected > 0 {
		ns := suites.get("not selected")
		ns.Tests++
		ns.Skipped++
		ns.Cases = append(ns.Cases, junitTestcase{Name: plural.Count(notSelected, "scenario") + " not selected by --run", Classname: "not-selected", Time: "0.000",
			Skipped: &junitSkipped{Message: report.NotSelected}})
	}
	junitBaseline(rep, suites.get)
	if rep.Error != "" {
		hs := suites.get("harness")
		hs.Tests++
		hs.Errors++
		hs.Cases = append(hs.Cases, junitTestcase{Name: "run", Classname: "harness", Time: "0.000",
			Error: &junitFailure{Escaped: true, Message: rep.Error, Type: "harness", Text: rep.IUT.Stderr}})
	}
	root := junitSuites{Name: fmt.Sprintf("%s run of %s (%s)", checker(rep), implementation(rep), rep.Summary.Claim), Time: secs(rep.Duration)}
	return writeJUnit(w, suites.root(root))
}

// junitRunProps are the properties every testsuite of a run carries: the
// versions, and what a CI reading only the XML must see besides.
func junitRunProps(rep *report.Report) []junitProperty {
	props := []junitProperty{
		{"aghcheck.version", cmp.Or(rep.Version, report.Unknown)},
		{"implementation", cmp.Or(rep.IUT.Implementation, report.Unknown)},
		{"implementation.version", cmp.Or(rep.IUT.ImplementationVersion, report.Unknown)},
	}
	if s := rep.Summary; s.Repeat > 1 {
		// --repeat: the unstable scenarios are errors below; these say
		// how many runs there were and which differed, in one place.
		props = append(props, junitProperty{"repeat", fmt.Sprint(s.Repeat)}, junitProperty{"unstable", strings.Join(s.Unstable, ",")})
	}
	for _, c := range rep.Claims {
		// A claim earned on a peer that takes no initiation orders rests on
		// half a peer: a CI reading only the XML must see it.
		if c.Earned && len(c.UnexercisedInitiator) > 0 {
			props = append(props, junitProperty{"claim." + c.Name + ".initiator_not_exercised", strings.Join(c.UnexercisedInitiator, ",")})
		}
	}
	return props
}

// junitRunSuites are a run's testsuites by name, made on first use.
type junitRunSuites struct {
	props []junitProperty
	by    map[string]*junitTestsuite
}

func (r junitRunSuites) get(name string) *junitTestsuite {
	if s := r.by[name]; s != nil {
		return s
	}
	s := &junitTestsuite{Name: name, Properties: r.props}
	r.by[name] = s
	return s
}

// root is root with the testsuites in it, sorted by name, and their totals.
func (r junitRunSuites) root(root junitSuites) junitSuites {
	for _, s := range r.by {
		if s.Time == "" {
			s.Time = "0.000" // passive validation, the baseline, the harness: no time of their own
		}
	}
	names := make([]string, 0, len(r.by))
	for n := range r.by {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := r.by[n]
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Skipped += s.Skipped
		root.Suites = append(root.Suites, *s)
	}
	return root
}

// junitScenario adds the testcase of one played scenario to its suite.
func junitScenario(s *junitTestsuite, sc *report.ScenarioResult) {
	c := junitTestcase{Name: sc.ID + ": " + sc.Title, Classname: strings.ReplaceAll(sc.Suite, "/", "."), Time: secs(sc.Duration)}
	detail := junitDetail(sc)
	switch sc.Outcome {
	case report.Fail:
		c.Failure = &junitFailure{Escaped: true, Message: sc.Message, Type: sc.Level, Text: detail}
		s.Failures++
	case report.Error:
		c.Error = &junitFailure{Escaped: true, Message: sc.Message, Type: "harness", Text: detail}
		s.Errors++
	case report.Skip:
		c.Skipped = &junitSkipped{Message: sc.Message}
		s.Skipped++
	case report.ExpectedFail:
		why := sc.Message
		if why == "" && len(sc.Notes) > 0 {
			why = sc.Notes[0] // a warning says why in its notes
		}
		c.Skipped = junitExpected(sc.Baseline, why)
		s.Skipped++
	case report.Warn:
		c.SystemOut = runOut("WARN (SHOULD not met): " + sc.Message + "\n" + strings.Join(sc.Notes, "\n"))
	}
	s.Tests++
	s.Cases = append(s.Cases, c)
}

// junitPassive adds the testcase of the passive validation to ps.
func junitPassive(ps *junitTestsuite, pv report.PassiveResult) {
	pc := junitTestcase{Name: "every envelope the IUT published is valid", Classname: "passive", Time: "0.000"}
	var lines []string
	for _, f := range pv.Findings {
		lines = append(lines, fmt.Sprintf("%s %s x%d: %s", f.Level, f.Rule, f.Count, f.Example))
		if c := clauseLine(f.Level, findingText(f)); c != "" {
			lines = append(lines, "    "+c)
		}
	}
	switch pv.Outcome {
	case report.Fail:
		pc.Failure = &junitFailure{Escaped: true, Message: fmt.Sprintf("%d of %d IUT envelopes invalid", pv.Invalid, pv.Envelopes), Text: strings.Join(lines, "\n")}
		ps.Failures++
	case report.Skip:
		pc.Skipped = &junitSkipped{Message: "the IUT published nothing"}
		ps.Skipped++
	case report.ExpectedFail:
		pc.Skipped = junitExpected(nil, strings.Join(lines, "; "))
		ps.Skipped++
	case report.Warn:
		pc.SystemOut = runOut(strings.Join(lines, "\n"))
	}
	ps.Tests++
	ps.Cases = append(ps.Cases, pc)
}

// runOut is a run's system-out text, escaped as run reports have always
// had it; none when empty.
func runOut(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{Text: s, Escaped: true}
}

func secs(m report.Millis) string { return fmt.Sprintf("%.3f", m.D().Seconds()) }

func junitDetail(sc *report.ScenarioResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) requirements: %s\n", sc.ID, sc.Level, strings.Join(sc.Requirements, ", "))
	for _, n := range sc.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, st := range sc.Steps {
		if st.Outcome == report.Pass {
			continue
		}
		fmt.Fprintf(&b, "step %d %s: %s\n", st.Index, st.Kind, st.Message)
		for _, e := range st.Expected {
			j, _ := json.Marshal(e)
			fmt.Fprintf(&b, "  %s: %s\n", patternLabel(st.Kind), j)
		}
		for _, a := range st.Arrived {
			fmt.Fprintf(&b, "  arrived:  %s\n", a)
		}
	}
	for _, c := range requirementClauses(sc) {
		fmt.Fprintf(&b, "%s\n", c)
	}
	for _, e := range sc.Exchanged {
		body := string(e.Envelope)
		if body == "" {
			body = e.Raw
		}
		fmt.Fprintf(&b, "+%s %s %s %s %s\n", runDur(e.At.D()), e.Direction, e.Peer, e.Subject, body)
	}
	return b.String()
}
