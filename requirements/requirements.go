// Package requirements registers the behavioural requirements only a live
// run can judge (work lifecycle, delivery, discovery, extensions, NATS
// subjects, trust as a receiver) in the one rule catalogue, next to the
// envelope rules of package agh, so scenarios, reports and docs/rules.md
// cite them by the same stable ids.
package requirements

import "github.com/aghcheck/aghcheck/rules"

const (
	lifecycleSrc = "AGH Network v0, Work Lifecycle"
	deliverySrc  = "AGH Network v0, Delivery Guarantees"
	kindsSrc     = "AGH Network v0, Message Kinds"
	discoSrc     = "AGH Network v0, Peer Discovery"
	natsSrc      = "AGH Network v0, NATS Transport Binding"
	trustSrc     = "AGH Network v0, Signature Verification"
)

var (
	lifecycle  = rules.Declarer{Profile: "agh-lifecycle"}
	delivery   = rules.Declarer{Profile: "agh-delivery"}
	discovery  = rules.Declarer{Profile: "agh-discovery"}
	extensions = rules.Declarer{Profile: "agh-extensions"}
	natsRules  = rules.Declarer{Profile: "agh-nats"}
	trustRules = rules.Declarer{Profile: "agh-trust"}
)

// Lifecycle requirements (the IUT as the target of directed work).
var (
	LifeReceipt = lifecycle.Declare(rules.Rule{ID: "LIFE-RECEIPT-ON-OPEN", Severity: rules.Warning,
		Clause: "The target of directed work SHOULD acknowledge the opening say or capability with a receipt whose for_id is the opening id.",
		Source: lifecycleSrc})
	LifeCorrelation = lifecycle.Declare(rules.Rule{ID: "LIFE-CORRELATION",
		Clause: "Receipts and traces for a work unit MUST carry its work_id, surface and container id and be addressed to the initiator.",
		Source: lifecycleSrc + " §Container binding"})
	LifeTransitions = lifecycle.Declare(rules.Rule{ID: "LIFE-TRANSITIONS",
		Clause: "Work MUST move only along the defined transitions (submitted→working→needs_input/completed/failed/canceled…) and never back to submitted.",
		Source: lifecycleSrc + " §States"})
	LifeTerminal = lifecycle.Declare(rules.Rule{ID: "LIFE-TERMINAL-FINAL",
		Clause: "Terminal work (completed, failed, canceled) MUST NOT be reopened by later messages.",
		Source: lifecycleSrc + " §Terminal states"})
	LifeWorkClosed = lifecycle.Declare(rules.Rule{ID: "LIFE-WORK-CLOSED", Severity: rules.Warning, Reason: "work_closed",
		Clause: "A late message for terminal work MAY be refused with reason_code work_closed; since a refusal of a message carrying usable work context SHOULD be answered with a receipt of its failure class (DELIV-REFUSAL-RECEIPT), a late continuation SHOULD get a rejected receipt with reason_code work_closed.",
		Source: lifecycleSrc + " §Terminal states"})
	LifeCancelIdempotent = lifecycle.Declare(rules.Rule{ID: "LIFE-CANCEL-IDEMPOTENT", Severity: rules.Warning,
		Clause: "Cancellation SHOULD be idempotent: cancelling canceled work changes nothing and reports no second cancellation.",
		Source: lifecycleSrc + " §Cancellation"})
	LifeContainer = lifecycle.Declare(rules.Rule{ID: "LIFE-CONTAINER-BINDING", Reason: "work_container_mismatch",
		Clause: "A message with the same work_id from another conversation container MUST NOT change the work (the reference refuses it with work_container_mismatch).",
		Source: lifecycleSrc + " §Container binding"})
	LifeNonParticipant = lifecycle.Declare(rules.Rule{ID: "LIFE-NON-PARTICIPANT", Reason: "not_target",
		Clause: "A lifecycle message from a peer that is neither initiator nor target MUST NOT change the work's state.",
		Source: lifecycleSrc + " §Participants"})
	LifeNeedsInput = lifecycle.Declare(rules.Rule{ID: "LIFE-NEEDS-INPUT-RESUME",
		Clause: "A say with the same work_id from the initiator MUST move needs_input work back to working.",
		Source: lifecycleSrc + " §States"})
	LifeNoInvention = lifecycle.Declare(rules.Rule{ID: "LIFE-NO-INVENTED-WORK",
		Clause: "A receiver MUST NOT invent a work_id: a say without work_id gets no receipt or trace.",
		Source: lifecycleSrc})
)

// Delivery requirements.
var (
	DelivExpired = delivery.Declare(rules.Rule{ID: "DELIV-EXPIRED-REJECT", Reason: "expired",
		Clause: "A receiver MUST reject a message whose expires_at is at or before its current time: no acceptance, no success trace.",
		Source: deliverySrc + " §Freshness"})
	DelivExpiredReceipt = delivery.Declare(rules.Rule{ID: "DELIV-EXPIRED-RECEIPT", Severity: rules.Warning, Reason: "expired",
		Clause: "A refused expired message that carries work context SHOULD get a receipt with status expired and reason_code expired.",
		Source: deliverySrc + " §Reason codes"})
	DelivReplayAge = delivery.Declare(rules.Rule{ID: "DELIV-REPLAY-AGE", Severity: rules.Warning, Reason: "expired",
		Clause: "Without expires_at, a receiver SHOULD reject a message older than its replay age (default 300 s).",
		Source: deliverySrc + " §Freshness"})
	DelivDedupe = delivery.Declare(rules.Rule{ID: "DELIV-DEDUPE", Severity: rules.Warning, Reason: "duplicate",
		Clause: "A receiver SHOULD deduplicate by id within the replay window: a repeated id is not processed again (receipt status duplicate).",
		Source: deliverySrc + " §Deduplication"})
	DelivMalformed = delivery.Declare(rules.Rule{ID: "DELIV-MALFORMED-REFUSED", Reason: "malformed",
		Clause: "A malformed message MUST NOT be processed; with usable work context it is refused with reason_code malformed.",
		Source: kindsSrc + " §Reason codes"})
	DelivFailureClasses = delivery.Declare(rules.Rule{ID: "DELIV-FAILURE-CLASSES",
		Clause: "Refusals MUST keep the failure classes apart: malformed, unsupported profile, verification failure, expired, duplicate and application rejection each get their own reason_code.",
		Source: "AGH Network v0, Conformance Levels"})
	DelivGarbage = delivery.Declare(rules.Rule{ID: "DELIV-GARBAGE-SURVIVED",
		Clause: "A receiver MUST survive bytes that are not an envelope (not JSON, not an object, oversized fields) and keep serving valid traffic.",
		Source: deliverySrc})
)

// Discovery and extension requirements.
var (
	DiscGreet = discovery.Declare(rules.Rule{ID: "DISC-GREET-ON-JOIN", Severity: rules.Warning,
		Clause: "A peer SHOULD publish a greet with its Peer Card on the broadcast subject when it joins a channel.",
		Source: natsSrc + " §Joining a channel"})
	DiscWhoisDirected = discovery.Declare(rules.Rule{ID: "DISC-WHOIS-DIRECTED", Severity: rules.Warning,
		Clause: "A directed whois request SHOULD be answered by the addressed peer, with reply_to the request id, even when the query does not match.",
		Source: discoSrc})
	DiscWhoisBroadcast = discovery.Declare(rules.Rule{ID: "DISC-WHOIS-BROADCAST", Severity: rules.Warning,
		Clause: "A broadcast whois whose query names the peer (id, display name, capability, profile) SHOULD be answered; one that names nothing it has gets no answer.",
		Source: discoSrc})
	DiscCatalog = discovery.Declare(rules.Rule{ID: "DISC-CAPABILITY-CATALOG",
		Clause: "The capability catalog MUST appear at envelope ext[\"agh.capability_catalog\"] only when the request asked for it, never in peer_card.ext.",
		Source: discoSrc + " §Capability catalog"})
	ExtUnknownIgnored = extensions.Declare(rules.Rule{ID: "EXT-UNKNOWN-IGNORED",
		Clause: "Receivers MUST ignore extension keys they do not understand: work carrying an unknown ext key is processed as without it.",
		Source: "AGH Network v0, Envelope §Extension rules"})
)

// NATS binding requirements.
var (
	NATSSubject = natsRules.Declare(rules.Rule{ID: "NATS-PUBLISH-SUBJECT",
		Clause: "A sender MUST publish broadcast envelopes (to null) on the channel broadcast subject and directed ones on the target's peer subject with the correct route token.",
		Source: natsSrc + " §Subject mapping"})
	NATSListen = natsRules.Declare(rules.Rule{ID: "NATS-PEER-SUBJECT",
		Clause: "A NATS peer MUST subscribe to its own peer subject, derived from its route token, and receive directed envelopes there.",
		Source: natsSrc + " §Joining a channel"})
	NATSPayload = natsRules.Declare(rules.Rule{ID: "NATS-MAX-PAYLOAD",
		Clause: "A NATS peer MUST accept envelopes up to 1 MiB serialized.",
		Source: natsSrc + " §Connection configuration"})
	NATSFlood = natsRules.Declare(rules.Rule{ID: "NATS-PUBLISH-RATE",
		Clause: "A peer MUST NOT flood the channel: it publishes in response to traffic and for presence, not unbounded.",
		Source: deliverySrc})
	NATSRegreet = natsRules.Declare(rules.Rule{ID: "NATS-GREET-RECONNECT", Severity: rules.Warning,
		Clause: "A NATS peer SHOULD publish greet again after reconnecting to the broker.",
		Source: natsSrc + " §Joining a channel"})
	NATSBroadcastNotAddressed = natsRules.Declare(rules.Rule{ID: "NATS-BROADCAST-NOT-ADDRESSED",
		Clause: "Directed routing MUST use the target's peer subject: an envelope addressed to another peer, seen on the broadcast subject, is not addressed to the receiver and MUST NOT be worked on.",
		Source: natsSrc + " §Subject mapping"})
	JetStreamReceipt = natsRules.Declare(rules.Rule{ID: "NATS-JETSTREAM-ACK-NOT-RECEIPT",
		Clause: "A JetStream publish acknowledgement is not an AGH acceptance: an envelope delivered through a stream gets the same receipt, and a replayed id the same deduplication, as on NATS Core.",
		Source: natsSrc + " §JetStream persistence profile"})
)

// Trust requirements for a receiver.
var (
	TrustRxReject = trustRules.Declare(rules.Rule{ID: "TRUST-RX-REJECT-BAD-PROOF", Reason: "verification_failed",
		Clause: "A receiver MUST reject an envelope whose proof fails verification (or a handle whose proof was stripped) with verification_failed and never process it.",
		Source: trustSrc})
	TrustRxAccept = trustRules.Declare(rules.Rule{ID: "TRUST-RX-ACCEPT-VERIFIED",
		Clause: "A receiver MUST process a correctly signed envelope from a verified handle like any other, replying on the handle's route token.",
		Source: trustSrc})
)
