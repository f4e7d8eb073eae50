package reporter

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/validate"
)

// JUnit XML, in the shape CI servers (Jenkins, GitLab, GitHub test
// reporters) read. The types are exported so that other result writers
// (live runs) produce the same XML.

// JUnitSuites is the document root.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr,omitempty"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr,omitempty"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite groups test cases (here: the documents of one file).
type JUnitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr,omitempty"`
	Time       string           `xml:"time,attr,omitempty"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *JUnitProperties `xml:"properties,omitempty"`
	Cases      []JUnitCase      `xml:"testcase"`
}

// JUnitProperties wraps a suite's properties (absent when nil).
type JUnitProperties struct {
	Items []JUnitProperty `xml:"property"`
}

// JUnitProperty is a name/value pair on a suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one test case (here: one document).
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr,omitempty"`
	Failure   *JUnitFailure `xml:"failure,omitempty"`
	Error     *JUnitFailure `xml:"error,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	SystemOut *JUnitText    `xml:"system-out,omitempty"`
}

// JUnitFailure is a failed (or erroring) case: a short message, a type and
// the full text.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// JUnitText is free text kept readable in a CDATA section.
type JUnitText struct {
	Text string `xml:",cdata"`
}

// JUnitSkipped marks a case that did not run.
type JUnitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// WriteJUnit writes s with an XML header and a final newline.
func WriteJUnit(w io.Writer, s *JUnitSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitReporter makes one suite per input file and one case per document.
// Suites carry counts in their attributes, so the XML is built in memory and
// written at the end; a case is a few short strings, so even 100,000
// documents stay in a few megabytes (valid cases hold no text at all).
type junitReporter struct {
	w      io.Writer
	o      Options
	suites []JUnitSuite
}

func (r *junitReporter) Document(d *validate.Document) error {
	if len(r.suites) == 0 || r.suites[len(r.suites)-1].Name != d.Source {
		r.suites = append(r.suites, JUnitSuite{Name: d.Source})
	}
	s := &r.suites[len(r.suites)-1]
	name := "line " + strconv.Itoa(d.Line)
	if d.Index >= 0 {
		name = fmt.Sprintf("[%d] line %d", d.Index, d.Line)
	}
	if d.Profile != "" {
		name += " (" + d.Profile + ")"
	}
	c := JUnitCase{Name: name, Classname: d.Source}
	s.Tests++
	if !d.Valid {
		s.Failures++
		errs, warns := counts(d, r.o.Strict)
		var first string
		var text strings.Builder
		for _, f := range d.Findings {
			sev := f.Severity(r.o.Strict)
			if first == "" && sev == rules.Error {
				first = f.Rule.ID
			}
			fmt.Fprintf(&text, "%s: %s %s %s\n    %s: %s\n", Location(d), sev, f.Rule.ID, Detail(f), f.Rule.Severity.Level(), f.Rule.Clause)
		}
		msg := plural(errs, "error")
		if warns > 0 {
			msg += ", " + plural(warns, "warning")
		}
		c.Failure = &JUnitFailure{Message: msg + ": " + first, Type: first, Text: text.String()}
	} else if len(d.Findings) > 0 && !r.o.Quiet {
		var text strings.Builder
		for _, f := range d.Findings {
			fmt.Fprintf(&text, "%s: warning %s %s\n", Location(d), f.Rule.ID, Detail(f))
		}
		c.SystemOut = &JUnitText{Text: text.String()}
	}
	s.Cases = append(s.Cases, c)
	return nil
}

func (r *junitReporter) Finish(sum validate.Summary) error {
	root := &JUnitSuites{Name: "aghcheck validate", Suites: r.suites}
	for _, s := range r.suites {
		root.Tests += s.Tests
		root.Failures += s.Failures
	}
	return WriteJUnit(r.w, root)
}
