package reporter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// jsonDocument is one document in --format json; field names are stable.
type jsonDocument struct {
	Source   string        `json:"source"`
	Line     int           `json:"line"`
	Index    *int          `json:"index,omitempty"`
	Profile  string        `json:"profile"`
	Valid    bool          `json:"valid"`
	Trust    string        `json:"trust,omitempty"`
	Findings []jsonFinding `json:"findings"`
}

// jsonFinding is one finding in --format json.
type jsonFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Level    string `json:"level"`
	Pointer  string `json:"pointer"`
	// Line and Column are where Pointer's value is in the file as written.
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
	Message  string `json:"message,omitempty"`
	Clause   string `json:"clause"`
	Source   string `json:"source,omitempty"`
	// Errata are the other readings of an erratum that change the rule's
	// verdict, with their flags (catalogue.Text).
	Errata []report.ErratumReading `json:"errata,omitempty"`
}

// jsonSummary closes --format json.
type jsonSummary struct {
	Files     int  `json:"files"`
	Documents int  `json:"documents"`
	Valid     int  `json:"valid"`
	Invalid   int  `json:"invalid"`
	Errors    int  `json:"errors"`
	Warnings  int  `json:"warnings"`
	Strict    bool `json:"strict"`
	// InputErrors are the inputs that could not be read (exit 2).
	InputErrors []jsonInputError `json:"input_errors,omitempty"`
}

type jsonInputError struct {
	Source  string `json:"source,omitempty"`
	Message string `json:"message"`
}

// summaryOf is a run's summary in its --format json shape.
func summaryOf(s validate.Summary, strict bool) jsonSummary {
	j := jsonSummary{Files: s.Files, Documents: s.Documents, Valid: s.Valid, Invalid: s.Invalid,
		Errors: s.Errors, Warnings: s.Warnings, Strict: strict}
	for _, e := range s.InputErrors {
		j.InputErrors = append(j.InputErrors, jsonInputError{e.Source, e.Message})
	}
	return j
}

// toJSON converts a document to its --format json shape.
func toJSON(d *validate.Document, strict bool) jsonDocument {
	j := jsonDocument{Source: d.Source, Line: d.Line, Profile: d.Profile, Valid: d.Valid, Trust: d.Trust,
		Findings: make([]jsonFinding, 0, len(d.Findings))}
	if d.Index >= 0 {
		i := d.Index
		j.Index = &i
	}
	for i, f := range d.Findings {
		sev := f.Severity(strict)
		var at validate.Position // only where the validator located it
		if i < len(d.At) {
			at = d.At[i]
		}
		j.Findings = append(j.Findings, jsonFinding{Rule: f.Rule.ID, Severity: sev.String(), Level: f.Rule.Severity.Level(),
			Pointer: f.Pointer, Line: at.Line, Column: at.Column, Expected: f.Expected, Found: f.Found, Message: f.Message, Clause: f.Rule.Clause, Source: f.Rule.Source, Errata: catalogue.TextOf(f.Rule).Errata})
	}
	return j
}

// jsonReporter streams {"documents":[...],"summary":{...}}, one document per
// line, so that memory stays flat however many documents there are. Quiet
// leaves valid documents out.
type jsonReporter struct {
	w   io.Writer
	bw  *bufio.Writer
	enc *json.Encoder
	o   Options
	n   int
	buf bytes.Buffer
	doc *json.Encoder // into buf, so that HTML characters stay readable
}

func (r *jsonReporter) start() {
	if r.bw == nil {
		r.bw = bufio.NewWriterSize(r.w, 64<<10)
		r.enc = json.NewEncoder(r.bw)
		r.enc.SetEscapeHTML(false)
		r.doc = json.NewEncoder(&r.buf)
		r.doc.SetEscapeHTML(false)
		r.bw.WriteString("{\"documents\": [\n")
	}
}

func (r *jsonReporter) Item(d *validate.Document) error {
	r.start()
	if r.o.Quiet && d.Valid {
		return nil
	}
	if r.n > 0 {
		r.bw.WriteString(",\n")
	}
	r.n++
	r.buf.Reset()
	if err := r.doc.Encode(toJSON(d, r.o.Strict)); err != nil {
		return err
	}
	_, err := r.bw.Write(bytes.TrimRight(r.buf.Bytes(), "\n"))
	return err
}

// Flush writes out the documents reported so far (the separator before
// the next one comes with it).
func (r *jsonReporter) Flush() error {
	r.start()
	return r.bw.Flush()
}

func (r *jsonReporter) Finish(s validate.Summary) error {
	r.start()
	if r.n > 0 {
		r.bw.WriteString("\n")
	}
	r.bw.WriteString("],\n\"summary\": ")
	if err := r.enc.Encode(summaryOf(s, r.o.Strict)); err != nil {
		return err
	}
	r.bw.WriteString("}\n")
	return r.bw.Flush()
}
