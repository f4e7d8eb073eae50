package trust

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/jcs"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Vectors from the spec notes §2 (the trust page's test key).
func TestGoldenKeyVectors(t *testing.T) {
	pub := goldenKey(t).Public().(ed25519.PublicKey)
	for _, tc := range []struct{ name, got, want string }{
		{"pubkey", PublicKeyString(pub), "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"},
		{"key_id", KeyID(pub), "sha256:56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c"},
		{"fingerprint", Fingerprint(pub), "56475aa75463474c0285df5dbf2bcab7"},
		{"handle", Handle("patch-worker", pub), "patch-worker@56475aa75463474c0285df5dbf2bcab7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s = %s, want %s", tc.name, tc.got, tc.want)
			}
		})
	}
	k, err := KeyFromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	if err != nil || !k.Equal(goldenKey(t)) {
		t.Errorf("KeyFromHex: %v", err)
	}
	for _, tc := range []struct{ name, bad string }{
		{"empty", ""},
		{"one-byte", "00"},
		{"not-hex", "zz" + strings.Repeat("00", 31)},
		{"33-bytes", strings.Repeat("00", 33)},
	} {
		t.Run("bad-hex/"+tc.name, func(t *testing.T) {
			if _, err := KeyFromHex(tc.bad); err == nil {
				t.Errorf("KeyFromHex(%q) accepted", tc.bad)
			}
		})
	}
}

// An earlier revision of the trust page printed a complete worked example
// (a v1 say) with its canonical bytes' length and digest and the signature.
// Reproducing the signature byte for byte shows our JCS and signing agree
// with an independent implementation, not just with themselves.
func TestIndependentSignatureVector(t *testing.T) {
	env := decodeJSON(t, []byte(`{
  "protocol": "agh-network/v1", "id": "msg_ed25519_jcs_01", "kind": "say", "channel": "builders",
  "to": null, "interaction_id": null, "reply_to": null, "trace_id": "trace_ed25519_jcs_01",
  "causation_id": null, "ts": 1775606300, "expires_at": null,
  "body": {"text": "Baseline proof example only.", "artifacts": []}, "ext": {}}`))
	if err := Sign(env, goldenKey(t), "patch-worker"); err != nil {
		t.Fatal(err)
	}
	msg, err := SigningInput(env)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(msg)
	if len(msg) != 560 || hex.EncodeToString(sum[:]) != "6ca0e765811d58394b1c49142f0ec2b7edc23a924ca90821757ad409f4104be5" {
		t.Errorf("canonical bytes: %d bytes, sha256 %x\n%s", len(msg), sum, msg)
	}
	if got := proofOf(env)["sig"]; got != "aXPSCsPgH2uWlF182hIcA2D_EZ1UcSXmelwQiPrNrIwDn5LPB6kkH51teP0VUfFCVdjyvtAjZ2bmhT94tSynBA" {
		t.Errorf("sig = %v", got)
	}
	if st, fs := Evaluate(env); st != Verified {
		t.Errorf("state %s, %v", st, fs)
	}
}

// Erratum 9: the trust page's "canonical form" of its greet lists
// workspace_id between id and kind. JCS sorts it last; producing the
// printed order would be a canonicalizer bug.
func TestErratum9PrintedOrderIsNotCanonical(t *testing.T) {
	env := signed(t, unsignedGreet)
	delete(proofOf(env), "sig")
	got, err := jcs.Canonicalize(env)
	if err != nil {
		t.Fatal(err)
	}
	printed := bytes.NewBuffer(printedOrder(env))
	if bytes.Equal(got, printed.Bytes()) {
		t.Fatal("canonical bytes follow the page's unsorted printed order")
	}
	if len(got) != printed.Len() {
		t.Fatalf("same members should give the same length: %d vs %d", len(got), printed.Len())
	}
	if !bytes.HasSuffix(got, []byte(`"ts":1775606300,"workspace_id":"ws_alpha"}`)) {
		t.Errorf("workspace_id is not last: %s", got)
	}
	if !bytes.Contains(got, []byte(`"id":"msg_ed25519_jcs_01","kind":"greet"`)) {
		t.Errorf("id is not followed by kind: %s", got)
	}
}

// printedOrder is the greet as the trust page's worked example prints its
// "canonical form": JCS values, but workspace_id between id and kind, which
// is not RFC 8785 order (erratum 9).
func printedOrder(env map[string]any) []byte {
	order := []string{"body", "causation_id", "channel", "expires_at", "ext", "from", "id", "workspace_id",
		"kind", "proof", "protocol", "reply_to", "to", "trace_id", "ts"}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := jcs.Canonicalize(k)
		vb, _ := jcs.Canonicalize(env[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func TestIsHandle(t *testing.T) {
	fp := "56475aa75463474c0285df5dbf2bcab7"
	for _, tc := range []struct {
		name, s string
		want    bool
	}{
		{"plain", "patch-worker@" + fp, true},
		{"one-letter", "a@" + fp, true},
		{"underscore-dash-digit", "a_b-9@" + fp, true},
		{"nickname-32", strings.Repeat("x", 32) + "@" + fp, true},
		{"nickname-33", strings.Repeat("x", 33) + "@" + fp, false},
		{"no-nickname", "@" + fp, false},
		{"uppercase-nickname", "Patch@" + fp, false},
		{"dot-in-nickname", "patch.worker@" + fp, false},
		{"uppercase-fingerprint", "patch@" + strings.ToUpper(fp), false},
		{"short-fingerprint", "patch@" + fp[:31], false},
		{"long-fingerprint", "patch@" + fp + "0", false},
		{"non-hex-fingerprint", "patch@" + fp[:31] + "g", false},
		{"two-handles", "patch@" + fp + "@" + fp, false},
		{"peer-id", "patch-worker.session-19", false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, want := tc.s, tc.want
			if got := IsHandle(s); got != want {
				t.Errorf("IsHandle(%q) = %v", s, got)
			}
			fpGot, ok := HandleFingerprint(s)
			if ok != want || (ok && fpGot != fp) {
				t.Errorf("HandleFingerprint(%q) = %q, %v", s, fpGot, ok)
			}
		})
	}
}

func TestSignSetsIdentity(t *testing.T) {
	handle := "patch-worker@56475aa75463474c0285df5dbf2bcab7"
	for _, tc := range []struct {
		name, env string
		cardSet   bool
	}{
		{"greet", unsignedGreet, true},
		{"whois response", unsignedWhoisResponse, true},
		{"whois request", strings.Replace(unsignedWhoisResponse, `"type": "response"`, `"type": "request"`, 1), false},
		{"say", unsignedSay, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := signed(t, tc.env)
			if env["from"] != handle {
				t.Errorf("from = %v", env["from"])
			}
			card, _ := env["body"].(map[string]any)["peer_card"].(map[string]any)
			if got := card != nil && card["peer_id"] == handle; got != tc.cardSet {
				t.Errorf("peer_card.peer_id set = %v, want %v", got, tc.cardSet)
			}
			if st, fs := Evaluate(env); st != Verified {
				t.Errorf("%s %v", st, fs)
			}
			if !IsHandle(env["from"].(string)) {
				t.Error("from is not a handle")
			}
		})
	}
	// A greet without a peer card is signed as is, not repaired.
	env := decodeJSON(t, []byte(`{"kind":"greet","body":{},"proof":null}`))
	if err := Sign(env, goldenKey(t), "x"); err != nil {
		t.Fatal(err)
	}
	if _, has := env["body"].(map[string]any)["peer_card"]; has {
		t.Error("Sign invented a peer card")
	}
	// Re-signing replaces an old proof, including stray members.
	env = signed(t, unsignedSay)
	proofOf(env)["note"] = "stale"
	if err := Sign(env, otherKey(t), "other"); err != nil {
		t.Fatal(err)
	}
	if _, stale := proofOf(env)["note"]; stale {
		t.Error("old proof members survived re-signing")
	}
	if st, fs := Evaluate(env); st != Verified {
		t.Errorf("re-signed: %s %v", st, fs)
	}
}

func TestSignRefuses(t *testing.T) {
	env := decodeJSON(t, []byte(unsignedSay))
	for _, tc := range []struct{ name, nick string }{
		{"empty", ""},
		{"uppercase", "Patch"},
		{"dot", "a.b"},
		{"at-sign", "a@b"},
		{"33-letters", strings.Repeat("a", 33)},
	} {
		t.Run("nickname/"+tc.name, func(t *testing.T) {
			if err := Sign(env, goldenKey(t), tc.nick); err == nil {
				t.Errorf("nickname %q accepted", tc.nick)
			}
		})
	}
	if err := Sign(env, ed25519.PrivateKey(make([]byte, 10)), "a"); err == nil {
		t.Error("short private key accepted")
	}
	env["ext"] = map[string]any{"n": json.Number("1e999")}
	if err := Sign(env, goldenKey(t), "a"); err == nil {
		t.Error("uncanonicalizable envelope signed")
	}
}

func TestEvaluateDoesNotModify(t *testing.T) {
	env := signed(t, unsignedGreet)
	before := deepCopy(t, env)
	Evaluate(env)
	if !reflect.DeepEqual(env, before) {
		t.Error("Evaluate changed the envelope")
	}
	if _, ok := proofOf(env)["sig"]; !ok {
		t.Error("proof.sig was removed from the caller's map")
	}
}

func TestUnsignedPlainHasNoFindings(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]any
	}{
		{"null-proof", map[string]any{"from": "patch-worker.session-19", "proof": nil}},
		{"no-proof", map[string]any{"from": "patch-worker.session-19"}},
		{"not-a-handle", map[string]any{"from": "Not@A-Handle", "proof": nil}}, // not our shape: the envelope rules judge the peer id
		{"empty", map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, fs := Evaluate(tc.env); st != Unverified || len(fs) != 0 {
				t.Errorf("%v: %s %v", tc.env, st, fs)
			}
		})
	}
}

// Rejections carry the AGH reason code the verification page assigns.
func TestReasons(t *testing.T) {
	for _, r := range Rules() {
		if r.Profile != "agh-trust" {
			continue
		}
		want := "verification_failed"
		switch r.ID {
		case "TRUST-PROOF-OBJECT", "TRUST-PROOF-PROFILE":
			want = "malformed"
		case "TRUST-PROFILE-UNSUPPORTED":
			want = "unsupported_profile"
		}
		if r.Reason != want {
			t.Errorf("%s: reason %q, want %q", r.ID, r.Reason, want)
		}
		if !strings.HasPrefix(r.ID, "TRUST-") {
			t.Errorf("%s: not a TRUST- id", r.ID)
		}
	}
}

func TestKeyFile(t *testing.T) {
	k := goldenKey(t)
	data, err := MarshalKeyFile(k, "patch-worker")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "aghcheck.ed25519-key/v1"`, `"seed": "000102`, `"pubkey": "A6EHv_`, `"handle": "patch-worker@56475aa7`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("key file lacks %s:\n%s", want, data)
		}
	}
	got, nick, err := ParseKeyFile(data)
	if err != nil || !got.Equal(k) || nick != "patch-worker" {
		t.Fatalf("round trip: %v %q", err, nick)
	}
	minimal := []byte(`{"format":"aghcheck.ed25519-key/v1","seed":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"}`)
	if got, nick, err := ParseKeyFile(minimal); err != nil || !got.Equal(k) || nick != "" {
		t.Errorf("minimal: %v %q", err, nick)
	}
	if got, nick, err := ParseKeyFile([]byte("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n")); err != nil || !got.Equal(k) || nick != "" {
		t.Errorf("bare hex seed: %v %q", err, nick)
	}
	for name, bad := range map[string]string{
		"not json":       `seed=00`,
		"bare non-hex":   strings.Repeat("zz", 32),
		"wrong format":   strings.Replace(string(data), "ed25519-key/v1", "ed25519-key/v9", 1),
		"unknown member": strings.Replace(string(data), `"format"`, `"private": 1, "format"`, 1),
		"short seed":     strings.Replace(string(data), `"seed": "00`, `"seed": "`, 1),
		"wrong pubkey":   strings.Replace(string(data), `"pubkey": "A6`, `"pubkey": "B6`, 1),
		"bad nickname":   strings.Replace(string(data), `"nickname": "patch-worker"`, `"nickname": "Patch"`, 1),
		"wrong handle":   strings.Replace(string(data), `"handle": "patch-worker@`, `"handle": "other@`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := ParseKeyFile([]byte(bad)); err == nil {
				t.Error("accepted")
			}
		})
	}
	if _, err := MarshalKeyFile(k, "Bad Nick"); err == nil {
		t.Error("MarshalKeyFile accepted a bad nickname")
	}
}

// FuzzEvaluate: any decoded JSON object gets a state without panicking,
// Rejected always comes with exactly one finding, and an envelope we sign
// always verifies.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte(unsignedGreet))
	f.Add([]byte(unsignedSay))
	f.Add([]byte(`{"from":"a@56475aa75463474c0285df5dbf2bcab7","proof":{"profile":"agh-network.trust.ed25519-jcs/v1","alg":"Ed25519"}}`))
	f.Add([]byte(`{"proof":"x"}`))
	priv := goldenKey(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var env map[string]any
		if d.Decode(&env) != nil || env == nil {
			return
		}
		st, fs := Evaluate(env)
		switch st {
		case Rejected:
			if len(fs) != 1 || fs[0].Rule.Severity != rules.Error {
				t.Fatalf("rejected with %v", fs)
			}
		case Unverified:
			if len(fs) > 1 {
				t.Fatalf("unverified with %v", fs)
			}
		case Verified:
			if len(fs) != 0 {
				t.Fatalf("verified with %v", fs)
			}
		default:
			t.Fatalf("state %q", st)
		}
		if err := Sign(env, priv, "fuzz"); err != nil {
			return // e.g. a number JCS cannot represent
		}
		if st, fs := Evaluate(env); st != Verified {
			t.Fatalf("freshly signed envelope is %s: %v", st, fs)
		}
	})
}

func BenchmarkEvaluateSigned(b *testing.B) {
	env := signed(b, unsignedGreet)
	b.ReportAllocs()
	for b.Loop() {
		if st, _ := Evaluate(env); st != Verified {
			b.Fatal(st)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	env := decodeJSON(b, []byte(unsignedGreet))
	priv := goldenKey(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := Sign(env, priv, "patch-worker"); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzParseKeyFile: no input panics, and an accepted key file written back
// out loads as the same key and nickname.
func FuzzParseKeyFile(f *testing.F) {
	k, _ := MarshalKeyFile(goldenKey(f), "patch-worker")
	f.Add(k)
	f.Add([]byte("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"))
	f.Add([]byte(`{"format":"aghcheck.ed25519-key/v1","seed":"00"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		priv, nick, err := ParseKeyFile(data)
		if err != nil {
			return
		}
		out, err := MarshalKeyFile(priv, nick)
		if err != nil {
			t.Fatalf("accepted key does not marshal: %v", err)
		}
		p2, n2, err := ParseKeyFile(out)
		if err != nil || !p2.Equal(priv) || n2 != nick {
			t.Fatalf("round trip: %v %q", err, n2)
		}
	})
}
