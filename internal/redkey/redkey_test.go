package redkey

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/fixturetest"
	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/validate"
)

const fixtures = "../../fixtures/redkey"

var (
	_ validate.Profile = (*Wire)(nil)
	_ validate.Profile = (*Card)(nil)
)

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

// profiles are those the fixtures are judged by, as with
// aghcheck validate --registry fixtures/redkey/registry.yaml [--role-topic].
func profiles(t testing.TB, roleTopic bool) []validate.Profile {
	t.Helper()
	reg, err := LoadRegistry(filepath.Join(fixtures, "registry.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return []validate.Profile{NewWire(WireOptions{RoleTopic: roleTopic}), NewCard(CardOptions{Registry: reg})}
}

// detectAndCheck applies the one profile that recognises the document.
func detectAndCheck(t testing.TB, ps []validate.Profile, raw []byte) []rules.Finding {
	t.Helper()
	v := decode(t, raw)
	var hit validate.Profile
	for _, p := range ps {
		if p.Detect(v.(map[string]any)) {
			if hit != nil {
				t.Fatalf("detected as both %s and %s", hit.Name(), p.Name())
			}
			hit = p
		}
	}
	if hit == nil {
		t.Fatal("not detected by any RedKey profile")
	}
	return hit.Check(raw, v)
}

func TestFixtures(t *testing.T) {
	for _, set := range []struct {
		dir       string
		roleTopic bool
	}{{"", false}, {"role-topic", true}} {
		ps := profiles(t, set.roleTopic)
		for _, kind := range []string{"valid", "invalid"} {
			files, _ := filepath.Glob(filepath.Join(fixtures, set.dir, kind, "*.json"))
			if len(files) == 0 {
				t.Fatalf("no fixtures in %s/%s", set.dir, kind)
			}
			for _, file := range files {
				name := filepath.Base(file)
				t.Run(filepath.Join(set.dir, kind, name), func(t *testing.T) {
					raw, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					got := detectAndCheck(t, ps, raw)
					if kind == "valid" {
						if len(got) != 0 {
							t.Fatalf("valid fixture has findings: %v", got)
						}
						return
					}
					fixturetest.Exactly(t, name, got)
				})
			}
		}
	}
}

// TestEveryRuleHasAnInvalidFixture keeps the fixture corpus complete.
func TestEveryRuleHasAnInvalidFixture(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.json"))
	more, _ := filepath.Glob(filepath.Join(fixtures, "*", "*", "*.json"))
	have := map[string]bool{}
	for _, f := range append(files, more...) {
		have[strings.SplitN(filepath.Base(f), "__", 2)[0]] = true
	}
	for _, r := range Rules() {
		if (r.Profile == wireProfile || r.Profile == cardProfile) && !have[r.ID] {
			t.Errorf("rule %s has no invalid fixture", r.ID)
		}
	}
}

// TestNoRegistry: a card judged without a registry says which check it
// could not make; one without route_to or output_types has nothing left
// unchecked.
func TestNoRegistry(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(fixtures, "no-registry", "invalid", "RKC-REGISTRY-UNCHECKED__slugs-unchecked.json"))
	if err != nil {
		t.Fatal(err)
	}
	card := NewCard(CardOptions{})
	got := card.Check(raw, decode(t, raw))
	if len(got) != 1 || got[0].Rule != RuleCardRegistryUnchecked || got[0].Rule.Severity != rules.Warning {
		t.Fatalf("without a registry: %v, want RKC-REGISTRY-UNCHECKED (a warning) alone", got)
	}
	doc := decode(t, raw).(map[string]any)
	delete(doc, "escalation_rules")
	delete(doc, "output_types")
	for _, f := range card.Check(nil, doc) {
		if f.Rule == RuleCardRegistryUnchecked {
			t.Errorf("a card with no slugs to check: %v", f)
		}
	}
}

// TestTemplates judges the seed's templates verbatim. They are shapes, not
// messages: placeholders ("ISO8601", "0.0.XXXXX") and alternatives
// ("a | b") break the rules a real message must keep. The verdicts are
// pinned so docs/formats.md can say exactly how a template is judged.
func TestTemplates(t *testing.T) {
	want := map[string][]string{
		"envelope.json":    {"RKW-SENDER", "RKW-TS", "RKW-TYPE"},
		"brief.json":       {"RKW-BRIEF-OUTPUT-CONTRACT-TYPE", "RKW-TASK-ID", "RKW-TASK-ID"},
		"inbox.json":       {"RKW-INBOX-MESSAGE-TYPE", "RKW-SENDER", "RKW-TASK-ID", "RKW-TS"},
		"complete.json":    {"RKW-COMPLETE-VERIFICATION-MECHANICAL", "RKW-COMPLETE-VERIFICATION-SEMANTIC", "RKW-TASK-ID", "RKW-TS"},
		"blocked.json":     {"RKW-BLOCKED-BLOCKER-TYPE", "RKW-TASK-ID", "RKW-TS"},
		"claim.json":       {"RKW-TASK-ID", "RKW-TS"},
		"card-schema.json": {"RKC-ESCALATION-ROUTE-TO", "RKC-ESCALATION-VIA", "RKC-OUTPUT-TYPE"},
	}
	ps := profiles(t, false)
	files, _ := filepath.Glob(filepath.Join(fixtures, "templates", "*.json"))
	if len(files) != len(want) {
		t.Fatalf("%d templates, want %d", len(files), len(want))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, _ := os.ReadFile(file)
			var got []string
			for _, f := range detectAndCheck(t, ps, raw) {
				got = append(got, f.Rule.ID)
			}
			sort.Strings(got)
			if w := want[filepath.Base(file)]; !reflect.DeepEqual(got, w) {
				t.Errorf("%s: got %v, want %v", filepath.Base(file), got, w)
			}
		})
	}
}

func TestFindingsGolden(t *testing.T) {
	ps := profiles(t, false)
	files, _ := filepath.Glob(filepath.Join(fixtures, "invalid", "*.json"))
	more, _ := filepath.Glob(filepath.Join(fixtures, "templates", "*.json"))
	var b strings.Builder
	for _, file := range append(files, more...) {
		raw, _ := os.ReadFile(file)
		b.WriteString(filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file)) + "\n")
		for _, f := range detectAndCheck(t, ps, raw) {
			b.WriteString("  " + f.String() + "\n")
		}
	}
	golden.Check(t, filepath.Join("testdata", "findings.golden"), []byte(b.String()))
}

func TestRoleTopicBoundary(t *testing.T) {
	w := NewWire(WireOptions{RoleTopic: true})
	base := `{"wire":"1.0","type":"claim","sender":"quinn","ts":"2026-04-28T11:00:00Z","payload":{"task_id":"0.0.1","agent":"quinn","role":"` // + role + `"}}`
	mk := func(size int) []byte {
		pad := size - len(base) - len(`"}}`)
		return []byte(base + strings.Repeat("r", pad) + `"}}`)
	}
	for size, want := range map[int]int{1023: 0, 1024: 1, 4096: 1} {
		t.Run(fmt.Sprintf("%d-bytes", size), func(t *testing.T) {
			raw := mk(size)
			if len(raw) != size {
				t.Fatalf("built %d bytes, want %d", len(raw), size)
			}
			got := w.Check(append(raw, "\n\n"...), decode(t, raw)) // trailing whitespace is not counted
			if len(got) != want {
				t.Errorf("%v", got)
			}
		})
	}
	if got := NewWire(WireOptions{}).Check(mk(4096), decode(t, mk(4096))); len(got) != 0 {
		t.Errorf("without --role-topic size is not judged: %v", got)
	}
}

// TestForcedProfiles covers documents a forced --profile can hand over:
// not objects, the other format, a card without card_version.
func TestForcedProfiles(t *testing.T) {
	w, c := NewWire(WireOptions{}), NewCard(CardOptions{})
	for _, tc := range []struct {
		name string
		p    validate.Profile
		doc  string
		want []string
	}{
		{"wire/array", w, `[]`, []string{"RKW-FIELD-TYPE"}},
		{"wire/null", w, `null`, []string{"RKW-FIELD-TYPE"}},
		{"wire/empty-object", w, `{}`, []string{"RKW-ENVELOPE-REQUIRED", "RKW-ENVELOPE-REQUIRED", "RKW-ENVELOPE-REQUIRED", "RKW-ENVELOPE-REQUIRED", "RKW-ENVELOPE-REQUIRED"}},
		{"card/string", c, `"card"`, []string{"RKC-FIELD-TYPE"}},
		{"card/version-number", c, `{"card_version":1}`, []string{"RKC-VERSION"}},
		{"card/no-version", c, `{"identity":{}}`, nil}, // every member missing: checked below by count
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.p.Check([]byte(tc.doc), decode(t, []byte(tc.doc)))
			var ids []string
			for _, f := range got {
				ids = append(ids, f.Rule.ID)
			}
			if tc.want == nil {
				if len(ids) < 10 || slices.ContainsFunc(ids, func(s string) bool { return s != "RKC-REQUIRED" }) {
					t.Errorf("%s: %v", tc.doc, ids)
				}
				return
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("%s %s: got %v, want %v", tc.p.Name(), tc.doc, ids, tc.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	w, c := NewWire(WireOptions{}), NewCard(CardOptions{})
	for _, tc := range []struct {
		name, doc string
		want      [2]bool
	}{
		{"wire", `{"wire":"9"}`, [2]bool{true, false}},
		{"card", `{"card_version":"1.0"}`, [2]bool{false, true}},
		{"agh", `{"protocol":"agh-network/v0"}`, [2]bool{false, false}},
		{"olympus", `{"envelope":{},"protocol_message":{}}`, [2]bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := decode(t, []byte(tc.doc)).(map[string]any)
			if got := [2]bool{w.Detect(m), c.Detect(m)}; got != tc.want {
				t.Errorf("Detect(%s) = %v", tc.doc, got)
			}
		})
	}
}

// TestOversized: megabytes of prose are counted, not echoed.
func TestOversized(t *testing.T) {
	big := strings.Repeat("All work and no play. ", 200000) // ~4.4 MB, 1e6 words
	doc := map[string]any{"wire": "1.0", "type": "brief", "sender": "system", "ts": "2026-04-28T00:00:00Z",
		"payload": map[string]any{"goal": big, "context": big}}
	got := NewWire(WireOptions{}).Check(nil, doc)
	var ids []string
	for _, f := range got {
		if len(f.String()) > 400 {
			t.Errorf("finding echoes the value: %d bytes", len(f.String()))
		}
		if f.Rule.Severity == rules.Error {
			ids = append(ids, f.Rule.ID)
		}
	}
	if !reflect.DeepEqual(ids, []string{"RKW-BRIEF-GOAL-ONE-SENTENCE", "RKW-BRIEF-CONTEXT-WORDS"}) {
		t.Fatalf("got %v", ids)
	}
}

func TestRegistry(t *testing.T) {
	r, err := ParseRegistry([]byte(`{"agents": ["quinn"], "roles": ["roles.ba"], "output_contracts": ["code_commit"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{"quinn": true, "roles.ba": true, "exec": true, "code_commit": false, "mindy": false} {
		t.Run("routable/"+s, func(t *testing.T) {
			if r.routable(s) != want {
				t.Errorf("routable(%s) = %v", s, !want)
			}
		})
	}
	for _, tc := range []struct{ name, bad string }{
		{"empty", ""},
		{"unknown-member", "agents: [quinn]\noutput_contract: [x]\n"},
		{"space-in-slug", "agents: ['a b']\n"},
		{"not-yaml", "agents: quinn: x\n"},
		{"empty-slug", "roles: [\"\"]\n"},
	} {
		t.Run("bad/"+tc.name, func(t *testing.T) {
			if _, err := ParseRegistry([]byte(tc.bad)); err == nil {
				t.Errorf("ParseRegistry(%q): want error", tc.bad)
			}
		})
	}
	if _, err := LoadRegistry(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file: want error")
	}
}

func TestRulesRegistered(t *testing.T) {
	n := 0
	for _, r := range Rules() {
		if r.Profile != wireProfile && r.Profile != cardProfile {
			continue
		}
		n++
		if r.Source == "" || !strings.HasPrefix(r.ID, "RK") {
			t.Errorf("rule %s: source %q", r.ID, r.Source)
		}
		// The one SHOULD of the seed, and the warning that a check was not
		// made, are the only rules that are not errors.
		if r.Severity != rules.Error && r.ID != RuleWirePayloadMember.ID && r.ID != RuleCardRegistryUnchecked.ID {
			t.Errorf("rule %s is not an error: the seed states it", r.ID)
		}
	}
	if n != 31 {
		t.Errorf("%d RedKey rules registered", n)
	}
}

func FuzzWire(f *testing.F) { fuzzProfile(f, NewWire(WireOptions{RoleTopic: true})) }

func FuzzCard(f *testing.F) {
	reg, _ := LoadRegistry(filepath.Join(fixtures, "registry.yaml"))
	fuzzProfile(f, NewCard(CardOptions{Registry: reg}))
}

func fuzzProfile(f *testing.F, p validate.Profile) {
	for _, pat := range []string{"*/*.json", "*/*/*.json"} {
		files, _ := filepath.Glob(filepath.Join(fixtures, pat))
		for _, file := range files {
			b, _ := os.ReadFile(file)
			f.Add(b)
		}
	}
	f.Add([]byte(`{"wire":"1.0","type":"inbox","payload":{"priority":1e999,"ref_task_id":[]}}`))
	f.Add([]byte(`{"card_version":"1.0","escalation_rules":[null,{"via":1}],"voice":{"example":null}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, _, ok := jsonx.Decode(raw)
		if !ok {
			return
		}
		if m, ok := v.(map[string]any); ok {
			p.Detect(m)
		}
		for _, fd := range p.Check(raw, v) {
			if fd.Rule == nil {
				t.Fatal("finding without a rule")
			}
		}
	})
}

func BenchmarkWireBrief(b *testing.B) {
	benchFixture(b, NewWire(WireOptions{}), "valid/wire-brief.json")
}

func BenchmarkCardQuinn(b *testing.B) {
	reg, _ := LoadRegistry(filepath.Join(fixtures, "registry.yaml"))
	benchFixture(b, NewCard(CardOptions{Registry: reg}), "valid/card-quinn-reference.json")
}

func benchFixture(b *testing.B, p validate.Profile, name string) {
	raw, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		b.Fatal(err)
	}
	v := decode(b, raw)
	b.ReportAllocs()
	for b.Loop() {
		if len(p.Check(raw, v)) != 0 {
			b.Fatal("findings")
		}
	}
}

// TestTimestampLeapSecond: RFC 3339 allows second 60 at 23:59 UTC (in any
// offset), and nowhere else; time.Parse alone refuses every second 60.
func TestTimestampLeapSecond(t *testing.T) {
	for ts, want := range map[string]bool{
		"2016-12-31T23:59:60Z":      true,
		"2016-12-31T23:59:60.5Z":    true,
		"2017-01-01T08:59:60+09:00": true,
		"2016-12-31T18:59:60-05:00": true,
		"2016-12-31T23:58:60Z":      false,
		"2016-12-31T12:59:60Z":      false,
		"2016-12-31T23:59:61Z":      false,
		"2016-12-31T24:00:00Z":      false,
	} {
		t.Run(ts, func(t *testing.T) {
			if got := timestampProblem(ts) == ""; got != want {
				t.Errorf("valid = %v, want %v (%q)", got, want, timestampProblem(ts))
			}
		})
	}
}
