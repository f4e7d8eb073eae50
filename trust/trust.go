// Package trust implements the AGH trust profile
// agh-network.trust.ed25519-jcs/v1: verified handles, proofs over the JCS
// canonical envelope, and the verification algorithm's trust states.
package trust

import (
	"crypto/ed25519"

	"github.com/aghcheck/aghcheck/rules"
)

// State is the trust state a receiver assigns to an envelope.
type State string

const (
	Verified   State = "verified"
	Unverified State = "unverified"
	Rejected   State = "rejected"
)

// Evaluate runs the verification algorithm on a decoded envelope. It returns
// Unverified with no findings when proof is absent/null and from is a plain
// v0 Peer ID. Every reason for Rejected is a finding with a TRUST-* rule.
func Evaluate(env map[string]any) (State, []rules.Finding) {
	panic("trust.Evaluate: not implemented yet")
}

// IsHandle reports whether s has the verified-handle shape nickname@fingerprint.
func IsHandle(s string) bool { panic("trust.IsHandle: not implemented yet") }

// Fingerprint is the first 32 lowercase hex characters of SHA-256(pub).
func Fingerprint(pub ed25519.PublicKey) string { panic("not implemented yet") }

// Sign sets env["from"] to nickname@fingerprint (and body.peer_card.peer_id on
// greet and whois responses) and env["proof"] to a fresh proof by priv.
func Sign(env map[string]any, priv ed25519.PrivateKey, nickname string) error {
	panic("trust.Sign: not implemented yet")
}
