package reporter

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
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
// Suites carry counts in their attributes, which XML puts before the cases:
// so each case is encoded as it comes into a spool (memory up to
// spoolInMemory, then an unnamed temporary file), and Finish writes the
// root and suite elements with their counts around the spooled cases. What
// the reporter holds is a few words per file, whatever the input's size.
type junitReporter struct {
	w      io.Writer
	o      Options
	suites []junitSuite
	spool  *spool
	enc    *xml.Encoder // encodes cases into the spool
}

// junitSuite is one input file's suite: its counts, and where its cases
// are in the spool.
type junitSuite struct {
	name            string
	tests, failures int
	start, end      int64
}

type junitCase struct {
	line, index int32
	profile     string // shared with every other document of the profile
	failure     *junitFailure
	out         string
}

func (r *junitReporter) Item(d *validate.Document) error {
	if r.spool == nil {
		r.spool = &spool{}
		// Cases sit two levels deep: each starts on a line of its own,
		// indented as the encoder of the whole document would.
		r.enc = xml.NewEncoder(r.spool)
		r.enc.Indent("    ", "  ")
	}
	if len(r.suites) == 0 || r.suites[len(r.suites)-1].name != d.Source {
		r.suites = append(r.suites, junitSuite{name: d.Source, start: r.spool.n, end: r.spool.n})
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
			fmt.Fprintf(&text, "%s: %s %s %s\n    %s\n", fileLocation(d), sev, f.Rule.ID, f.Detail(), ruleClause(f.Rule))
		}
		msg := plural.Count(errs, "error")
		if warns > 0 {
			msg += ", " + plural.Count(warns, "warning")
		}
		c.failure = &junitFailure{Message: msg + ": " + first, Type: first, Text: text.String()}
	} else if len(d.Findings) > 0 && !r.o.Quiet {
		var text strings.Builder
		for _, f := range d.Findings {
			fmt.Fprintf(&text, "%s: warning %s %s\n", fileLocation(d), f.Rule.ID, f.Detail())
		}
		c.out = text.String()
	}
	s.tests++
	// The encoder writes a newline before every element but its first.
	if r.spool.n == 0 {
		if _, err := io.WriteString(r.spool, "\n"); err != nil {
			return err
		}
	}
	if err := r.enc.Encode(c.xml(s.name)); err != nil { // Encode flushes: spool.n is exact
		return fmt.Errorf("junit: %w", err)
	}
	s.end = r.spool.n
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

// Finish writes the document: the root and suite elements are written by
// hand, their attribute values escaped as the encoder escapes them, so that
// the spooled cases go between them as they are.
func (r *junitReporter) Finish(sum validate.Summary) error {
	defer r.spool.close()
	bw := bufio.NewWriterSize(r.w, 64<<10)
	tests, failures := len(sum.InputErrors), 0
	for _, s := range r.suites {
		tests += s.tests
		failures += s.failures
	}
	bw.WriteString(xml.Header)
	startTag(bw, "", "testsuites", "name", "aghcheck validate", "tests", tests, "failures", failures, "errors", len(sum.InputErrors))
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
		bw.WriteString("\n")
		enc := xml.NewEncoder(bw)
		enc.Indent("  ", "  ")
		if err := enc.EncodeElement(suite, xml.StartElement{Name: xml.Name{Local: "testsuite"}}); err != nil {
			return err
		}
	}
	if err := r.spool.finish(); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	for _, s := range r.suites {
		startTag(bw, "\n  ", "testsuite", "name", s.name, "tests", s.tests, "failures", s.failures, "errors", 0)
		if err := r.spool.copyRange(bw, s.start, s.end); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
		bw.WriteString("\n  </testsuite>")
	}
	if len(sum.InputErrors)+len(r.suites) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("</testsuites>\n")
	return bw.Flush()
}

// startTag writes indent and a start tag with attributes given as name,
// value pairs, each value escaped as an XML attribute.
func startTag(w *bufio.Writer, indent, name string, attrs ...any) {
	w.WriteString(indent + "<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.WriteString(" " + attrs[i].(string) + `="`)
		_ = xml.EscapeText(w, []byte(fmt.Sprint(attrs[i+1])))
		w.WriteString(`"`)
	}
	w.WriteString(">")
}

// spoolInMemory is how much of the spooled cases stays in memory before
// the spool moves to a temporary file.
var spoolInMemory = 8 << 20

// spool holds bytes written once and read back by range: in memory while
// small, then in a temporary file whose name is removed at once (where the
// system allows it), so that nothing is left behind however aghcheck ends.
type spool struct {
	n    int64 // bytes written
	mem  bytes.Buffer
	file *os.File
	name string // the file's name while it still has one (removed on close)
	bw   *bufio.Writer
}

func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && s.mem.Len()+len(p) > spoolInMemory {
		f, err := os.CreateTemp("", "aghcheck-junit-*")
		if err != nil {
			return 0, fmt.Errorf("spool the report: %w", err)
		}
		if os.Remove(f.Name()) != nil {
			s.name = f.Name() // a system that keeps the name of an open file
		}
		s.file, s.bw = f, bufio.NewWriterSize(f, 256<<10)
		if _, err := s.bw.Write(s.mem.Bytes()); err != nil {
			return 0, fmt.Errorf("spool the report: %w", err)
		}
		s.mem = bytes.Buffer{}
	}
	var n int
	var err error
	if s.file != nil {
		n, err = s.bw.Write(p)
	} else {
		n, err = s.mem.Write(p)
	}
	s.n += int64(n)
	return n, err
}

// finish makes what was written readable.
func (s *spool) finish() error {
	if s == nil || s.bw == nil {
		return nil
	}
	return s.bw.Flush()
}

// copyRange copies bytes [start, end) to w.
func (s *spool) copyRange(w io.Writer, start, end int64) error {
	if s.file == nil {
		_, err := w.Write(s.mem.Bytes()[start:end])
		return err
	}
	_, err := io.Copy(w, io.NewSectionReader(s.file, start, end-start))
	return err
}

// close drops the spool and its file.
func (s *spool) close() {
	if s == nil || s.file == nil {
		return
	}
	s.file.Close()
	if s.name != "" {
		os.Remove(s.name)
	}
}
