package reporter

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/harness"
)

type runJUnitSuites struct {
	XMLName  xml.Name        `xml:"testsuites"`
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Skipped  int             `xml:"skipped,attr"`
	Time     string          `xml:"time,attr"`
	Suites   []runJUnitSuite `xml:"testsuite"`
}

type runJUnitSuite struct {
	Name     string         `xml:"name,attr"`
	Tests    int            `xml:"tests,attr"`
	Failures int            `xml:"failures,attr"`
	Errors   int            `xml:"errors,attr"`
	Skipped  int            `xml:"skipped,attr"`
	Time     string         `xml:"time,attr"`
	Cases    []runJUnitCase `xml:"testcase"`
}

type runJUnitCase struct {
	Name      string           `xml:"name,attr"`
	Classname string           `xml:"classname,attr"`
	Time      string           `xml:"time,attr"`
	Failure   *runJUnitProblem `xml:"failure,omitempty"`
	Error     *runJUnitProblem `xml:"error,omitempty"`
	Skipped   *runJUnitProblem `xml:"skipped,omitempty"`
	SystemOut string           `xml:"system-out,omitempty"`
}

type runJUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// WriteRunJUnit writes a run as JUnit XML: one testsuite per scenario suite,
// one testcase per scenario (warnings pass with a note), and a testcase for
// the passive validation of the IUT's envelopes.
func WriteRunJUnit(w io.Writer, rep *harness.Report) error {
	bySuite := map[string]*runJUnitSuite{}
	root := runJUnitSuites{Name: "aghcheck run (" + rep.Summary.Claim + ")", Time: secs(rep.Duration)}
	get := func(name string) *runJUnitSuite {
		if s := bySuite[name]; s != nil {
			return s
		}
		s := &runJUnitSuite{Name: name}
		bySuite[name] = s
		return s
	}
	var total harness.Millis
	for _, sc := range rep.Scenarios {
		s := get(sc.Suite)
		c := runJUnitCase{Name: sc.ID + ": " + sc.Title, Classname: strings.ReplaceAll(sc.Suite, "/", "."), Time: secs(sc.Duration)}
		detail := junitDetail(sc)
		switch sc.Outcome {
		case harness.Fail:
			c.Failure = &runJUnitProblem{Message: sc.Message, Type: sc.Level, Body: detail}
			s.Failures++
		case harness.Error:
			c.Error = &runJUnitProblem{Message: sc.Message, Type: "harness", Body: detail}
			s.Errors++
		case harness.Skip:
			c.Skipped = &runJUnitProblem{Message: sc.Message}
			s.Skipped++
		case harness.Warn:
			c.SystemOut = "WARN (SHOULD not met): " + sc.Message + "\n" + strings.Join(sc.Notes, "\n")
		}
		s.Tests++
		total += sc.Duration
		s.Cases = append(s.Cases, c)
	}
	for _, s := range bySuite {
		var t harness.Millis
		for _, sc := range rep.Scenarios {
			if sc.Suite == s.Name {
				t += sc.Duration
			}
		}
		s.Time = secs(t)
	}
	// Passive validation is a test case of its own: sender conformance.
	ps := get("passive")
	pc := runJUnitCase{Name: "every envelope the IUT published is valid", Classname: "passive", Time: "0"}
	var lines []string
	for _, f := range rep.Passive.Findings {
		lines = append(lines, fmt.Sprintf("%s %s x%d: %s", f.Level, f.Rule, f.Count, f.Example))
	}
	switch rep.Passive.Outcome {
	case harness.Fail:
		pc.Failure = &runJUnitProblem{Message: fmt.Sprintf("%d of %d IUT envelopes invalid", rep.Passive.Invalid, rep.Passive.Envelopes), Body: strings.Join(lines, "\n")}
		ps.Failures++
	case harness.Skip:
		pc.Skipped = &runJUnitProblem{Message: "the IUT published nothing"}
		ps.Skipped++
	case harness.Warn:
		pc.SystemOut = strings.Join(lines, "\n")
	}
	ps.Tests++
	ps.Cases = append(ps.Cases, pc)
	if rep.Error != "" {
		hs := get("harness")
		hs.Tests++
		hs.Errors++
		hs.Cases = append(hs.Cases, runJUnitCase{Name: "run", Classname: "harness", Time: "0",
			Error: &runJUnitProblem{Message: rep.Error, Type: "harness", Body: rep.IUT.Stderr}})
	}
	names := make([]string, 0, len(bySuite))
	for n := range bySuite {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := bySuite[n]
		root.Tests += s.Tests
		root.Failures += s.Failures
		root.Errors += s.Errors
		root.Skipped += s.Skipped
		root.Suites = append(root.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(m harness.Millis) string { return fmt.Sprintf("%.3f", m.D().Seconds()) }

func junitDetail(sc *harness.ScenarioResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) requirements: %s\n", sc.ID, sc.Level, strings.Join(sc.Requirements, ", "))
	for _, n := range sc.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, st := range sc.Steps {
		if st.Outcome == harness.Pass {
			continue
		}
		fmt.Fprintf(&b, "step %d %s: %s\n", st.Index, st.Kind, st.Message)
		for _, e := range st.Expected {
			j, _ := json.Marshal(e)
			fmt.Fprintf(&b, "  expected: %s\n", j)
		}
		for _, a := range st.Arrived {
			fmt.Fprintf(&b, "  arrived:  %s\n", a)
		}
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
