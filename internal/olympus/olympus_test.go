package olympus

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/fixturetest"
	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
)

var resignFixtures = flag.Bool("resign", false, "re-sign the Olympus fixtures with fixtures/olympus/hmac.key")

const fixtures = "../../fixtures/olympus"

// decode stands in for the strict decoder: the same value shapes (json.Number).
// decode is the strict decoder validate uses, so fixtures meet Check
// exactly as documents do in production; a fixture must decode cleanly.
func decode(t testing.TB, raw []byte) any {
	t.Helper()
	v, findings, ok := jsonx.Decode(raw)
	if !ok || len(findings) != 0 {
		t.Fatalf("decode: %v", findings)
	}
	return v
}

func fixtureKey(t testing.TB) []byte {
	t.Helper()
	k, err := LoadKey(filepath.Join(fixtures, "hmac.key"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// fixtureProfile is the profile the fixtures are judged by, the same as
// aghcheck validate --attachments-root fixtures/olympus/attachments
// --hmac-key-file fixtures/olympus/hmac.key.
func fixtureProfile(t testing.TB) *Profile {
	t.Helper()
	p, err := New(Options{AttachmentsRoot: filepath.Join(fixtures, "attachments"), HMACKey: fixtureKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ids(fs []rules.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule.ID)
	}
	sort.Strings(out)
	return out
}

func TestFixtures(t *testing.T) {
	if *resignFixtures {
		resign(t)
	}
	p := fixtureProfile(t)
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(fixtures, dir, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no fixtures in %s", dir)
		}
		for _, file := range files {
			name := filepath.Base(file)
			t.Run(dir+"/"+name, func(t *testing.T) {
				raw, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				v := decode(t, raw)
				if !p.Detect(v.(map[string]any)) {
					t.Fatalf("not detected as %s", p.Name())
				}
				got := p.Check(raw, v)
				if dir == "valid" {
					if len(got) != 0 {
						t.Fatalf("valid fixture has findings: %v", got)
					}
					return
				}
				fixturetest.Exactly(t, name, got)
				for _, f := range got {
					if f.Rule.Profile != "olympus" && f.Rule.Profile != "input" {
						t.Errorf("rule %s has profile %s", f.Rule.ID, f.Rule.Profile)
					}
				}
			})
		}
	}
}

var sigField = regexp.MustCompile(`"signature": "[^"]*"`)

// resign rewrites each fixture's signature in place (formatting kept) so the
// fixtures stay valid when the canonical form or a fixture changes. The
// signature fixtures are made wrong on purpose, each its own way.
func resign(t *testing.T) {
	key := fixtureKey(t)
	files, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.json"))
	for _, file := range files {
		name := filepath.Base(file)
		if strings.HasPrefix(name, "OLY-SIGNATURE-") {
			continue
		}
		raw, _ := os.ReadFile(file)
		doc, ok := decode(t, raw).(map[string]any)
		if _, signed := doc["authentication"].(map[string]any); !ok || !signed || !sigField.Match(raw) {
			continue
		}
		k := key
		switch name {
		case "OLY-SIGNATURE__wrong-key.json":
			k = []byte("not-the-fixture-key")
		case "OLY-SIGNATURE__tampered-after-signing.json":
			// What was signed said "scheduler"; the file says "dispatcher".
			doc["protocol_message"].(map[string]any)["payload"].(map[string]any)["task"] = "Add a retry budget to the scheduler"
		}
		sig, err := Signature(doc, k)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw = sigField.ReplaceAll(raw, []byte(`"signature": "`+sig+`"`))
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFindingsGolden pins what people read: pointer, expected, found and
// message of every finding the invalid fixtures produce.
func TestFindingsGolden(t *testing.T) {
	p := fixtureProfile(t)
	files, _ := filepath.Glob(filepath.Join(fixtures, "invalid", "*.json"))
	var b strings.Builder
	for _, file := range files {
		raw, _ := os.ReadFile(file)
		b.WriteString(filepath.Base(file) + "\n")
		for _, f := range p.Check(raw, decode(t, raw)) {
			b.WriteString("  " + f.String() + "\n")
		}
	}
	golden.Check(t, filepath.Join("testdata", "findings.golden"), []byte(b.String()))
}
