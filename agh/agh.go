// Package agh holds the AGH Network v0 protocol rules: the envelope and
// message-kind checks (schema plus semantics), freshness, and the
// derivations (route tokens, direct-room ids, subjects, capability digests).
// validate and the live harness both use this one engine.
package agh

import "github.com/aghcheck/aghcheck/rules"

// Options select what a Checker enforces beyond the always-on rules.
type Options struct {
	// Now enables freshness checks when non-zero (Unix seconds).
	Now int64
	// MaxReplayAge is the replay window in seconds (default 300) applied
	// when an envelope has no expires_at.
	MaxReplayAge int64
	// RequireVerified makes an unverified envelope invalid.
	RequireVerified bool
	// Errata selects alternative readings where the documents disagree.
	Errata Errata
}

// Errata flags, one per decision in docs/errata.md where a user may want the
// other reading (usually to match the reference runtime).
type Errata struct{}

// Result is everything the engine concluded about one envelope.
type Result struct {
	Envelope map[string]any // nil when the bytes were not a JSON object
	Findings []rules.Finding
	Trust    string // trust.State: verified, unverified, rejected ("" when not evaluated)
}

// Checker is safe for concurrent use; build one and share it.
type Checker struct{ opts Options }

// NewChecker compiles the embedded schemas once.
func NewChecker(opts Options) (*Checker, error) { panic("not implemented yet") }

// CheckBytes decodes raw (strictly, via jsonx) and checks it.
func (c *Checker) CheckBytes(raw []byte) Result { panic("not implemented yet") }

// Name, Detect and Check make a Checker a validate.Profile.
func (c *Checker) Name() string                            { return "agh" }
func (c *Checker) Detect(doc map[string]any) bool          { _, ok := doc["protocol"]; return ok }
func (c *Checker) Check(raw []byte, v any) []rules.Finding { panic("not implemented yet") }

// RefusalReason is the receipt reason_code a receiver uses for these
// findings, following the validation order ("" when nothing refuses).
func RefusalReason(fs []rules.Finding) string { panic("not implemented yet") }

// RouteToken is the NATS route token of a peer: the fingerprint of a
// verified handle, else the first 32 hex chars of SHA-256(peer id).
func RouteToken(peerID string) string { panic("not implemented yet") }

// DirectID derives the direct-room id of two different peers.
func DirectID(workspace, channel, peerA, peerB string) (string, error) { panic("not implemented yet") }

// BroadcastSubject and PeerSubject render the NATS subjects.
func BroadcastSubject(workspace, channel string) string    { panic("not implemented yet") }
func PeerSubject(workspace, channel, peerID string) string { panic("not implemented yet") }

// Subject is the subject a decoded envelope must be published on.
func Subject(env map[string]any) (string, error) { panic("not implemented yet") }

// CapabilityDigest computes the canonical digest of a capability document.
func CapabilityDigest(capability map[string]any) (string, error) { panic("not implemented yet") }
