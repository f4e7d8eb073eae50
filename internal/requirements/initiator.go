package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// Requirements of a peer as the initiator of work: what it sends when it
// opens, continues and cancels work. The Conformance Levels page binds a
// Core Sender to them; what an initiator does with the receipts and traces
// it gets back is judged under the receiver's rules (LIFE-NON-PARTICIPANT,
// LIFE-CONTAINER-BINDING, LIFE-TERMINAL-FINAL, DELIV-EXPIRED-REJECT, ...).
var (
	SendLifecycleFields = conformance.Declare(rules.Rule{ID: "SEND-LIFECYCLE-FIELDS",
		Clause: "An initiator MUST include the lifecycle and correlation fields of work: its opening names the target in to and carries a work_id; its continuations and cancels carry the work's work_id and the surface and container id of the opening, addressed to the target.",
		Source: conformanceSrc + " §Core Sender; " + lifecycleSrc + " §Container binding",
		Basis:  `Conformance Levels §Core Sender: a core sender MUST "include required lifecycle and correlation fields when applicable"; Work Lifecycle §Container binding: continuations carry the surface and container ID of the opening.`})
	SendExpiresHonored = conformance.Declare(rules.Rule{ID: "SEND-EXPIRES-HONORED",
		Clause: "A sender that sets expires_at MUST honour it: Unix seconds later than the message's ts, and work its target refused as expired is over (nothing more is sent on it).",
		Source: conformanceSrc + " §Core Sender; " + lifecycleSrc + " §Freshness",
		Basis:  `Conformance Levels §Core Sender: a core sender MUST "honor expiration semantics when it sets expires_at"; Delivery Guarantees §Freshness: a message at or past expires_at is refused as expired.`})
)
