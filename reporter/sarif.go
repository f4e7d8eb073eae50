package reporter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// SARIF 2.1.0 (OASIS), the format code-scanning services read: one run of
// one tool whose driver lists every catalogue rule, then one result per
// finding with the file, the line the document starts on and the JSON
// pointer of the value at fault.
const sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	ShortDescription sarifText `json:"shortDescription"`
	FullDescription  sarifText `json:"fullDescription"`
	Help             sarifText `json:"help"`
	Default          struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
	Properties struct {
		Profile string   `json:"profile"`
		Source  string   `json:"source,omitempty"`
		Reason  string   `json:"reason_code,omitempty"`
		Tags    []string `json:"tags"`
	} `json:"properties"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  *int            `json:"ruleIndex,omitempty"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties *sarifDocument  `json:"properties,omitempty"`
}

// sarifDocument is what a result says about its document beyond the
// location.
type sarifDocument struct {
	Profile string `json:"profile,omitempty"`
	Trust   string `json:"trust,omitempty"`
	Index   *int   `json:"index,omitempty"` // in a top-level array
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version,omitempty"`
	URI     string      `json:"informationUri"`
	Rules   []sarifRule `json:"rules"`
}

type sarifLocation struct {
	Physical struct {
		Artifact struct {
			URI         string     `json:"uri,omitempty"`
			Description *sarifText `json:"description,omitempty"`
		} `json:"artifactLocation"`
		Region *sarifRegion `json:"region,omitempty"`
	} `json:"physicalLocation"`
	Logical []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifNotification is an input that could not be read: the tool did not
// check everything it was given.
type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

// sarifLogical names the value at fault by its JSON pointer.
type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifReporter streams the log: the driver and its rules first, then one
// result per line as documents arrive, then the invocation with the
// summary, so memory stays flat however many documents there are.
type sarifReporter struct {
	w     io.Writer
	bw    *bufio.Writer
	o     Options
	index map[string]int // rule id → position in the driver's rules
	n     int
	buf   bytes.Buffer
	enc   *json.Encoder // into buf, so that HTML characters stay readable
}

func newSARIF(w io.Writer, o Options) documentWriter { return &sarifReporter{w: w, o: o} }

func (r *sarifReporter) start() error {
	if r.bw != nil {
		return nil
	}
	r.bw = bufio.NewWriterSize(r.w, 64<<10)
	r.enc = json.NewEncoder(&r.buf)
	r.enc.SetEscapeHTML(false)
	described := r.o.Rules
	if described == nil {
		described = catalogue.All()
	}
	r.index = make(map[string]int, len(described))
	list := make([]sarifRule, len(described))
	for i, rule := range described {
		r.index[rule.ID] = i
		list[i] = toSARIFRule(rule)
	}
	r.enc.SetIndent("      ", "  ")
	err := r.enc.Encode(struct {
		Driver sarifDriver `json:"driver"`
	}{sarifDriver{"aghcheck", r.o.Version, "https://github.com/aghcheck/aghcheck", list}})
	r.enc.SetIndent("", "")
	if err != nil {
		return err
	}
	r.bw.WriteString("{\n  \"$schema\": \"" + sarifSchema + "\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ")
	r.bw.Write(bytes.TrimRight(r.buf.Bytes(), "\n"))
	r.bw.WriteString(",\n      \"results\": [\n")
	return nil
}

func toSARIFRule(rule *rules.Rule) sarifRule {
	s := sarifRule{ID: rule.ID, ShortDescription: sarifText{rule.Clause}}
	full := ruleClause(rule)
	s.FullDescription = sarifText{full}
	help := full
	if rule.Reason != "" {
		help += "\nA receiver refusing a message for this rule answers with reason_code " + rule.Reason + "."
	}
	s.Help = sarifText{help}
	s.Default.Level = rule.Severity.String()
	s.Properties.Profile, s.Properties.Source, s.Properties.Reason = rule.Profile, rule.Source, rule.Reason
	s.Properties.Tags = []string{rule.Profile, rule.Severity.Level()}
	return s
}

func (r *sarifReporter) Item(d *validate.Document) error {
	if err := r.start(); err != nil {
		return err
	}
	if r.o.Quiet && d.Valid {
		return nil
	}
	loc := sarifWhere(d)
	var about *sarifDocument
	if d.Profile != "" || d.Trust != "" || d.Index >= 0 {
		about = &sarifDocument{Profile: d.Profile, Trust: d.Trust}
		if d.Index >= 0 {
			i := d.Index
			about.Index = &i
		}
	}
	for i, f := range d.Findings {
		at := loc
		if p := position(d, i); p.Line > 0 {
			at.Physical.Region = &sarifRegion{p.Line, p.Column}
		}
		res := sarifResult{RuleID: f.Rule.ID, Level: f.Severity(r.o.Strict).String(), Message: sarifText{f.Detail()},
			Locations: []sarifLocation{at}, Properties: about}
		if i, ok := r.index[f.Rule.ID]; ok {
			res.RuleIndex = &i
		}
		if f.Pointer != "" {
			res.Locations[0].Logical = []sarifLogical{{f.Pointer, "value"}}
		}
		if r.n > 0 {
			r.bw.WriteString(",\n")
		}
		r.n++
		r.buf.Reset()
		if err := r.enc.Encode(res); err != nil {
			return err
		}
		r.bw.WriteString("        ")
		r.bw.Write(bytes.TrimRight(r.buf.Bytes(), "\n"))
	}
	return nil
}

// sarifWhere is the physical location of a document: its file as a URI
// reference and the line it starts on. Standard input has no URI; it is
// described instead.
func sarifWhere(d *validate.Document) sarifLocation {
	var l sarifLocation
	a := &l.Physical.Artifact
	if d.Source == "<stdin>" {
		a.Description = &sarifText{"standard input"}
	} else {
		a.URI = fileURI(d.Source)
	}
	if d.Line > 0 {
		l.Physical.Region = &sarifRegion{StartLine: d.Line}
	}
	return l
}

// fileURI turns a path into a URI reference: relative paths stay relative
// (code-scanning services resolve them against the repository root),
// absolute ones become file: URIs; spaces and other reserved characters are
// percent-encoded.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive path
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

func (r *sarifReporter) Finish(s validate.Summary) error {
	if err := r.start(); err != nil {
		return err
	}
	if r.n > 0 {
		r.bw.WriteString("\n")
	}
	// An input that could not be read makes the execution unsuccessful,
	// with a notification naming it: a code-scanning service must not
	// take a partial check for a clean one.
	r.bw.WriteString("      ],\n      \"invocations\": [{\"executionSuccessful\": ")
	r.bw.WriteString(strconv.FormatBool(len(s.InputErrors) == 0))
	if len(s.InputErrors) > 0 {
		var ns []sarifNotification
		for _, e := range s.InputErrors {
			n := sarifNotification{Level: "error", Message: sarifText{e.Message}}
			if e.Source != "" {
				n.Message.Text = e.Source + ": " + e.Message
				var l sarifLocation
				l.Physical.Artifact.URI = fileURI(e.Source)
				n.Locations = []sarifLocation{l}
			}
			ns = append(ns, n)
		}
		r.buf.Reset()
		if err := r.enc.Encode(ns); err != nil {
			return err
		}
		r.bw.WriteString(", \"toolExecutionNotifications\": ")
		r.bw.Write(bytes.TrimRight(r.buf.Bytes(), "\n"))
	}
	r.bw.WriteString(", \"properties\": ")
	r.buf.Reset()
	if err := r.enc.Encode(summaryOf(s, r.o.Strict)); err != nil {
		return err
	}
	r.bw.Write(bytes.TrimRight(r.buf.Bytes(), "\n"))
	r.bw.WriteString("}]\n    }\n  ]\n}\n")
	return r.bw.Flush()
}
