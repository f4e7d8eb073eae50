package agh

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// The fast path's one promise: what CheckClean calls clean, the full check
// finds nothing in (no finding at all, trust "unverified"). These tests hold
// it to that over the fixtures, over systematic mutants of them (every
// member deleted, every value replaced by values chosen to trip each rule,
// members added) under each option set that changes a rule, and FuzzFastPath
// over whatever the fuzzer finds.

// fastOptionSets are the option sets the fast path serves, one per group of
// rules they change.
var fastOptionSets = map[string]Options{
	"default": {},
	"now":     {Now: 1776366300, MaxReplayAge: 200},
	"reference": {Now: 1776366100, Errata: func() Errata {
		e := Reference()
		e.RejectSecretKeys = false // the fast path stands aside for it
		return e
	}()},
	"skips": {Errata: Errata{SkipDirectIDDerivation: true, SkipCapabilityDigest: true}},
}

// assertFast fails t when c's fast path calls raw clean and the full check
// does not; it reports whether the fast path settled raw.
func assertFast(t testing.TB, name string, c *Checker, raw []byte) bool {
	t.Helper()
	state, ok := c.CheckClean(raw)
	if !ok {
		return false
	}
	if res := c.CheckBytes(raw); len(res.Findings) > 0 || res.Trust != state {
		t.Fatalf("%s: the fast path calls clean (trust %q) what the full check reports (trust %q):%s\n%s",
			name, state, res.Trust, dump(res.Findings), raw)
	}
	return true
}

func fixtureDocs(t testing.TB) map[string][]byte {
	docs := map[string][]byte{}
	for _, dir := range []string{"seed", "valid", "invalid"} {
		for _, f := range fixtureFiles(t, dir) {
			docs[dir+"/"+filepath.Base(f)] = mustRead(t, f)
		}
	}
	return docs
}

func TestFastPathFixtures(t *testing.T) {
	for oname, o := range fastOptionSets {
		t.Run(oname, func(t *testing.T) {
			c := mustChecker(t, o)
			for name, raw := range fixtureDocs(t) {
				t.Run(name, func(t *testing.T) {
					settled := assertFast(t, oname+" "+name, c, raw)
					// The fast path must earn its keep: every valid fixture without a
					// proof is settled by it under the default options. A capability
					// brief or catalog is judged against the card beside it, which
					// only the full check reads.
					full := bytes.Contains(raw, []byte(`"proof": {`)) || bytes.Contains(raw, []byte(ExtCapabilitiesBrief)) || bytes.Contains(raw, []byte(ExtCapabilityCatalog))
					if oname == "default" && strings.HasPrefix(name, "valid/") && !full && !settled {
						t.Error("the fast path does not settle a valid fixture")
					}
				})
			}
		})
	}
}

// The fast path looks names up as bytes (TestFieldTable as strings).
func TestFieldNamed(t *testing.T) {
	for i, f := range fields {
		if got, ok := lookupField([]byte(f.name)); !ok || got != field(i) {
			t.Errorf("lookupField(%q) = %d, %v", f.name, got, ok)
		}
	}
	if _, ok := lookupField([]byte("interaction_id")); ok {
		t.Error("lookupField knows interaction_id")
	}
}

// The fast path stands aside where every envelope needs more than the rules
// it asks about.
func TestFastPathOff(t *testing.T) {
	raw := mustRead(t, filepath.Join("..", "..", "fixtures", "agh", "valid", "say-thread-broadcast.json"))
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"full-schema", Options{FullSchema: true}},
		{"require-verified", Options{RequireVerified: true}},
		{"reject-secret-keys", Options{Errata: Errata{RejectSecretKeys: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := mustChecker(t, tc.o).CheckClean(raw); ok {
				t.Errorf("%+v: the fast path settles an envelope", tc.o)
			}
		})
	}
	if _, ok := mustChecker(t, Options{}).CheckClean(raw); !ok {
		t.Error("the fast path does not settle say-thread-broadcast")
	}
}

// mutationValues replace member values: each trips some rule somewhere
// (type, grammar, enum, blank, null, number form) or satisfies one.
var mutationValues = []any{
	nil, "", " ", "x", " x ", "X", "a@b", "ab.cd@0123456789abcdef0123456789abcdef", "a.b", "<&>", "\u2028", "é",
	"direct", "thread", "request", "response", "accepted", "rejected", "canceled", "completed", "malformed", "bogus_code",
	"agh-network/v0", "work_x", "work_a/b", "thread_abc", "direct_0123456789abcdef0123456789abcdef",
	"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	json.Number("0"), json.Number("-0"), json.Number("-1"), json.Number("1.5"), json.Number("1e3"),
	json.Number("1776366000"), json.Number("99999999999999999999"), true,
	[]any{}, []any{"x"}, []any{"x", " x"}, []any{""}, []any{json.Number("1")}, map[string]any{}, map[string]any{"a.b": "x"},
	map[string]any{"ab": json.Number("1")},
}

// mutationKeys are members added to every object.
var mutationKeys = []string{"interaction_id", "proof", "extra", "peer_card", "query", "reason_code", "to", "work_id", "a.b", ".a", "a."}

// mutations returns mutants of node: replaced, and, inside it, every member
// or element deleted, replaced or added, recursively.
func mutations(node any, depth int) []any {
	var out []any
	if depth > 0 {
		out = append(out, mutationValues...)
	}
	switch n := node.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(n))
		with := func(k string, v any, del bool) map[string]any {
			m := maps.Clone(n)
			if del {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		for _, k := range keys {
			out = append(out, with(k, nil, true))
			for _, v := range mutations(n[k], depth+1) {
				out = append(out, with(k, v, false))
			}
		}
		for _, k := range mutationKeys {
			if _, ok := n[k]; !ok {
				out = append(out, with(k, "x", false), with(k, map[string]any{}, false))
			}
		}
	case []any:
		for i := range n {
			out = append(out, slices.Delete(slices.Clone(n), i, i+1))
			for _, v := range mutations(n[i], depth+1) {
				m := slices.Clone(n)
				m[i] = v
				out = append(out, m)
			}
		}
		out = append(out, append(slices.Clone(n), n...))
	case string:
		out = append(out, n+" ", " "+n, strings.ToUpper(n), n+"\n", n[:len(n)/2])
	}
	return out
}

// encode writes v as JSON with "kind" first when kindFirst (so a body is
// read knowing its kind) or last (so it is read after the fact).
func encode(b *bytes.Buffer, v any, kindFirst bool) {
	switch t := v.(type) {
	case map[string]any:
		keys := slices.SortedFunc(maps.Keys(t), func(a, b string) int {
			if (a == "kind") != (b == "kind") {
				if (a == "kind") == kindFirst {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, k, kindFirst)
			b.WriteByte(':')
			encode(b, t[k], kindFirst)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, e, kindFirst)
		}
		b.WriteByte(']')
	case string:
		// Verbatim where JSON allows it, so that <, > and & (which
		// json.Marshal escapes) reach the fast path as themselves.
		if strings.ContainsAny(t, "\"\\") || strings.IndexFunc(t, func(r rune) bool { return r < 0x20 }) >= 0 {
			enc, _ := json.Marshal(t)
			b.Write(enc)
		} else {
			b.WriteString(`"` + t + `"`)
		}
	default:
		enc, _ := json.Marshal(t)
		b.Write(enc)
	}
}

// redigested adds, for every mutant with a capability, a copy whose digest
// is recomputed, so that the digest check is exercised on all the strings
// the mutants hold, not only refused as a mismatch.
func redigested(vs []any) []any {
	out := vs
	for _, v := range vs {
		env, _ := v.(map[string]any)
		body, _ := env["body"].(map[string]any)
		capDoc, _ := body["capability"].(map[string]any)
		digest, err := CapabilityDigest(capDoc)
		if capDoc == nil || err != nil || digest == capDoc["digest"] {
			continue
		}
		c2 := maps.Clone(capDoc)
		c2["digest"] = digest
		b2 := maps.Clone(body)
		b2["capability"] = c2
		e2 := maps.Clone(env)
		e2["body"] = b2
		out = append(out, e2)
	}
	return out
}

// mutants encodes every mutation of the clean fixtures both ways.
func mutants(t testing.TB) [][]byte {
	var out [][]byte
	for _, dir := range []string{"valid", "seed"} {
		for _, f := range fixtureFiles(t, dir) {
			for _, v := range redigested(mutations(decode(t, mustRead(t, f)), 0)) {
				for _, kindFirst := range []bool{true, false} {
					var b bytes.Buffer
					encode(&b, v, kindFirst)
					out = append(out, b.Bytes())
				}
			}
		}
	}
	return out
}

// fastExpected reports whether the fast path must settle raw when it is
// clean: unless it holds a proof to verify, an escape (in a member name,
// or in a capability string the digest would have to escape), or a
// capability brief or catalog (judged against the card beside it).
func fastExpected(raw []byte) bool {
	return !bytes.Contains(raw, []byte(`"proof":{`)) && !bytes.Contains(raw, []byte(`\`)) &&
		!bytes.Contains(raw, []byte(ExtCapabilitiesBrief)) && !bytes.Contains(raw, []byte(ExtCapabilityCatalog)) &&
		!(bytes.Contains(raw, []byte(`"kind":"capability"`)) && bytes.ContainsAny(raw, "<>&\u2028\u2029"))
}

// The digest the fast path builds writes strings verbatim: exactly those
// encoding/json writes verbatim (the others go to the full check).
func TestDigestStringsVerbatim(t *testing.T) {
	var samples []string
	for r := rune(0); r < 0x3000; r++ {
		samples = append(samples, string(r), "a"+string(r)+"b")
	}
	samples = append(samples, "\ufffd", "\U0001F600", "plain text", "")
	for _, v := range samples {
		enc, _ := json.Marshal(v)
		verbatim := string(enc) == `"`+v+`"`
		if needsEscape([]byte(v)) == verbatim {
			t.Errorf("%q: needsEscape %v, encoding/json writes %s", v, !verbatim, enc)
		}
	}
}

// raceDetector is set under -race (race_test.go).
var raceDetector bool

func TestFastPathMutants(t *testing.T) {
	docs := mutants(t)
	// For a differential run of two aghcheck builds over the same mutants
	// (docs/benchmarks.md): AGHCHECK_MUTANTS_OUT=file writes them as NDJSON.
	if out := os.Getenv("AGHCHECK_MUTANTS_OUT"); out != "" {
		if err := os.WriteFile(out, append(bytes.Join(docs, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if raceDetector || testing.Short() { // every 13th mutant: -race is slow, -short is make check-rule's
		sample := docs[:0]
		for i := 0; i < len(docs); i += 13 {
			sample = append(sample, docs[i])
		}
		docs = sample
	}
	for oname, o := range fastOptionSets {
		t.Run(oname, func(t *testing.T) {
			c := mustChecker(t, o)
			settled := 0
			for _, raw := range docs {
				if assertFast(t, oname, c, raw) {
					settled++
				} else if fastExpected(raw) && len(c.CheckBytes(raw).Findings) == 0 {
					t.Errorf("the fast path leaves a clean envelope to the full check:\n%s", raw)
				}
			}
			t.Logf("%d mutants, %d settled by the fast path", len(docs), settled)
		})
	}
}

// A member repeated at the top level or in the body (INPUT-DUPLICATE-KEY)
// is never clean to the fast path, which compares the top level's names
// itself: each member of each clean fixture written twice, with its own
// value and with another, and an unknown member twice where unknown
// members are allowed.
func TestFastPathRepeatedMembers(t *testing.T) {
	opts := maps.Clone(fastOptionSets)
	opts["unknown"] = Options{Errata: Errata{AllowUnknownFields: true}}
	for oname, o := range opts {
		c := mustChecker(t, o)
		tried := 0
		for _, dir := range []string{"valid", "seed"} {
			for _, f := range fixtureFiles(t, dir) {
				env := decode(t, mustRead(t, f)).(map[string]any)
				body, _ := env["body"].(map[string]any)
				var docs [][]byte
				for k, v := range env {
					docs = append(docs, repeated(env, k, v), repeated(env, k, "x"))
				}
				for k, v := range body {
					b := repeated(body, k, v)
					rest := maps.Clone(env)
					delete(rest, "body")
					var enc bytes.Buffer
					encode(&enc, rest, true)
					docs = append(docs, append(append(enc.Bytes()[:enc.Len()-1], `,"body":`...), append(b, '}')...))
				}
				withX := maps.Clone(env)
				withX["x_extra"] = 1
				docs = append(docs, repeated(withX, "x_extra", 2))
				for _, raw := range docs {
					tried++
					if _, ok := c.CheckClean(raw); ok {
						t.Fatalf("%s: the fast path calls clean an envelope with a repeated member:\n%s", oname, raw)
					}
					if !slices.ContainsFunc(c.CheckBytes(raw).Findings, func(f rules.Finding) bool { return f.Rule == rules.InputDuplicateKey }) {
						t.Fatalf("%s: the full check finds no repeated member in\n%s", oname, raw)
					}
				}
			}
		}
		if tried == 0 {
			t.Fatal("no fixtures")
		}
	}
}

// repeated writes m (kind first) with member k written once more, first,
// holding v.
func repeated(m map[string]any, k string, v any) []byte {
	var b, first bytes.Buffer
	encode(&b, m, true)
	first.WriteByte('{')
	encode(&first, k, true)
	first.WriteByte(':')
	encode(&first, v, true)
	first.WriteByte(',')
	return append(first.Bytes(), b.Bytes()[1:]...)
}

func FuzzFastPath(f *testing.F) {
	for _, raw := range fixtureDocs(f) {
		f.Add(raw)
	}
	checkers := make([]*Checker, 0, len(fastOptionSets))
	for _, o := range fastOptionSets {
		checkers = append(checkers, mustChecker(f, o))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, c := range checkers {
			assertFast(t, "fuzz", c, raw)
		}
	})
}
