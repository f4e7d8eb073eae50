package requirements

import (
	"regexp"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// The Envelope page's advice to senders that only a live peer's traffic
// can show: judged on everything the IUT sends (passive judging, with the
// harness's clock), never on a file, where an example's ids and times are
// its own.
var (
	SenderIDUUID = delivery.Declare(rules.Rule{ID: "ENV-ID-UUID", Severity: rules.Warning,
		Clause: "A sender SHOULD make its message ids UUIDs.",
		Source: "AGH Network v0, Envelope §Fields (id)",
		Basis:  `Envelope §Fields, id: "UUIDs are RECOMMENDED." (RECOMMENDED is SHOULD, RFC 2119)`})
	SenderNullsExplicit = delivery.Declare(rules.Rule{ID: "ENV-NULLS-EXPLICIT", Severity: rules.Warning,
		Clause: "A portable sender SHOULD include to and proof explicitly as null when there is no target or proof.",
		Source: "AGH Network v0, Envelope §Wire contract",
		Basis:  `Envelope §Wire contract: "A portable sender SHOULD include them explicitly as null when no target or proof is present."`})
	SenderFromSelf = delivery.Declare(rules.Rule{ID: "ENV-FROM-SENDER",
		Clause: "from MUST be the sender's own Peer ID: a peer MUST NOT publish an envelope as another peer.",
		Source: "AGH Network v0, Envelope §Fields (from)",
		Basis:  `Envelope §Fields, from: "MUST be the sender Peer ID"; judged where the sender is known: on the run's own broker an envelope whose from is one of the harness's test peers, which the harness did not send, was published by the IUT as that peer`})
	SenderTSClock = delivery.Declare(rules.Rule{ID: "ENV-TS-CLOCK", Severity: rules.Warning,
		Clause: "ts SHOULD be the sender's current time in Unix seconds: within the replay age (300 s) of the receiver's clock, else receivers refuse it as expired (a value that is no time in seconds at all, such as milliseconds, is ENV-TS-SECONDS, a MUST).",
		Source: "AGH Network v0, Envelope §Fields (ts), §Freshness rules",
		Basis:  `Envelope §Freshness rules: "When expires_at is absent, receivers SHOULD enforce a bounded replay-age policy." (300 s by default), so a sender whose ts is off by more than that is refused; §Fields, ts: "MUST be Unix time in seconds, set by the sender." A clock off by minutes still gives seconds: the skew is the SHOULD, the unit the MUST (ENV-TS-SECONDS)`})
)

var uuid = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ClockSkew is what the harness allows a peer's clock beside its own.
const ClockSkew = 30 * time.Second

// SenderAdvice judges one envelope the IUT sent by the Envelope page's
// advice to senders, at now (the harness's clock).
func SenderAdvice(env map[string]any, ts int64, hasTS bool, now time.Time) []rules.Finding {
	var out []rules.Finding
	if id, ok := env["id"].(string); ok && id != "" && !uuid.MatchString(id) {
		out = append(out, rules.New(SenderIDUUID, "/id", "a UUID", rules.Clip(id, 60, "…")))
	}
	for _, k := range []string{"to", "proof"} {
		if _, present := env[k]; !present {
			out = append(out, rules.New(SenderNullsExplicit, "/"+k, "present (null when none)", "absent"))
		}
	}
	// A ts that cannot be seconds is the engine's MUST (ENV-TS-SECONDS),
	// not a skewed clock: said once, at its own level.
	if hasTS && !agh.NotSeconds(ts, now.Unix()) {
		age := now.Unix() - ts
		if limit := int64((300*time.Second + ClockSkew) / time.Second); age > limit || -age > int64(ClockSkew/time.Second) {
			out = append(out, rules.New(SenderTSClock, "/ts", "within 300 s of the receiver's clock", time.Unix(ts, 0).UTC().Format(time.RFC3339)))
		}
	}
	return out
}
