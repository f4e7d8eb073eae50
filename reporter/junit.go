package reporter

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// JUnit XML, in the shape CI servers (Jenkins, GitLab, GitHub test
// reporters) read. Validate and run reports both use these types.

// junitSuites is the document root.
type junitSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

// junitTestsuite groups test cases: the documents of one file, or the
// scenarios of one suite.
type junitTestsuite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
	// Properties name what was tested with what (run reports).
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitTestcase `xml:"testcase"`
}

// junitProperty is one name=value pair of a suite.
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitTestcase is one test case: one document, or one scenario.
type junitTestcase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

// junitFailure is a failed (or erroring) case: a short message, a type and
// the full text.
type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
	// Escaped writes Text as escaped character data instead of a CDATA
	// section: the same XML, in the form run reports have always had.
	Escaped bool `xml:"-"`
}

// MarshalXML honours Escaped.
func (f junitFailure) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if f.Escaped {
		return e.EncodeElement(struct {
			Message string `xml:"message,attr"`
			Type    string `xml:"type,attr,omitempty"`
			Text    string `xml:",chardata"`
		}{f.Message, f.Type, f.Text}, start)
	}
	type plain junitFailure // the same fields without this method
	return e.EncodeElement(plain(f), start)
}

// junitText is free text (system-out), in a CDATA section unless Escaped.
type junitText struct {
	Text    string `xml:",cdata"`
	Escaped bool   `xml:"-"`
}

// MarshalXML honours Escaped.
func (t junitText) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if t.Escaped {
		return e.EncodeElement(struct {
			Text string `xml:",chardata"`
		}{t.Text}, start)
	}
	type plain junitText
	return e.EncodeElement(plain(t), start)
}

// junitSkipped marks a case that did not run.
type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// writeJUnit writes v with an XML header, indented, and a final newline.
func writeJUnit(w io.Writer, v any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitReporter makes one suite per input file and one case per document.
// Suites carry counts in their attributes, so cases are kept until the end,
// in a compact form (a valid document costs a few words: no strings of its
// own), and are turned into XML one at a time: the root and suite elements
// are written as tokens rather than as junitSuites, which would hold every
// case at once.
type junitReporter struct {
	w      io.Writer
	o      Options
	suites []junitSuite
}

type junitSuite struct {
	name     string
	failures int
	cases    []junitCase
}

type junitCase struct {
	line, index int32
	profile     string // shared with every other document of the profile
	failure     *junitFailure
	out         string
}

func (r *junitReporter) Item(d *validate.Document) error {
	if len(r.suites) == 0 || r.suites[len(r.suites)-1].name != d.Source {
		r.suites = append(r.suites, junitSuite{name: d.Source})
	}
	s := &r.suites[len(r.suites)-1]
	c := junitCase{line: int32(d.Line), index: int32(d.Index), profile: d.Profile}
	if !d.Valid {
		s.failures++
		errs, warns := counts(d, r.o.Strict)
		var first string
		var text strings.Builder
		for _, f := range d.Findings {
			sev := f.Severity(r.o.Strict)
			if first == "" && sev == rules.Error {
				first = f.Rule.ID
			}
			fmt.Fprintf(&text, "%s: %s %s %s\n    %s: %s\n", fileLocation(d), sev, f.Rule.ID, Detail(f), f.Rule.Severity.Level(), f.Rule.Clause)
		}
		msg := Plural(errs, "error")
		if warns > 0 {
			msg += ", " + Plural(warns, "warning")
		}
		c.failure = &junitFailure{Message: msg + ": " + first, Type: first, Text: text.String()}
	} else if len(d.Findings) > 0 && !r.o.Quiet {
		var text strings.Builder
		for _, f := range d.Findings {
			fmt.Fprintf(&text, "%s: warning %s %s\n", fileLocation(d), f.Rule.ID, Detail(f))
		}
		c.out = text.String()
	}
	s.cases = append(s.cases, c)
	return nil
}

func (c junitCase) xml(source string) junitTestcase {
	name := "line " + strconv.Itoa(int(c.line))
	if c.index >= 0 {
		name = fmt.Sprintf("[%d] line %d", c.index, c.line)
	}
	if c.profile != "" {
		name += " (" + c.profile + ")"
	}
	jc := junitTestcase{Name: name, Classname: source, Failure: c.failure}
	if c.out != "" {
		jc.SystemOut = &junitText{Text: c.out}
	}
	return jc
}

func (r *junitReporter) Finish(sum validate.Summary) error {
	bw := bufio.NewWriterSize(r.w, 64<<10)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	tests, failures := len(sum.InputErrors), 0
	for _, s := range r.suites {
		tests += len(s.cases)
		failures += s.failures
	}
	attr := func(k string, v any) xml.Attr { return xml.Attr{Name: xml.Name{Local: k}, Value: fmt.Sprint(v)} }
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		attr("name", "aghcheck validate"), attr("tests", tests), attr("failures", failures), attr("errors", len(sum.InputErrors))}}
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	// An input that could not be read is an error test case of its own:
	// the check could not be done, which is not a verdict on a document.
	for _, e := range sum.InputErrors {
		name, text := "input", e.Message
		if e.Source != "" {
			name, text = e.Source, e.Source+": "+e.Message
		}
		suite := struct {
			Name   string        `xml:"name,attr"`
			Tests  int           `xml:"tests,attr"`
			Errors int           `xml:"errors,attr"`
			Case   junitTestcase `xml:"testcase"`
		}{name, 1, 1, junitTestcase{Name: "read " + name, Classname: name,
			Error: &junitFailure{Message: e.Message, Type: "input", Text: text}}}
		if err := enc.EncodeElement(suite, xml.StartElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
			return err
		}
	}
	for _, s := range r.suites {
		st := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
			attr("name", s.name), attr("tests", len(s.cases)), attr("failures", s.failures), attr("errors", 0)}}
		if err := enc.EncodeToken(st); err != nil {
			return err
		}
		for _, c := range s.cases {
			if err := enc.Encode(c.xml(s.name)); err != nil {
				return err
			}
		}
		if err := enc.EncodeToken(st.End()); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}
