package reporter

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

var ruleAdvice = &rules.Rule{ID: "TEST-ADVICE", Profile: "test", Severity: rules.Warning,
	Clause: "A test document SHOULD carry advice.", Source: "reporter tests"}

// sample is a small run covering every shape a document result takes.
func sample(strict bool) ([]validate.Document, validate.Summary) {
	docs := []validate.Document{
		{Source: "msgs/a.json", Line: 1, Index: -1, Profile: "agh", Trust: "verified"},
		{Source: "msgs/b.ndjson", Line: 3, Index: -1, Profile: "agh", Trust: "unverified", Findings: []rules.Finding{
			{Rule: rules.InputDuplicateKey, Pointer: "/body/text", Expected: "unique member names", Found: `"text" more than once`, Message: `duplicate member name "text" (the last value wins) at byte 80 (line 3, column 81)`},
			{Rule: ruleAdvice, Pointer: "/ext", Expected: "advice", Found: "none"},
		}},
		{Source: "msgs/c.json", Line: 2, Index: 4, Profile: "", Findings: []rules.Finding{
			{Rule: rules.InputSyntax, Expected: "',' or '}'", Found: "end of input", Message: "unexpected end of input after object member at byte 17 (line 2, column 9)"},
		}},
		{Source: "<stdin>", Line: 1, Index: -1, Profile: "olympus", Findings: []rules.Finding{
			{Rule: ruleAdvice, Pointer: "/a,b:c", Message: "100% <odd> & \"quoted\"\nsecond line"},
		}},
	}
	var s validate.Summary
	for i := range docs {
		d := &docs[i]
		d.Valid = true
		for _, f := range d.Findings {
			if f.Severity(strict) == rules.Error {
				d.Valid = false
				s.Errors++
			} else {
				s.Warnings++
			}
		}
		s.Documents++
		if d.Valid {
			s.Valid++
		} else {
			s.Invalid++
		}
	}
	s.Files = 4
	return docs, s
}

// testCatalogue is the catalogue a SARIF golden describes: the rules of the
// sample, so that the golden does not change with every new rule.
var testCatalogue = []*rules.Rule{rules.InputDuplicateKey, rules.InputSyntax, ruleAdvice}

func render(t *testing.T, format string, o Options) []byte {
	t.Helper()
	if o.Rules == nil {
		o.Rules = testCatalogue
	}
	var b bytes.Buffer
	r, err := Validate.New(format, &b, o)
	if err != nil {
		t.Fatal(err)
	}
	docs, sum := sample(o.Strict)
	for i := range docs {
		if err := r.Item(&docs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Finish(sum); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, format := range Validate.Names() {
		for _, v := range []struct {
			suffix string
			o      Options
		}{{"", Options{}}, {"-quiet", Options{Quiet: true}}, {"-strict", Options{Strict: true}}} {
			name := format + v.suffix
			t.Run(name, func(t *testing.T) {
				got := render(t, format, v.o)
				path := filepath.Join("testdata", name+".golden")
				golden.Check(t, path, got)
				switch format {
				case "json":
					var x struct {
						Documents []jsonDocument `json:"documents"`
						Summary   jsonSummary    `json:"summary"`
					}
					if err := json.Unmarshal(got, &x); err != nil {
						t.Fatalf("not JSON: %v", err)
					}
					if x.Summary.Documents != 4 {
						t.Errorf("summary %+v", x.Summary)
					}
				case "junit":
					var x junitSuites
					if err := xml.Unmarshal(got, &x); err != nil {
						t.Fatalf("not XML: %v", err)
					}
					if x.Tests != 4 {
						t.Errorf("tests = %d", x.Tests)
					}
				}
			})
		}
	}
}

func TestColor(t *testing.T) {
	if plain := render(t, "text", Options{}); bytes.Contains(plain, []byte("\x1b[")) {
		t.Error("colour escapes without Color")
	}
	col := render(t, "text", Options{Color: true})
	if !bytes.Contains(col, []byte("\x1b[31;1minvalid")) {
		t.Errorf("no red 'invalid' with Color:\n%q", col)
	}
	// A finding's line and its clause, painted piece by piece.
	for _, want := range []string{"\x1b[1mmsgs/b.ndjson:3\x1b[22m: \x1b[31;1merror\x1b[0;22m \x1b[1mINPUT-DUPLICATE-KEY\x1b[22m at /body/text: ",
		"\x1b[33;1mwarning\x1b[0;22m \x1b[1mTEST-ADVICE\x1b[22m ", "\n    \x1b[2mSHOULD: A test document SHOULD carry advice. [reporter tests]\x1b[22m\n"} {
		if !bytes.Contains(col, []byte(want)) {
			t.Errorf("no %q with Color:\n%q", want, col)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := Validate.New("yaml", nil, Options{}); err == nil || !strings.Contains(err.Error(), "text, json, junit, github") {
		t.Errorf("err = %v", err)
	}
}

func TestEmptyRun(t *testing.T) {
	for _, f := range Validate.Names() {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			r, _ := Validate.New(f, &b, Options{})
			if err := r.Finish(validate.Summary{}); err != nil {
				t.Fatal(err)
			}
			if f == "json" && !json.Valid(b.Bytes()) {
				t.Errorf("json of an empty run is not JSON: %s", b.String())
			}
		})
	}
}
