// Package trust implements the AGH trust profile
// agh-network.trust.ed25519-jcs/v1: verified handles, proofs over the JCS
// canonical envelope, and the verification algorithm's trust states.
package trust

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/jcs"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// State is the trust state a receiver assigns to an envelope.
type State string

const (
	Verified   State = "verified"
	Unverified State = "unverified"
	Rejected   State = "rejected"
)

const (
	// ProfileID is the proof.profile of the baseline trust profile.
	ProfileID = "agh-network.trust.ed25519-jcs/v1"
	// Alg is the only proof.alg the baseline profile allows.
	Alg = "Ed25519"
)

// b64 is base64url without padding. Strict rejects non-zero trailing bits,
// so one key or signature has exactly one accepted spelling.
var b64 = base64.RawURLEncoding.Strict()

// Evaluate runs the verification algorithm on a decoded envelope. It returns
// Unverified with no findings when proof is absent/null and from is a plain
// v0 Peer ID. Every reason for Rejected is a finding with a TRUST-* rule.
//
// The steps run in the order the Signature Verification page gives and stop
// at the first failure, so a rejection carries exactly one finding. An
// unsupported but well-formed profile gives Unverified with one
// TRUST-PROFILE-UNSUPPORTED warning. env is not modified.
func Evaluate(env map[string]any) (State, []rules.Finding) {
	reject := func(r *rules.Rule, ptr, expected, found, msg string) (State, []rules.Finding) {
		f := rules.New(r, ptr, expected, found)
		f.Message = msg
		return Rejected, []rules.Finding{f}
	}

	rawProof, present := env["proof"]
	if !present || rawProof == nil {
		if from, _ := env["from"].(string); IsHandle(from) {
			return reject(RuleProofStripped, "/proof", "a proof object", describe(rawProof, present),
				"from "+from+" claims a verified handle but the envelope carries no proof")
		}
		return Unverified, nil
	}

	// Step 1.
	proof, ok := rawProof.(map[string]any)
	if !ok {
		return reject(RuleProofObject, "/proof", "object or null", describe(rawProof, true), "")
	}
	// Step 2. A profile we do not know is opaque to us, not broken.
	profile, ok := proof["profile"].(string)
	if !ok || profile == "" {
		v, has := proof["profile"]
		return reject(RuleProofProfile, "/proof/profile", "non-empty string", describe(v, has), "")
	}
	if profile != ProfileID {
		f := rules.New(RuleProfileUnsupported, "/proof/profile", ProfileID, quote(profile))
		f.Message = "the proof is not checked; the envelope is unverified"
		return Unverified, []rules.Finding{f}
	}
	// Step 3.
	if alg, _ := proof["alg"].(string); alg != Alg {
		v, has := proof["alg"]
		return reject(RuleProofAlg, "/proof/alg", quote(Alg), describe(v, has), "")
	}
	// Step 4.
	pub, err := decodeB64(proof["pubkey"], ed25519.PublicKeySize)
	if err != nil {
		v, has := proof["pubkey"]
		return reject(RulePubkey, "/proof/pubkey", "base64url (no padding) of 32 bytes", describe(v, has), err.Error())
	}
	// Steps 5 and 6.
	if want, got := KeyID(pub), proof["key_id"]; got != want {
		v, has := proof["key_id"]
		return reject(RuleKeyID, "/proof/key_id", quote(want), describe(v, has), "")
	}
	// Step 7: the handle's shape; its two parts are steps 8 and 9.
	from, isString := env["from"].(string)
	nickname, fingerprint, hasAt := strings.Cut(from, "@")
	if !isString || !hasAt || strings.Contains(fingerprint, "@") {
		v, has := env["from"]
		return reject(RuleFromHandle, "/from", "nickname@fingerprint", describe(v, has), "")
	}
	// Step 8.
	if !validNickname(nickname) {
		return reject(RuleNickname, "/from", "nickname matching [a-z0-9_-]{1,32}", quote(nickname), "")
	}
	// Step 9.
	if want := Fingerprint(pub); fingerprint != want {
		return reject(RuleFingerprint, "/from", quote(want), quote(fingerprint), "the handle is not bound to proof.pubkey")
	}
	// Step 10.
	sig, err := decodeB64(proof["sig"], ed25519.SignatureSize)
	if err != nil {
		v, has := proof["sig"]
		return reject(RuleSigEncoding, "/proof/sig", "base64url (no padding) of 64 bytes", describe(v, has), err.Error())
	}
	// Steps 11 and 12.
	msg, err := SigningInput(env)
	if err != nil {
		return reject(RuleCanonical, "", "", "", err.Error())
	}
	// Step 13. Step 14 (local policy) belongs to deployments, not to us.
	if !ed25519.Verify(pub, msg, sig) {
		return reject(RuleSigVerify, "/proof/sig", "", "", "the signature does not match the envelope's canonical bytes (docs/protocol.md#signing-input-trust-profile)")
	}
	return Verified, nil
}

// SigningInput is the byte string a proof signs: the RFC 8785 form of env
// with only proof.sig left out. Members that are present with a null value
// stay, because removing them changes the bytes.
func SigningInput(env map[string]any) ([]byte, error) {
	shallow := make(map[string]any, len(env))
	for k, v := range env {
		shallow[k] = v
	}
	if proof, ok := env["proof"].(map[string]any); ok {
		p := make(map[string]any, len(proof))
		for k, v := range proof {
			if k != "sig" {
				p[k] = v
			}
		}
		shallow["proof"] = p
	}
	b, err := jcs.Canonicalize(shallow)
	if err != nil {
		return nil, fmt.Errorf("canonicalizing the envelope: %w", err)
	}
	return b, nil
}

// Sign sets env["from"] to nickname@fingerprint (and body.peer_card.peer_id on
// greet and whois responses) and env["proof"] to a fresh proof by priv.
// Any existing proof is replaced. The signature is computed last, over the
// envelope as it will be sent.
func Sign(env map[string]any, priv ed25519.PrivateKey, nickname string) error {
	if len(priv) != ed25519.PrivateKeySize {
		return fmt.Errorf("sign: private key is %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	if !validNickname(nickname) {
		return fmt.Errorf("sign: nickname %q does not match [a-z0-9_-]{1,32}", nickname)
	}
	pub := priv.Public().(ed25519.PublicKey)
	handle := nickname + "@" + Fingerprint(pub)
	env["from"] = handle
	if card := peerCard(env); card != nil {
		card["peer_id"] = handle
	}
	proof := map[string]any{
		"profile": ProfileID,
		"alg":     Alg,
		"key_id":  KeyID(pub),
		"pubkey":  b64.EncodeToString(pub),
	}
	env["proof"] = proof
	msg, err := SigningInput(env)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	proof["sig"] = b64.EncodeToString(ed25519.Sign(priv, msg))
	return nil
}

// peerCard returns the peer card whose peer_id must equal from: greet's and
// a whois response's. A missing card is left missing for the validator to
// report rather than invented here.
func peerCard(env map[string]any) map[string]any {
	body, _ := env["body"].(map[string]any)
	if body == nil {
		return nil
	}
	switch env["kind"] {
	case "greet":
	case "whois":
		if body["type"] != "response" {
			return nil
		}
	default:
		return nil
	}
	card, _ := body["peer_card"].(map[string]any)
	return card
}

// KeyID is the proof.key_id of pub: "sha256:" and the full lowercase hex digest.
func KeyID(pub ed25519.PublicKey) string {
	d := sha256.Sum256(pub)
	return "sha256:" + hex.EncodeToString(d[:])
}

// Fingerprint is the first 32 lowercase hex characters of SHA-256(pub).
func Fingerprint(pub ed25519.PublicKey) string {
	d := sha256.Sum256(pub)
	return hex.EncodeToString(d[:16])
}

// PublicKeyString is the proof.pubkey spelling of pub (base64url, no padding).
func PublicKeyString(pub ed25519.PublicKey) string { return b64.EncodeToString(pub) }

// Handle is the verified handle nickname@fingerprint of pub. It does not
// check the nickname; ValidNickname does.
func Handle(nickname string, pub ed25519.PublicKey) string {
	return nickname + "@" + Fingerprint(pub)
}

// ValidNickname reports whether s matches [a-z0-9_-]{1,32}.
func ValidNickname(s string) bool { return validNickname(s) }

// IsHandle reports whether s has the verified-handle shape nickname@fingerprint.
func IsHandle(s string) bool {
	_, ok := HandleFingerprint(s)
	return ok
}

// HandleFingerprint returns the fingerprint part of a verified handle, which
// is also its NATS route token.
func HandleFingerprint(s string) (string, bool) {
	nick, fp, ok := strings.Cut(s, "@")
	if !ok || !validNickname(nick) || len(fp) != 32 {
		return "", false
	}
	for i := 0; i < len(fp); i++ {
		if c := fp[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return fp, true
}

func validNickname(s string) bool {
	if len(s) < 1 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// decodeB64 decodes a base64url-no-padding string of exactly n bytes. The
// alphabet is checked by hand because encoding/base64 skips CR and LF even
// in strict mode, which would let two spellings carry one value.
func decodeB64(v any, n int) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, errors.New("not a string")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return nil, fmt.Errorf("byte %q at offset %d is not in the base64url alphabet (no padding)", c, i)
		}
	}
	b, err := b64.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not canonical base64url: %w", err)
	}
	if len(b) != n {
		return nil, fmt.Errorf("decodes to %d bytes, want %d", len(b), n)
	}
	return b, nil
}

// describe renders a found value for a finding without dumping large objects.
func describe(v any, present bool) string {
	switch x := v.(type) {
	case nil:
		if !present {
			return "absent"
		}
		return "null"
	case string:
		return quote(x)
	case bool:
		return fmt.Sprint(x)
	case map[string]any:
		return "object"
	case []any:
		return "array"
	default:
		return fmt.Sprintf("number %v", x)
	}
}

func quote(s string) string { return strconv.Quote(rules.Clip(s, 77, "...")) }
