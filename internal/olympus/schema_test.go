package olympus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/schemas"
)

// TestEverySchemaConstraintHasARule walks the embedded schema: every
// asserting keyword must map to a specific rule, never the OLY-SCHEMA fallback.
func TestEverySchemaConstraintHasARule(t *testing.T) {
	raw, err := schemas.Read(SchemaFile)
	must(t, err)
	var s any
	must(t, json.Unmarshal(raw, &s))
	asserting := map[string]bool{"type": true, "required": true, "additionalProperties": true,
		"const": true, "enum": true, "pattern": true, "format": true}
	n := 0
	var walk func(loc string, v any)
	walk = func(loc string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, sub := range m {
			if asserting[k] {
				n++
				if r := schemaRule(loc + "/" + k); r == RuleSchema {
					t.Errorf("%s/%s has no specific rule", loc, k)
				}
			}
			switch k {
			case "properties":
				for name, ps := range sub.(map[string]any) {
					walk(loc+"/properties/"+name, ps)
				}
			case "items":
				walk(loc+"/items", sub)
			}
		}
	}
	walk("", s)
	if n < 30 {
		t.Fatalf("walked only %d constraints: the walk is broken", n)
	}
}

// TestSeedSchemaAgreement keeps our schema honest against the seed's: the
// same required lists, enums, patterns and consts at the same places.
func TestSeedSchemaAgreement(t *testing.T) {
	seed, err := os.ReadFile("/work/shared/seeds/002_1d645ce7325413ef.txt")
	if err != nil {
		t.Skip("seed not available outside the project workspace")
	}
	text := string(seed)
	start := strings.Index(text, "{")
	end := strings.Index(text, "\natom.toml")
	var want, got any
	must(t, json.Unmarshal([]byte(text[start:end]), &want))
	raw, _ := schemas.Read(SchemaFile)
	must(t, json.Unmarshal(raw, &got))
	var cmp func(loc string, w, g any)
	cmp = func(loc string, w, g any) {
		wm, _ := w.(map[string]any)
		gm, _ := g.(map[string]any)
		for k, wv := range wm {
			switch k {
			case "required", "enum", "pattern", "const", "type", "format", "additionalProperties":
				wb, _ := json.Marshal(wv)
				gb, _ := json.Marshal(gm[k])
				if string(wb) != string(gb) {
					t.Errorf("%s/%s: seed %s, ours %s", loc, k, wb, gb)
				}
			case "properties":
				for name, ps := range wv.(map[string]any) {
					gp, _ := gm["properties"].(map[string]any)
					cmp(loc+"/properties/"+name, ps, gp[name])
				}
			case "items":
				cmp(loc+"/items", wv, gm["items"])
			}
		}
	}
	cmp("", want, got)
}

func TestDetect(t *testing.T) {
	p, _ := New(Options{})
	for _, tc := range []struct {
		name, doc string
		want      bool
	}{
		{"envelope-and-message", `{"envelope":{},"protocol_message":{}}`, true},
		{"shape-not-validity", `{"envelope":1,"protocol_message":null}`, true},
		{"envelope-only", `{"envelope":{}}`, false},
		{"agh", `{"protocol":"agh-network/v0","body":{}}`, false},
		{"redkey-wire", `{"wire":"1.0","payload":{}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Detect(decode(t, []byte(tc.doc)).(map[string]any)); got != tc.want {
				t.Errorf("Detect(%s) = %v", tc.doc, got)
			}
		})
	}
}

// TestMalformed feeds shapes a forced --profile olympus can meet.
func TestMalformed(t *testing.T) {
	p := fixtureProfile(t)
	for _, c := range []struct {
		name string
		doc  string
		want string
	}{
		{"array", `[]`, "OLY-TYPE"},
		{"string", `"envelope"`, "OLY-TYPE"},
		{"null", `null`, "OLY-TYPE"},
		{"empty-object", `{}`, "OLY-REQUIRED"},
		{"wrong-member-types", `{"envelope":[],"persona":{},"protocol_message":"x","context_attachments":[1,"a",null]}`, "OLY-TYPE"},
		{"signature-number", `{"envelope":{},"persona":"p","protocol_message":{},"authentication":{"signature":7}}`, "OLY-REQUIRED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := p.Check([]byte(c.doc), decode(t, []byte(c.doc)))
			if len(got) == 0 {
				t.Error("no findings")
				return
			}
			found := false
			for _, f := range got {
				found = found || f.Rule.ID == c.want
			}
			if !found {
				t.Errorf("want a %s among %v", c.want, got)
			}
		})
	}
}

// TestOversized: a multi-megabyte payload is checked like any other, and
// long values are cut short in findings.
func TestOversized(t *testing.T) {
	raw, doc := signedFixture(t)
	_ = raw
	big := strings.Repeat("x", 4<<20)
	doc["persona"] = 1
	doc["protocol_message"].(map[string]any)["payload"] = map[string]any{"blob": big}
	doc["envelope"].(map[string]any)["correlation_id"] = big
	// Unsigned, judged without a key: nothing left unchecked either.
	p, _ := New(Options{AttachmentsRoot: filepath.Join(fixtures, "attachments")})
	delete(doc["authentication"].(map[string]any), "signature")
	got := p.Check(nil, doc)
	if len(got) != 2 {
		t.Fatalf("want OLY-TYPE and OLY-CORRELATION-ID, got %d findings: %v", len(got), ids(got))
	}
	for _, f := range got {
		if len(f.String()) > 400 {
			t.Errorf("finding echoes the whole value (%d bytes)", len(f.String()))
		}
	}
}

func TestRulesRegistered(t *testing.T) {
	// The package's own list is what the catalogue takes from it.
	c, err := rules.NewCatalogue(Rules())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*rules.Rule{RuleSchema, RuleSenderPersona, RuleAttachmentPath, RuleSignature} {
		t.Run(r.ID, func(t *testing.T) {
			got, ok := c.Lookup(r.ID)
			if !ok || got != r || got.Profile != "olympus" || got.Severity != rules.Error || got.Source == "" {
				t.Errorf("rule %s not registered as an olympus error with a source", r.ID)
			}
		})
	}
}

func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.json"))
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte(`{"envelope":{"source_agent":1},"authentication":[],"context_attachments":[{"path":"../../x","hash":"sha256:00"}]}`))
	key := []byte("fuzz")
	p, err := New(Options{AttachmentsRoot: filepath.Join(fixtures, "attachments"), HMACKey: key})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, _, ok := jsonx.Decode(raw)
		if !ok {
			return
		}
		for _, fd := range p.Check(raw, v) {
			if fd.Rule == nil {
				t.Fatal("finding without a rule")
			}
		}
		if m, ok := v.(map[string]any); ok {
			p.Detect(m)
			if _, ok := m["authentication"].(map[string]any); ok {
				if err := Sign(m, key); err == nil {
					for _, fd := range p.Check(nil, m) {
						if strings.HasPrefix(fd.Rule.ID, "OLY-SIGNATURE") {
							t.Fatalf("signed document fails verification: %v", fd)
						}
					}
				}
			}
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	raw, doc := signedFixture(b)
	p := fixtureProfile(b)
	b.ReportAllocs()
	for b.Loop() {
		p.Check(raw, doc)
	}
}

func BenchmarkCheckNoFiles(b *testing.B) {
	raw, doc := signedFixture(b)
	p, _ := New(Options{})
	b.ReportAllocs()
	for b.Loop() {
		p.Check(raw, doc)
	}
}

// New no longer compiles the schema (the first Check does), so a broken
// embedded schema must be caught here, not by a user.
func TestEmbeddedSchemaCompiles(t *testing.T) {
	if s, err := compiled(); err != nil || s == nil {
		t.Fatalf("the embedded schema %s does not compile: %v", SchemaFile, err)
	}
}
