package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/jcs"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// make regen (or go test ./internal/trust -run TestFixtures -update) rewrites
// fixtures/trust from the generators below (internal/golden), removing a
// file no generator makes; without -update the files must match them byte
// for byte.
const fixtureDir = "../../fixtures/trust"

// The golden test key of the trust pages: seed bytes 0x00..0x1f.
func goldenKey(t testing.TB) ed25519.PrivateKey {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	k, err := NewKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// otherKey is a second deterministic key (seed 0x20..0x3f) for substitutions.
func otherKey(t testing.TB) ed25519.PrivateKey {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(0x20 + i)
	}
	k, _ := NewKey(seed)
	return k
}

// Unsigned envelopes the signed fixtures are built from. The greet has the
// shape of the trust page's worked example; say and whois cover a
// conversation-bearing kind and a whois response's peer card.
const (
	unsignedGreet = `{
  "protocol": "agh-network/v0", "id": "msg_ed25519_jcs_01", "workspace_id": "ws_alpha",
  "kind": "greet", "channel": "builders", "from": "placeholder", "to": null, "reply_to": null,
  "trace_id": "trace_ed25519_jcs_01", "causation_id": null, "ts": 1775606300, "expires_at": null,
  "body": {"peer_card": {"peer_id": "placeholder", "display_name": "Patch Worker",
    "profiles_supported": ["agh-network/v0", "agh-network.trust.ed25519-jcs/v1"],
    "capabilities": ["test.run"], "artifacts_supported": ["capability"], "trust_modes_supported": ["verified"]}},
  "proof": null, "ext": {}
}`
	unsignedSay = `{
  "protocol": "agh-network/v0", "id": "msg_trust_say_01", "workspace_id": "ws_alpha",
  "kind": "say", "channel": "builders", "surface": "thread", "thread_id": "thread_trust_fixtures",
  "from": "placeholder", "to": "ops-coordinator.session-42", "work_id": "work_trust_fixtures_01",
  "trace_id": "trace_trust_fixtures", "ts": 1776366000, "expires_at": 1776366300,
  "body": {"text": "Signed hello: caf\u00e9 \u2603 <tag> & \"quotes\"", "intent": "request", "artifacts": []},
  "proof": null, "ext": {"acme.priority": "high", "acme.weight": 0.5}
}`
	unsignedWhoisResponse = `{
  "protocol": "agh-network/v0", "id": "msg_trust_whois_res_01", "workspace_id": "ws_alpha",
  "kind": "whois", "channel": "builders", "from": "placeholder", "to": "ops-coordinator.session-42",
  "reply_to": "msg_whois_req_001", "ts": 1776366062,
  "body": {"type": "response", "peer_card": {"peer_id": "placeholder", "display_name": "Patch Worker",
    "profiles_supported": ["agh-network/v0", "agh-network.trust.ed25519-jcs/v1"], "capabilities": ["test.run"],
    "artifacts_supported": ["capability"], "trust_modes_supported": ["verified", "unverified"]}},
  "proof": null
}`
	unsignedPlain = `{
  "protocol": "agh-network/v0", "id": "msg_trust_plain_01", "workspace_id": "ws_alpha",
  "kind": "say", "channel": "builders", "surface": "thread", "thread_id": "thread_trust_fixtures",
  "from": "patch-worker.session-19", "to": null, "ts": 1776366000,
  "body": {"text": "No proof, plain peer id."}, "proof": null
}`
)

// decodeJSON decodes as the tool does, keeping values the decoder flags but
// can still read: some fixtures carry a number outside the I-JSON range on
// purpose, to reach the JCS step.
func decodeJSON(t testing.TB, s []byte) map[string]any {
	t.Helper()
	v, fs, ok := jsonx.Decode(s)
	m, isObj := v.(map[string]any)
	if !ok || !isObj {
		t.Fatalf("decode: %v", fs)
	}
	return m
}

func signed(t testing.TB, unsigned string) map[string]any {
	t.Helper()
	env := decodeJSON(t, []byte(unsigned))
	if err := Sign(env, goldenKey(t), "patch-worker"); err != nil {
		t.Fatal(err)
	}
	return env
}

// deepCopy goes through JSON so fixtures never share maps.
func deepCopy(t testing.TB, env map[string]any) map[string]any {
	b, err := jcs.Canonicalize(env)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, b)
}

func proofOf(env map[string]any) map[string]any { return env["proof"].(map[string]any) }

type fixture struct {
	name   string // file name under fixtures/trust
	build  func(t testing.TB) map[string]any
	state  State
	ruleID string // the single finding's rule, "" for none
}

// tamper returns a builder that signs the greet and then applies f.
func tamper(f func(t testing.TB, env map[string]any)) func(t testing.TB) map[string]any {
	return func(t testing.TB) map[string]any {
		env := signed(t, unsignedGreet)
		f(t, env)
		return env
	}
}

func setProof(k, v string) func(testing.TB, map[string]any) {
	return func(_ testing.TB, env map[string]any) { proofOf(env)[k] = v }
}

func fixtures() []fixture {
	invalid := func(rule, desc string, f func(testing.TB, map[string]any)) fixture {
		return fixture{name: "invalid/" + rule + "__" + desc + ".json", build: tamper(f), state: Rejected, ruleID: rule}
	}
	return []fixture{
		{name: "valid/greet-signed.json", build: func(t testing.TB) map[string]any { return signed(t, unsignedGreet) }, state: Verified},
		{name: "valid/say-signed.json", build: func(t testing.TB) map[string]any { return signed(t, unsignedSay) }, state: Verified},
		{name: "valid/whois-response-signed.json", build: func(t testing.TB) map[string]any { return signed(t, unsignedWhoisResponse) }, state: Verified},
		{name: "unverified/plain-peer-id.json", build: func(t testing.TB) map[string]any { return decodeJSON(t, []byte(unsignedPlain)) }, state: Unverified},
		{name: "unverified/TRUST-PROFILE-UNSUPPORTED__other-profile.json", state: Unverified, ruleID: "TRUST-PROFILE-UNSUPPORTED",
			build: func(t testing.TB) map[string]any {
				env := decodeJSON(t, []byte(unsignedPlain))
				env["proof"] = map[string]any{"profile": "acme.trust.hmac/v1", "mac": "opaque"}
				return env
			}},
		{name: "unverified/TRUST-PROFILE-UNSUPPORTED__other-profile-handle-from.json", state: Unverified, ruleID: "TRUST-PROFILE-UNSUPPORTED",
			build: tamper(func(_ testing.TB, env map[string]any) {
				env["proof"] = map[string]any{"profile": "acme.trust.x509/v2", "chain": []any{"opaque"}}
			})},

		invalid("TRUST-PROOF-STRIPPED", "proof-null", func(_ testing.TB, env map[string]any) { env["proof"] = nil }),
		invalid("TRUST-PROOF-STRIPPED", "proof-absent", func(_ testing.TB, env map[string]any) { delete(env, "proof") }),
		invalid("TRUST-PROOF-OBJECT", "proof-string", func(_ testing.TB, env map[string]any) { env["proof"] = "signed" }),
		invalid("TRUST-PROOF-OBJECT", "proof-array", func(_ testing.TB, env map[string]any) { env["proof"] = []any{proofOf(env)} }),
		invalid("TRUST-PROOF-PROFILE", "profile-missing", func(_ testing.TB, env map[string]any) { delete(proofOf(env), "profile") }),
		invalid("TRUST-PROOF-PROFILE", "profile-number", func(_ testing.TB, env map[string]any) { proofOf(env)["profile"] = json.Number("1") }),
		invalid("TRUST-PROOF-ALG", "alg-eddsa", setProof("alg", "EdDSA")),
		invalid("TRUST-PROOF-ALG", "alg-lowercase", setProof("alg", "ed25519")),
		invalid("TRUST-PROOF-ALG", "alg-missing", func(_ testing.TB, env map[string]any) { delete(proofOf(env), "alg") }),
		invalid("TRUST-PUBKEY", "pubkey-padded", func(_ testing.TB, env map[string]any) { proofOf(env)["pubkey"] = proofOf(env)["pubkey"].(string) + "=" }),
		invalid("TRUST-PUBKEY", "pubkey-standard-alphabet", func(_ testing.TB, env map[string]any) {
			proofOf(env)["pubkey"] = strings.ReplaceAll(proofOf(env)["pubkey"].(string), "_", "/")
		}),
		invalid("TRUST-PUBKEY", "pubkey-31-bytes", setProof("pubkey", b64.EncodeToString(make([]byte, 31)))),
		invalid("TRUST-PUBKEY", "pubkey-missing", func(_ testing.TB, env map[string]any) { delete(proofOf(env), "pubkey") }),
		invalid("TRUST-KEY-ID", "pubkey-replaced", func(t testing.TB, env map[string]any) {
			proofOf(env)["pubkey"] = PublicKeyString(otherKey(t).Public().(ed25519.PublicKey))
		}),
		invalid("TRUST-KEY-ID", "key-id-uppercase", func(_ testing.TB, env map[string]any) {
			proofOf(env)["key_id"] = "sha256:" + strings.ToUpper(strings.TrimPrefix(proofOf(env)["key_id"].(string), "sha256:"))
		}),
		invalid("TRUST-KEY-ID", "key-id-digit-changed", func(_ testing.TB, env map[string]any) {
			k := proofOf(env)["key_id"].(string)
			proofOf(env)["key_id"] = k[:len(k)-1] + "d" // the golden key id ends in c
		}),
		invalid("TRUST-KEY-ID", "key-id-missing", func(_ testing.TB, env map[string]any) { delete(proofOf(env), "key_id") }),
		invalid("TRUST-FROM-HANDLE", "from-plain-peer-id", func(_ testing.TB, env map[string]any) { env["from"] = "patch-worker.session-19" }),
		invalid("TRUST-NICKNAME", "nickname-uppercase", func(_ testing.TB, env map[string]any) { env["from"] = "Patch-worker@" + Fingerprint(goldenPub()) }),
		invalid("TRUST-NICKNAME", "nickname-33-chars", func(_ testing.TB, env map[string]any) {
			env["from"] = strings.Repeat("a", 33) + "@" + Fingerprint(goldenPub())
		}),
		invalid("TRUST-FINGERPRINT", "fingerprint-of-other-key", func(t testing.TB, env map[string]any) {
			env["from"] = Handle("patch-worker", otherKey(t).Public().(ed25519.PublicKey))
		}),
		invalid("TRUST-FINGERPRINT", "fingerprint-full-digest", func(_ testing.TB, env map[string]any) {
			env["from"] = "patch-worker@" + strings.TrimPrefix(KeyID(goldenPub()), "sha256:")
		}),
		invalid("TRUST-SIG-ENCODING", "sig-missing", func(_ testing.TB, env map[string]any) { delete(proofOf(env), "sig") }),
		invalid("TRUST-SIG-ENCODING", "sig-padded", func(_ testing.TB, env map[string]any) { proofOf(env)["sig"] = proofOf(env)["sig"].(string) + "==" }),
		invalid("TRUST-SIG-ENCODING", "sig-with-newline", func(_ testing.TB, env map[string]any) {
			s := proofOf(env)["sig"].(string)
			proofOf(env)["sig"] = s[:43] + "\n" + s[43:]
		}),
		invalid("TRUST-SIG-ENCODING", "sig-noncanonical-trailing-bits", func(_ testing.TB, env map[string]any) {
			s := proofOf(env)["sig"].(string)
			const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
			last := strings.IndexByte(alphabet, s[len(s)-1])
			proofOf(env)["sig"] = s[:len(s)-1] + string(alphabet[last^1]) // flips a bit that carries no data
		}),
		invalid("TRUST-SIG-ENCODING", "sig-63-bytes", setProof("sig", b64.EncodeToString(make([]byte, 63)))),
		invalid("TRUST-JCS", "number-out-of-range", func(_ testing.TB, env map[string]any) { env["ext"] = map[string]any{"acme.n": json.Number("1e400")} }),
		invalid("TRUST-SIG-VERIFY", "body-changed", func(_ testing.TB, env map[string]any) {
			env["body"].(map[string]any)["peer_card"].(map[string]any)["display_name"] = "Patch Worker 2"
		}),
		invalid("TRUST-SIG-VERIFY", "ext-member-added", func(_ testing.TB, env map[string]any) { env["ext"] = map[string]any{"acme.note": "added"} }),
		invalid("TRUST-SIG-VERIFY", "null-field-removed", func(_ testing.TB, env map[string]any) { delete(env, "causation_id") }),
		invalid("TRUST-SIG-VERIFY", "null-field-set", func(_ testing.TB, env map[string]any) { env["reply_to"] = "msg_other" }),
		invalid("TRUST-SIG-VERIFY", "field-added", func(_ testing.TB, env map[string]any) { env["acme_extra"] = true }),
		invalid("TRUST-SIG-VERIFY", "ts-changed", func(_ testing.TB, env map[string]any) { env["ts"] = json.Number("1775606301") }),
		invalid("TRUST-SIG-VERIFY", "nickname-changed", func(_ testing.TB, env map[string]any) { env["from"] = "patch-bot@" + Fingerprint(goldenPub()) }),
		invalid("TRUST-SIG-VERIFY", "proof-member-added", setProof("note", "unsigned extra")),
		invalid("TRUST-SIG-VERIFY", "sig-bit-flipped", func(_ testing.TB, env map[string]any) {
			sig, _ := b64.DecodeString(proofOf(env)["sig"].(string))
			sig[10] ^= 0x01
			proofOf(env)["sig"] = b64.EncodeToString(sig)
		}),
		invalid("TRUST-SIG-VERIFY", "sig-of-other-envelope", func(t testing.TB, env map[string]any) {
			proofOf(env)["sig"] = proofOf(signed(t, unsignedSay))["sig"]
		}),
		// The Conformance page: a suite "MUST fail if the signature
		// verifies against non-canonical bytes". Signed over the worked
		// example's printed order (erratum 9), it must not verify.
		invalid("TRUST-SIG-VERIFY", "signed-over-printed-order", func(t testing.TB, env map[string]any) {
			delete(proofOf(env), "sig")
			proofOf(env)["sig"] = b64.EncodeToString(ed25519.Sign(goldenKey(t), printedOrder(env)))
		}),
		invalid("TRUST-SIG-VERIFY", "signed-by-other-key", func(t testing.TB, env map[string]any) {
			// Every binding is consistent for the other key, but the sig is
			// still the golden key's.
			pub := otherKey(t).Public().(ed25519.PublicKey)
			env["from"] = Handle("patch-worker", pub)
			proofOf(env)["pubkey"] = PublicKeyString(pub)
			proofOf(env)["key_id"] = KeyID(pub)
		}),
	}
}

func goldenPub() ed25519.PublicKey {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	return ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
}

// render writes a fixture as indented JCS: sorted, stable, and for the
// valid ones exactly what `aghcheck sign` prints.
func render(t testing.TB, env map[string]any) []byte {
	c, err := jcs.Canonicalize(env)
	if err != nil {
		// Only the TRUST-JCS fixture gets here; encoding/json keeps the
		// json.Number text as is.
		c, err = json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := json.Indent(&b, c, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func TestFixtures(t *testing.T) {
	want := map[string]bool{}
	for _, fx := range fixtures() {
		want[fx.name] = true
		t.Run(fx.name, func(t *testing.T) {
			path := filepath.Join(fixtureDir, fx.name)
			golden.Check(t, path, render(t, fx.build(t)))
			disk, _ := os.ReadFile(path)
			state, found := Evaluate(decodeJSON(t, disk))
			checkOutcome(t, state, found, fx.state, fx.ruleID)
		})
	}
	for name, gen := range companionFiles(t) {
		want[name] = true
		t.Run(name, func(t *testing.T) { golden.Check(t, filepath.Join(fixtureDir, name), gen) })
	}
	// Every file on disk must be one we generate, so the corpus cannot
	// drift from these tables.
	n := 0
	err := filepath.WalkDir(fixtureDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "README.md" { // how to judge a directory, not a fixture
			return err
		}
		n++
		rel, _ := filepath.Rel(fixtureDir, path)
		switch {
		case want[filepath.ToSlash(rel)]:
		case golden.Updating():
			return os.Remove(path)
		default:
			t.Errorf("stray fixture %s: no generator makes it; %s to remove it", rel, golden.Command(t))
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("walking %s: %d files, %v", fixtureDir, n, err)
	}
}

// companionFiles are the non-verdict files the CLI tests use as inputs and
// golden outputs: unsigned envelopes, the golden key file, a canonical form.
func companionFiles(t testing.TB) map[string][]byte {
	key, err := MarshalKeyFile(goldenKey(t), "patch-worker")
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := jcs.Canonicalize(signed(t, unsignedGreet))
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"unsigned/greet.json":          render(t, decodeJSON(t, []byte(unsignedGreet))),
		"unsigned/say.json":            render(t, decodeJSON(t, []byte(unsignedSay))),
		"unsigned/whois-response.json": render(t, decodeJSON(t, []byte(unsignedWhoisResponse))),
		"keys/patch-worker.key.json":   key,
		"canonical/greet-signed.jcs":   canonical,
	}
}

// TestFixtureNames keeps the naming convention honest: invalid/RULE__desc
// names the rule Evaluate must report.
func TestFixtureNames(t *testing.T) {
	c, err := rules.NewCatalogue(rules.InputRules(), Rules())
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range fixtures() {
		t.Run(fx.name, func(t *testing.T) {
			dir, base := filepath.Split(fx.name)
			rule, _, hasRule := strings.Cut(strings.TrimSuffix(base, ".json"), "__")
			if hasRule != (fx.ruleID != "") || (hasRule && rule != fx.ruleID) {
				t.Errorf("%s: name does not match expected rule %q", fx.name, fx.ruleID)
			}
			if wantDir := map[State]string{Verified: "valid/", Unverified: "unverified/", Rejected: "invalid/"}[fx.state]; dir != wantDir {
				t.Errorf("%s: state %s belongs in %s", fx.name, fx.state, wantDir)
			}
			if hasRule {
				if _, ok := c.Lookup(rule); !ok {
					t.Errorf("%s: rule %s is not declared", fx.name, rule)
				}
			}
		})
	}
}

func checkOutcome(t *testing.T, state State, fs []rules.Finding, wantState State, wantRule string) {
	t.Helper()
	if state != wantState {
		t.Errorf("state %s, want %s (findings %v)", state, wantState, fs)
	}
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule.ID)
	}
	var want []string
	if wantRule != "" {
		want = []string{wantRule}
	}
	if !slices.Equal(ids, want) {
		t.Errorf("findings %v, want %v", fs, want)
	}
}
