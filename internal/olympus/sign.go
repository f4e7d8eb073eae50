package olympus

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"

	"github.com/aghcheck/aghcheck/internal/jcs"
)

// KeyEnv is the environment variable that may hold the HMAC key. Keys are
// never taken from a plain flag value: flags end up in shell history and ps.
const KeyEnv = "AGHCHECK_OLYMPUS_HMAC_KEY"

// The seed calls the signature "HMAC-SHA256 signature of the canonical
// envelope content" without defining either term; aghcheck's definition:
//
//	canonical envelope content = RFC 8785 (JCS) bytes of the whole document
//	                             with authentication.signature removed
//	signature                  = lowercase hex of HMAC-SHA256(key, content)
//
// Everything else (envelope, persona, protocol_message, attachments and the
// rest of authentication) is covered, so no routing or payload field can be
// changed without breaking the signature.

// CanonicalContent returns the bytes that are signed for doc: the JCS form of
// doc without authentication.signature. doc is not modified.
func CanonicalContent(doc map[string]any) ([]byte, error) {
	b, err := jcs.Canonicalize(withoutSignature(doc))
	if err != nil {
		return nil, fmt.Errorf("olympus: canonical envelope content: %w", err)
	}
	return b, nil
}

// withoutSignature copies only the two maps on the path to the signature, so
// the caller's document (shared between goroutines) is never written.
func withoutSignature(doc map[string]any) map[string]any {
	auth, ok := doc["authentication"].(map[string]any)
	if !ok {
		return doc
	}
	if _, has := auth["signature"]; !has {
		return doc
	}
	a := make(map[string]any, len(auth))
	for k, v := range auth {
		if k != "signature" {
			a[k] = v
		}
	}
	d := make(map[string]any, len(doc))
	for k, v := range doc {
		d[k] = v
	}
	d["authentication"] = a
	return d
}

// Signature computes the hex HMAC-SHA256 of doc's canonical content.
func Signature(doc map[string]any, key []byte) (string, error) {
	if len(key) == 0 {
		return "", errors.New("olympus: empty HMAC key")
	}
	content, err := CanonicalContent(doc)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write(content)
	return hex.EncodeToString(m.Sum(nil)), nil
}

// Sign sets doc's authentication.signature to the signature of its canonical
// content under key, replacing any signature already there. doc must have an
// authentication object: the signature has nowhere else to go.
func Sign(doc map[string]any, key []byte) error {
	auth, ok := doc["authentication"].(map[string]any)
	if !ok {
		return errors.New("olympus: document has no authentication object to carry the signature")
	}
	sig, err := Signature(doc, key)
	if err != nil {
		return err
	}
	auth["signature"] = sig
	return nil
}

// LoadKey returns the HMAC key from file when file is not empty, else from
// the KeyEnv environment variable; (nil, nil) when neither is set. A file's
// bytes are the key, less one trailing line ending so `echo secret > key`
// works as people expect.
func LoadKey(file string) ([]byte, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("olympus: HMAC key: %w", err)
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		if len(b) == 0 {
			return nil, fmt.Errorf("olympus: HMAC key file %s is empty", file)
		}
		return b, nil
	}
	if v := os.Getenv(KeyEnv); v != "" {
		return []byte(v), nil
	}
	return nil, nil
}
