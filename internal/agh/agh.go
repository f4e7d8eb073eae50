// Package agh holds the AGH Network v0 protocol rules: the envelope and
// message-kind checks (schema plus semantics), freshness, and the
// derivations (route tokens, direct-room ids, subjects, capability digests).
// validate and the live harness both use this one engine.
package agh

import (
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Protocol is the value of the protocol field of every v0 envelope.
const Protocol = "agh-network/v0"

// MaxEnvelopeSize is the largest serialized envelope a peer must accept
// (and the largest it may send): 1 MiB.
const MaxEnvelopeSize = 1 << 20

// DefaultMaxReplayAge is the replay window, in seconds, used when
// Options.MaxReplayAge is zero.
const DefaultMaxReplayAge = 300

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
	// FullSchema also runs the JSON Schema validator on every envelope,
	// broken or clean, as a visible cross-check. It cannot add a finding:
	// the native rules subsume the schemas (TestSchemaSubsumed,
	// TestFullSchemaSameFindings and FuzzCheck verify it), so it is off by
	// default; it costs some 5-25 µs an envelope and the schema compile.
	FullSchema bool
}

// Result is everything the engine concluded about one envelope.
type Result struct {
	Envelope map[string]any // nil when the bytes were not a JSON object
	Findings []rules.Finding
	// Trust is the trust state (trust.State: verified, unverified,
	// rejected) of an envelope that is a JSON object; "" otherwise. A plain
	// Peer ID without proof is "unverified" without running the algorithm.
	Trust string
}

// Valid reports whether no finding is an error (warnings allowed unless strict).
func (r Result) Valid(strict bool) bool { return !rules.HasErrors(r.Findings, strict) }

// Checker is safe for concurrent use; build one and share it.
type Checker struct {
	opts             Options
	schemas          *lazySchemas
	threadID, workID grammar
	fast             bool // CheckClean may settle envelopes (fastOptions)
}

// NewChecker returns a checker for opts. The embedded schemas are compiled
// once per errata variant and process, when an envelope first needs them.
func NewChecker(opts Options) (*Checker, error) {
	if opts.MaxReplayAge <= 0 {
		opts.MaxReplayAge = DefaultMaxReplayAge
	}
	c := &Checker{opts: opts, schemas: schemasFor(opts.Errata), fast: fastOptions(opts)}
	c.threadID, c.workID = idGrammars(opts.Errata)
	return c, nil
}

// Options returns the options the checker was built with (defaults filled in).
func (c *Checker) Options() Options { return c.opts }

// CheckBytes decodes raw (strictly, via jsonx) and checks it.
func (c *Checker) CheckBytes(raw []byte) Result {
	v, dec, ok := jsonx.Decode(raw)
	if !ok {
		fs := dec
		if len(raw) > MaxEnvelopeSize {
			fs = append([]rules.Finding{sizeFinding(len(raw))}, fs...)
		}
		return Result{Findings: fs}
	}
	res := c.check(raw, v)
	if len(dec) > 0 {
		res.Findings = append(dec, res.Findings...)
	}
	return res
}

// Name, Detect and Check make a Checker a validate.Profile.
func (c *Checker) Name() string                   { return "agh" }
func (c *Checker) Detect(doc map[string]any) bool { _, ok := doc["protocol"]; return ok }
func (c *Checker) Check(raw []byte, v any) []rules.Finding {
	return c.check(raw, v).Findings
}

// CheckValue checks an already decoded value (raw is the bytes it came
// from; it may be nil when they are not at hand, which skips the size rule).
func (c *Checker) CheckValue(raw []byte, v any) Result { return c.check(raw, v) }
