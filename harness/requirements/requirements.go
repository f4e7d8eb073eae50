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

func r(id, profile string, sev rules.Severity, reason, clause, src string) *rules.Rule {
	return &rules.Rule{ID: id, Profile: profile, Severity: sev, Reason: reason, Clause: clause, Source: src}
}

// Lifecycle requirements (the IUT as the target of directed work).
var (
	LifeReceipt = r("LIFE-RECEIPT-ON-OPEN", "agh-lifecycle", rules.Warning, "",
		"The target of directed work SHOULD acknowledge the opening say or capability with a receipt whose for_id is the opening id.", lifecycleSrc)
	LifeCorrelation = r("LIFE-CORRELATION", "agh-lifecycle", rules.Error, "",
		"Receipts and traces for a work unit MUST carry its work_id, surface and container id and be addressed to the initiator.", lifecycleSrc+" §Container binding")
	LifeTransitions = r("LIFE-TRANSITIONS", "agh-lifecycle", rules.Error, "",
		"Work MUST move only along the defined transitions (submitted→working→needs_input/completed/failed/canceled…) and never back to submitted.", lifecycleSrc+" §States")
	LifeTerminal = r("LIFE-TERMINAL-FINAL", "agh-lifecycle", rules.Error, "",
		"Terminal work (completed, failed, canceled) MUST NOT be reopened by later messages.", lifecycleSrc+" §Terminal states")
	LifeWorkClosed = r("LIFE-WORK-CLOSED", "agh-lifecycle", rules.Warning, "work_closed",
		"A late message for terminal work SHOULD be refused with reason_code work_closed.", lifecycleSrc+" §Terminal states")
	LifeCancelIdempotent = r("LIFE-CANCEL-IDEMPOTENT", "agh-lifecycle", rules.Error, "",
		"Cancellation MUST be idempotent: cancelling canceled work changes nothing and reports no second cancellation.", lifecycleSrc+" §Cancellation")
	LifeContainer = r("LIFE-CONTAINER-BINDING", "agh-lifecycle", rules.Error, "work_container_mismatch",
		"A message with the same work_id from another conversation container MUST NOT change the work (the reference refuses it with work_container_mismatch).", lifecycleSrc+" §Container binding")
	LifeNonParticipant = r("LIFE-NON-PARTICIPANT", "agh-lifecycle", rules.Error, "not_target",
		"A lifecycle message from a peer that is neither initiator nor target MUST NOT change the work's state.", lifecycleSrc+" §Participants")
	LifeNeedsInput = r("LIFE-NEEDS-INPUT-RESUME", "agh-lifecycle", rules.Error, "",
		"A say with the same work_id from the initiator MUST move needs_input work back to working.", lifecycleSrc+" §States")
	LifeNoInvention = r("LIFE-NO-INVENTED-WORK", "agh-lifecycle", rules.Error, "",
		"A receiver MUST NOT invent a work_id: a say without work_id gets no receipt or trace.", lifecycleSrc)
)

// Delivery requirements.
var (
	DelivExpired = r("DELIV-EXPIRED-REJECT", "agh-delivery", rules.Error, "expired",
		"A receiver MUST reject a message whose expires_at is at or before its current time: no acceptance, no success trace.", deliverySrc+" §Freshness")
	DelivExpiredReceipt = r("DELIV-EXPIRED-RECEIPT", "agh-delivery", rules.Warning, "expired",
		"A refused expired message that carries work context SHOULD get a receipt with status expired and reason_code expired.", deliverySrc+" §Reason codes")
	DelivReplayAge = r("DELIV-REPLAY-AGE", "agh-delivery", rules.Warning, "expired",
		"Without expires_at, a receiver SHOULD reject a message older than its replay age (default 300 s).", deliverySrc+" §Freshness")
	DelivDedupe = r("DELIV-DEDUPE", "agh-delivery", rules.Warning, "duplicate",
		"A receiver SHOULD deduplicate by id within the replay window: a repeated id is not processed again (receipt status duplicate).", deliverySrc+" §Deduplication")
	DelivMalformed = r("DELIV-MALFORMED-REFUSED", "agh-delivery", rules.Error, "malformed",
		"A malformed message MUST NOT be processed; with usable work context it is refused with reason_code malformed.", kindsSrc+" §Reason codes")
	DelivFailureClasses = r("DELIV-FAILURE-CLASSES", "agh-delivery", rules.Error, "",
		"Refusals MUST keep the failure classes apart: malformed, unsupported profile, verification failure, expired, duplicate and application rejection each get their own reason_code.", "AGH Network v0, Conformance Levels")
	DelivGarbage = r("DELIV-GARBAGE-SURVIVED", "agh-delivery", rules.Error, "",
		"A receiver MUST survive bytes that are not an envelope (not JSON, not an object, oversized fields) and keep serving valid traffic.", deliverySrc)
)

// Discovery and extension requirements.
var (
	DiscGreet = r("DISC-GREET-ON-JOIN", "agh-discovery", rules.Warning, "",
		"A peer SHOULD publish a greet with its Peer Card on the broadcast subject when it joins a channel.", natsSrc+" §Joining a channel")
	DiscWhoisDirected = r("DISC-WHOIS-DIRECTED", "agh-discovery", rules.Warning, "",
		"A directed whois request SHOULD be answered by the addressed peer, with reply_to the request id, even when the query does not match.", discoSrc)
	DiscWhoisBroadcast = r("DISC-WHOIS-BROADCAST", "agh-discovery", rules.Warning, "",
		"A broadcast whois whose query names the peer (id, display name, capability, profile) SHOULD be answered; one that names nothing it has gets no answer.", discoSrc)
	DiscCatalog = r("DISC-CAPABILITY-CATALOG", "agh-discovery", rules.Error, "",
		"The capability catalog MUST appear at envelope ext[\"agh.capability_catalog\"] only when the request asked for it, never in peer_card.ext.", discoSrc+" §Capability catalog")
	ExtUnknownIgnored = r("EXT-UNKNOWN-IGNORED", "agh-extensions", rules.Error, "",
		"Receivers MUST ignore extension keys they do not understand: work carrying an unknown ext key is processed as without it.", "AGH Network v0, Envelope §Extension rules")
)

// NATS binding requirements.
var (
	NatsSubject = r("NATS-PUBLISH-SUBJECT", "agh-nats", rules.Error, "",
		"A sender MUST publish broadcast envelopes (to null) on the channel broadcast subject and directed ones on the target's peer subject with the correct route token.", natsSrc+" §Subject mapping")
	NatsListen = r("NATS-PEER-SUBJECT", "agh-nats", rules.Error, "",
		"A NATS peer MUST subscribe to its own peer subject, derived from its route token, and receive directed envelopes there.", natsSrc+" §Joining a channel")
	NatsPayload = r("NATS-MAX-PAYLOAD", "agh-nats", rules.Error, "",
		"A NATS peer MUST accept envelopes up to 1 MiB serialized.", natsSrc+" §Connection configuration")
	NatsFlood = r("NATS-PUBLISH-RATE", "agh-nats", rules.Error, "",
		"A peer MUST NOT flood the channel: it publishes in response to traffic and for presence, not unbounded.", deliverySrc)
	NatsRegreet = r("NATS-GREET-RECONNECT", "agh-nats", rules.Warning, "",
		"A NATS peer SHOULD publish greet again after reconnecting to the broker.", natsSrc+" §Joining a channel")
	JetStreamReceipt = r("NATS-JETSTREAM-ACK-NOT-RECEIPT", "agh-nats", rules.Error, "",
		"A JetStream publish acknowledgement is not an AGH acceptance: an envelope delivered through a stream gets the same receipt, and a replayed id the same deduplication, as on NATS Core.", natsSrc+" §JetStream persistence profile")
)

// Trust requirements for a receiver.
var (
	TrustRxReject = r("TRUST-RX-REJECT-BAD-PROOF", "agh-trust", rules.Error, "verification_failed",
		"A receiver MUST reject an envelope whose proof fails verification (or a handle whose proof was stripped) with verification_failed and never process it.", trustSrc)
	TrustRxAccept = r("TRUST-RX-ACCEPT-VERIFIED", "agh-trust", rules.Error, "",
		"A receiver MUST process a correctly signed envelope from a verified handle like any other, replying on the handle's route token.", trustSrc)
)

func init() {
	rules.Register(
		LifeReceipt, LifeCorrelation, LifeTransitions, LifeTerminal, LifeWorkClosed, LifeCancelIdempotent,
		LifeContainer, LifeNonParticipant, LifeNeedsInput, LifeNoInvention,
		DelivExpired, DelivExpiredReceipt, DelivReplayAge, DelivDedupe, DelivMalformed, DelivFailureClasses, DelivGarbage,
		DiscGreet, DiscWhoisDirected, DiscWhoisBroadcast, DiscCatalog, ExtUnknownIgnored,
		NatsSubject, NatsListen, NatsPayload, NatsFlood, NatsRegreet, JetStreamReceipt,
		TrustRxReject, TrustRxAccept,
	)
}
