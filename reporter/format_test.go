package reporter

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

// Each command's registry: the default first, an unknown name refused with
// the list of valid ones, aliases accepted.
func TestRegistries(t *testing.T) {
	for _, c := range []struct {
		name     string
		names    []string
		get      func(string) error
		defaults string
	}{
		{"validate", Validate.Names(), func(n string) error { _, err := Validate.Get(n); return err }, "text, json, junit, github"},
		{"run", Run.Names(), func(n string) error { _, err := Run.Get(n); return err }, "text, json, junit, html, github"},
		{"rules", Rules.Names(), func(n string) error { _, err := Rules.Get(n); return err }, "text, markdown, json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(c.names, ", "); !strings.HasPrefix(got, c.defaults) || c.names[0] != "text" {
				t.Errorf("names %q, want %q first", got, c.defaults)
			}
			for _, n := range append(c.names, "") {
				if err := c.get(n); err != nil {
					t.Errorf("Get(%q): %v", n, err)
				}
			}
			err := c.get("yaml")
			if err == nil || err.Error() != `unknown format "yaml" (want one of `+strings.Join(c.names, ", ")+")" {
				t.Errorf("Get(yaml) = %v", err)
			}
		})
	}
	if f, err := Rules.Get("md"); err != nil || f.Name != "markdown" {
		t.Errorf("md alias: %v %v", f.Name, err)
	}
}

func TestRegistryRefusesTwins(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a name registered twice did not panic")
		}
	}()
	newRegistry(ruleFormat{Name: "text"}, ruleFormat{Name: "plain", Aliases: []string{"text"}})
}

func TestRuleWriters(t *testing.T) {
	list := []*rules.Rule{rules.InputSyntax, ruleAdvice}
	for _, c := range []struct{ name, format, want string }{
		{"text-rule", "text", "INPUT-JSON-SYNTAX  [input, error MUST]\n"},
		{"text-count", "text", "\n2 rules\n"},
		{"markdown-summary", "markdown", "2 rules in 2 profiles: input, test.\n"},
		{"markdown-row", "markdown", "| `TEST-ADVICE` | warning (SHOULD) | A test document SHOULD carry advice. | reporter tests | — |\n"},
		{"json-id", "json", `"id": "TEST-ADVICE"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			w, _ := Rules.New(c.format, &b, Options{})
			if err := writeAll(w, list, list); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("%s lacks %q:\n%s", c.format, c.want, b.String())
			}
		})
	}
}

// The two spellings of a JUnit text body are the same XML.
func TestJUnitEscapedIsCDATA(t *testing.T) {
	text := "a <b> & \"c\"\nd ]]> e"
	for _, escaped := range []bool{false, true} {
		t.Run(fmt.Sprintf("escaped=%v", escaped), func(t *testing.T) {
			c := junitTestcase{Name: "n", Failure: &junitFailure{Message: "m", Text: text, Escaped: escaped},
				SystemOut: &junitText{Text: text, Escaped: escaped}}
			out, err := xml.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(out, []byte("<![CDATA[")); got == escaped {
				t.Errorf("CDATA %v in %s", got, out)
			}
			var parsed junitTestcase
			if err := xml.Unmarshal(out, &parsed); err != nil {
				t.Fatal(err)
			}
			if parsed.Failure.Text != text || parsed.SystemOut.Text != text {
				t.Errorf("read back %q / %q", parsed.Failure.Text, parsed.SystemOut.Text)
			}
		})
	}
}

// writeAll writes a result that exists whole before writing starts (the
// rule catalogue): its items, then the result.
func writeAll[I, R any](w Writer[I, R], items []I, result R) error {
	for _, it := range items {
		if err := w.Item(it); err != nil {
			return err
		}
	}
	return w.Finish(result)
}

// Quiet text writes nothing of a valid document, so the sanitiser's copy
// of it is not made; every document it prints, and every document of a
// run that is not quiet, is still copied before the writer sees it.
func TestQuietTextSkipsCopy(t *testing.T) {
	valid := &validate.Document{Source: "a\x1b.ndjson", Line: 1, Index: -1, Profile: "agh", Valid: true}
	invalid := &validate.Document{Source: "b\x1b.ndjson", Line: 2, Index: -1, Profile: "agh",
		Findings: []rules.Finding{rules.New(rules.InputSyntax, "", "a", "b")}, At: []validate.Position{{Line: 2, Column: 1}}}
	for _, quiet := range []bool{true, false} {
		var b bytes.Buffer
		w, err := Validate.New("text", &b, Options{Quiet: quiet})
		if err != nil {
			t.Fatal(err)
		}
		cw, ok := w.(cleanFlusher[*validate.Document, validate.Summary])
		if !ok {
			t.Fatalf("the text writer is a %T, not the sanitiser's", w)
		}
		copied := 0
		item := cw.item
		cw.item = func(d *validate.Document, keep ...reflect.Type) *validate.Document {
			copied++
			return item(d, keep...)
		}
		for _, d := range []*validate.Document{valid, invalid} {
			if err := cw.Item(d); err != nil {
				t.Fatal(err)
			}
		}
		cw.Flush()
		want := 2
		if quiet {
			want = 1
		}
		if copied != want {
			t.Errorf("quiet %v: %d copies, want %d", quiet, copied, want)
		}
		if out := b.String(); strings.Contains(out, "\x1b") || !strings.Contains(out, `b\x1b.ndjson:2:`) || strings.Contains(out, `a\x1b.ndjson:1:`) != !quiet {
			t.Errorf("quiet %v: output %q", quiet, out)
		}
	}
}
