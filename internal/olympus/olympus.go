// Package olympus validates Olympus Agent Context Envelope 1.0 documents
// (the Olympus agent-envelope schema v1): the schema, the sender-persona rule, attachment hashes against
// files under a root, and the HMAC-SHA256 signature over aghcheck's
// definition of the canonical envelope content.
package olympus

import (
	"crypto/hmac"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// Options configure the checks that need something from outside the document.
type Options struct {
	// AttachmentsRoot is the directory attachment paths are relative to.
	// Empty: attachment hashes are not checked (path shape still is), and
	// OLY-ATTACHMENT-UNCHECKED (a warning) says so.
	AttachmentsRoot string
	// HMACKey verifies authentication.signature. Empty: not verified, and
	// a signed document gets OLY-SIGNATURE-UNCHECKED (a warning) saying so.
	HMACKey []byte
}

// Profile is the "olympus" validate profile. It is safe for concurrent use.
type Profile struct {
	root     string // as given, made absolute
	realRoot string // with symlinks resolved, for containment checks
	key      []byte
}

// New builds the profile and checks the root once. The schema is compiled
// when the first document is checked: a validate run that meets no Olympus
// document never pays for it.
func New(o Options) (*Profile, error) {
	p := &Profile{key: append([]byte(nil), o.HMACKey...)}
	if o.AttachmentsRoot != "" {
		abs, err := filepath.Abs(o.AttachmentsRoot)
		if err != nil {
			return nil, fmt.Errorf("olympus: attachments root: %w", err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("olympus: attachments root: %w", err)
		}
		st, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("olympus: attachments root: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("olympus: attachments root %s is not a directory", o.AttachmentsRoot)
		}
		p.root, p.realRoot = abs, real
	}
	return p, nil
}

func (p *Profile) Name() string { return profileName }

// Detect recognises the two members only an Olympus envelope has together.
func (p *Profile) Detect(doc map[string]any) bool {
	_, env := doc["envelope"]
	_, msg := doc["protocol_message"]
	return env && msg
}

// Check returns every finding for one decoded document.
func (p *Profile) Check(raw []byte, v any) []rules.Finding {
	out, err := schemaFindings(v)
	if err != nil {
		// Only reachable if the embedded schema is broken, which
		// TestEmbeddedSchemaCompiles rules out.
		return []rules.Finding{{Rule: RuleSchema, Message: err.Error()}}
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return out
	}
	out = append(out, senderPersona(doc)...)
	out = append(out, p.attachmentFindings(doc)...)
	if len(p.key) > 0 {
		out = append(out, p.signatureFindings(doc)...)
	} else if auth, _ := doc["authentication"].(map[string]any); auth["signature"] != nil {
		// A check the document calls for but this run cannot make is said,
		// never left to read as a pass.
		out = append(out, rules.Finding{Rule: RuleSignatureUnchecked, Pointer: "/authentication/signature",
			Message: "signature not verified: no HMAC key (give --hmac-key-file FILE or set $" + KeyEnv + ")"})
	}
	return out
}

func senderPersona(doc map[string]any) []rules.Finding {
	env, _ := doc["envelope"].(map[string]any)
	auth, _ := doc["authentication"].(map[string]any)
	src, ok1 := env["source_agent"].(string)
	sender, ok2 := auth["sender_persona"].(string)
	if !ok1 || !ok2 || src == sender {
		return nil
	}
	return []rules.Finding{{Rule: RuleSenderPersona, Pointer: "/authentication/sender_persona",
		Expected: quote(src) + " (envelope.source_agent)", Found: quote(sender)}}
}

func (p *Profile) signatureFindings(doc map[string]any) []rules.Finding {
	const ptr = "/authentication/signature"
	auth, _ := doc["authentication"].(map[string]any)
	raw, present := auth["signature"]
	if !present {
		return []rules.Finding{{Rule: RuleSignaturePresent, Pointer: ptr, Expected: "a signature", Found: "absent",
			Message: "a verification key was supplied but the envelope is unsigned"}}
	}
	sig, ok := raw.(string)
	if !ok {
		return nil // the schema reports the type
	}
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != 32 || hex.EncodeToString(got) != sig {
		return []rules.Finding{{Rule: RuleSignatureEncoding, Pointer: ptr, Expected: "64 lowercase hex digits", Found: quote(sig)}}
	}
	want, err := Signature(doc, p.key)
	if err != nil {
		return []rules.Finding{{Rule: RuleSignature, Pointer: ptr, Message: "cannot compute the canonical content: " + err.Error()}}
	}
	wantBytes, _ := hex.DecodeString(want)
	if !hmac.Equal(got, wantBytes) {
		return []rules.Finding{{Rule: RuleSignature, Pointer: ptr, Expected: "the HMAC-SHA256 of the canonical content under the supplied key",
			Found: quote(sig), Message: "signature does not verify (wrong key, or the envelope changed after signing)"}}
	}
	return nil
}
