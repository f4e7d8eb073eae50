// Package requirements declares the behavioural requirements only a live
// run can judge (work lifecycle, delivery, discovery, extensions, NATS
// subjects, trust as a receiver); package catalogue puts them in the one rule
// catalogue, next to the envelope rules of package agh, so scenarios, reports and docs/rules.md
// cite them by the same stable ids.
package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

const (
	lifecycleSrc = "AGH Network v0, Work Lifecycle"
	deliverySrc  = "AGH Network v0, Delivery Guarantees"
	kindsSrc     = "AGH Network v0, Message Kinds"
	discoSrc     = "AGH Network v0, Peer Discovery"
	capDiscoSrc  = "AGH Network v0, Capability Discovery"
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
		Source: lifecycleSrc,
		Basis:  `Work Lifecycle §Opening work: "The target SHOULD reply with a receipt when it accepts or rejects responsibility."`})
	LifeCorrelation = lifecycle.Declare(rules.Rule{ID: "LIFE-CORRELATION",
		Clause: "Receipts and traces for a work unit MUST carry its work_id and the surface and container id of its opening, and a receipt those of the envelope it acknowledges; the refusal of a message that carries the work's work_id from another container (work_container_mismatch) may carry that message's container or the work's (docs/errata.md, erratum 14). Whom they address is RECEIPT-TO and TRACE-TO, SHOULDs.",
		Source: lifecycleSrc + " §Container binding",
		Basis:  `Work Lifecycle §Directed work rules: "A receipt or trace envelope MUST carry surface, the matching container ID, and the same work_id."; Message Kinds §receipt: surface "MUST match the surface of the work being acknowledged" (whom it is addressed to is a SHOULD: RECEIPT-TO, TRACE-TO)`})
	LifeTransitions = lifecycle.Declare(rules.Rule{ID: "LIFE-TRANSITIONS",
		Clause: "Work MUST move only along the defined transitions (submitted→working→needs_input/completed/failed/canceled…) and never back to submitted.",
		Source: lifecycleSrc + " §States",
		Basis:  `Message Kinds §trace body fields, state: "A trace update MUST NOT move existing work back to submitted."; Work Lifecycle §Lifecycle states: the state diagram of a normative page ("Only active states can transition.")`})
	LifeTerminal = lifecycle.Declare(rules.Rule{ID: "LIFE-TERMINAL-FINAL",
		Clause: "Terminal work (completed, failed, canceled) MUST NOT be reopened by later messages.",
		Source: lifecycleSrc + " §Terminal states",
		Basis:  `Work Lifecycle §Lifecycle states: "later non-terminal updates MUST NOT move it back to an active state."`})
	LifeWorkClosed = lifecycle.Declare(rules.Rule{ID: "LIFE-WORK-CLOSED", Severity: rules.Warning, Reason: "work_closed",
		Clause: "A late message for terminal work MAY be refused with reason_code work_closed; since a refusal of a message carrying usable work context SHOULD be answered with a receipt of its failure class (DELIV-REFUSAL-RECEIPT), a late continuation SHOULD get a rejected receipt with reason_code work_closed.",
		Source: lifecycleSrc + " §Terminal states",
		Basis:  `Work Lifecycle §Lifecycle states: "Late lifecycle messages MAY be rejected with reason_code = work_closed."; §Directed work rules: "A receiver SHOULD emit receipt(rejected) with a reason code when it refuses responsibility."`})
	LifeCancelIdempotent = lifecycle.Declare(rules.Rule{ID: "LIFE-CANCEL-IDEMPOTENT", Severity: rules.Warning,
		Clause: "Cancellation SHOULD be idempotent: cancelling canceled work changes nothing and reports no second cancellation.",
		Source: lifecycleSrc + " §Cancellation",
		Basis:  `Work Lifecycle §Cancellations: "Implementations SHOULD make cancellation idempotent."`})
	LifeContainer = lifecycle.Declare(rules.Rule{ID: "LIFE-CONTAINER-BINDING", Reason: "work_container_mismatch",
		Clause: "A message with the same work_id from another conversation container MUST NOT change the work (the reference refuses it with work_container_mismatch).",
		Source: lifecycleSrc + " §Container binding",
		Basis:  `Work Lifecycle §Conversation-container binding: "The runtime MUST reject lifecycle messages for the same work_id whose conversation fields do not match the opening envelope." (the reason_code work_container_mismatch is the reference's, not a MUST)`})
	LifeNonParticipant = lifecycle.Declare(rules.Rule{ID: "LIFE-NON-PARTICIPANT", Reason: "not_target",
		Clause: "A lifecycle message from a peer that is neither initiator nor target MUST NOT change the work's state.",
		Source: lifecycleSrc + " §Participants",
		Basis:  `Work Lifecycle §Work scope: "A message from a non-participant or from a different container MUST NOT change the lifecycle state."`})
	LifeNeedsInput = lifecycle.Declare(rules.Rule{ID: "LIFE-NEEDS-INPUT-RESUME",
		Clause: "A say with the same work_id from the initiator MUST move needs_input work back to working.",
		Source: lifecycleSrc + " §States",
		Basis:  `Work Lifecycle §Lifecycle states: the transition needs_input to working on "say or capability with same work_id", in the state diagram of a normative page (no keyword: MUST)`})
	LifeNoInvention = lifecycle.Declare(rules.Rule{ID: "LIFE-NO-INVENTED-WORK",
		Clause: "A receiver MUST NOT invent a work_id: a say without work_id gets no receipt or trace.",
		Source: lifecycleSrc,
		Basis:  `Work Lifecycle §Conversation messages without lifecycle: "A receiver MUST NOT synthesize a work_id from say text alone."`})
)

// Delivery requirements.
var (
	DelivExpired = delivery.Declare(rules.Rule{ID: "DELIV-EXPIRED-REJECT", Reason: "expired",
		Clause: "A receiver MUST reject a message whose expires_at is at or before its current time: no acceptance, no success trace.",
		Source: deliverySrc + " §Freshness",
		Basis:  `Delivery Guarantees §Core guarantees: "Receivers MUST reject messages whose expires_at has passed."`})
	DelivExpiredReceipt = delivery.Declare(rules.Rule{ID: "DELIV-EXPIRED-RECEIPT", Severity: rules.Warning, Reason: "expired",
		Clause: "A refused expired message that carries work context SHOULD get a receipt with status expired and reason_code expired.",
		Source: deliverySrc + " §Reason codes",
		Basis:  `Delivery Guarantees §Receiver responsibilities: a receiver SHOULD "Use receipt for directed acceptance, rejection, duplicate detection, expiration, ... when the sender needs visible state."`})
	DelivReplayAge = delivery.Declare(rules.Rule{ID: "DELIV-REPLAY-AGE", Severity: rules.Warning, Reason: "expired",
		Clause: "Without expires_at, a receiver SHOULD reject a message older than its replay age (default 300 s).",
		Source: deliverySrc + " §Freshness",
		Basis:  `Envelope §Freshness rules: "When expires_at is absent, receivers SHOULD enforce a bounded replay-age policy."`})
	DelivDedupe = delivery.Declare(rules.Rule{ID: "DELIV-DEDUPE", Severity: rules.Warning, Reason: "duplicate",
		Clause: "A receiver SHOULD deduplicate by id within the replay window: a repeated id is not processed again (receipt status duplicate).",
		Source: deliverySrc + " §Deduplication",
		Basis:  `Delivery Guarantees §Core guarantees: "Receivers SHOULD deduplicate by envelope id inside a replay window."`})
	DelivMalformed = delivery.Declare(rules.Rule{ID: "DELIV-MALFORMED-REFUSED", Reason: "malformed",
		Clause: "A malformed message MUST be rejected, never processed: no acceptance, no trace, no answer (the receipt that says so, and its reason_code malformed, are SHOULDs: DELIV-REFUSAL-RECEIPT, DELIV-FAILURE-CLASSES).",
		Source: conformanceSrc + " §Core Receiver; " + kindsSrc + " §Reason codes",
		Basis:  `Conformance Levels §Core Receiver: "A Core Receiver MUST:" ... "reject malformed messages" (the reason_code is a SHOULD: DELIV-REFUSAL-RECEIPT, DELIV-FAILURE-CLASSES)`})
	DelivFailureClasses = delivery.Declare(rules.Rule{ID: "DELIV-FAILURE-CLASSES", Severity: rules.Warning,
		Clause: "Refusals SHOULD keep the failure classes apart, never one generic failure: malformed, unsupported profile, verification failure, expired, duplicate and application rejection each get their own reason_code.",
		Source: conformanceSrc + " §Failure handling; " + kindsSrc + " §Reason codes",
		Basis:  `Conformance Levels §Failure handling: "Collapsing these cases into a generic failure ... SHOULD be avoided"; Message Kinds §Reason codes: refusals "SHOULD use one of these reason codes". The MUST there, "A test runner MUST distinguish", binds aghcheck, not the peer`})
	DelivExpiredNoSideEffect = delivery.Declare(rules.Rule{ID: "DELIV-EXPIRED-NO-SIDE-EFFECT", Severity: rules.Warning,
		Clause: "A receiver SHOULD reject an expired message before any side effect: it does not remember its id, so a fresh retry of the same message (same id, a new expiry) is taken as new work, not refused as a duplicate.",
		Source: deliverySrc + " §Receiver responsibilities",
		Basis:  `Delivery Guarantees §Receiver responsibilities: a receiver SHOULD "Reject expired messages before side effects."; §Retry semantics: a retry of the same logical envelope keeps its id`})
	DelivValidateBeforeRouting = delivery.Declare(rules.Rule{ID: "DELIV-VALIDATE-BEFORE-ROUTING", Severity: rules.Warning,
		Clause: "A receiver SHOULD validate an envelope before routing it: a malformed message on its peer subject that names another peer in to is refused as malformed (or in silence), never as not_target.",
		Source: deliverySrc + " §Receiver responsibilities; AGH Network v0, Envelope §Validation order",
		Basis:  `Delivery Guarantees §Receiver responsibilities: a receiver SHOULD "Validate the envelope before routing."; Envelope §Validation order: routing rules (step 6) after the envelope, surface and body checks (steps 2 to 5)`})
	DelivGarbage = delivery.Declare(rules.Rule{ID: "DELIV-GARBAGE-SURVIVED",
		Clause: "A receiver MUST survive bytes that are not an envelope (not JSON, not an object, oversized fields) and keep serving valid traffic.",
		Source: deliverySrc,
		Basis:  `Conformance Levels §Core Receiver: "A Core Receiver MUST:" ... "reject malformed messages" (bytes that are no envelope are the first case; Envelope §Validation order, step 1)`})
)

// Discovery and extension requirements.
var (
	DiscGreet = discovery.Declare(rules.Rule{ID: "DISC-GREET-ON-JOIN", Severity: rules.Warning,
		Clause: "A peer SHOULD publish a greet with its Peer Card on the broadcast subject when it joins a channel.",
		Source: natsSrc + " §Joining a channel",
		Basis:  `NATS binding §Joining a channel, step 3: "SHOULD publish a greet envelope to the broadcast subject."; Peer Discovery §Announcing with greet: "A peer SHOULD send greet when it joins a channel or reconnects."`})
	DiscWhoisDirected = discovery.Declare(rules.Rule{ID: "DISC-WHOIS-DIRECTED", Severity: rules.Warning,
		Clause: "A directed whois request SHOULD be answered by the addressed peer, with reply_to the request id, even when the query does not match.",
		Source: discoSrc,
		Basis:  `Peer Discovery §Matching semantics: "A directed whois request SHOULD be answered by the addressed peer when it is present, even when the query text would not otherwise match."`})
	DiscWhoisBroadcast = discovery.Declare(rules.Rule{ID: "DISC-WHOIS-BROADCAST", Severity: rules.Warning,
		Clause: "A broadcast whois whose query names the peer (id, display name, capability, profile) SHOULD be answered; one that names nothing it has gets no answer.",
		Source: discoSrc,
		Basis:  `Peer Discovery §Matching semantics: "Receivers SHOULD match whois queries against local peer metadata."`})
	DiscCatalog = discovery.Declare(rules.Rule{ID: "DISC-CAPABILITY-CATALOG",
		Clause: "A whois response MUST NOT carry the capability catalog unless its request asked for it (ext agh.include holding capability_catalog), and never inside peer_card.ext; where it does carry it, ext[\"agh.capability_catalog\"].capabilities is an array.",
		Source: discoSrc + " §Rich discovery; " + capDiscoSrc + " §Request extensions, §Response rules",
		Basis:  `Capability Discovery §Request extensions: "When agh.include does not contain capability_catalog, the responder MUST NOT add agh.capability_catalog to the response envelope."; §Response rules: the catalog lives in the envelope-level ext, "never inside peer_card.ext"`})
	DiscCatalogFilter = discovery.Declare(rules.Rule{ID: "DISC-CATALOG-FILTER",
		Clause: `A whois request for the capability catalog whose agh.capability_ids name no capability of the responder (unknown ids included) MUST get ext["agh.capability_catalog"].capabilities [] when the catalog comes: the filter keeps only the capabilities it names.`,
		Source: capDiscoSrc + " §Response rules",
		Basis:  `Capability Discovery §Response rules: "When agh.capability_ids filters out every capability (including when every ID is unknown), agh.capability_catalog.capabilities MUST be []."`})
	DiscIncludeUnknown = discovery.Declare(rules.Rule{ID: "DISC-INCLUDE-UNKNOWN", Severity: rules.Warning,
		Clause: "A responder SHOULD ignore values of agh.include it does not know: a request for the capability catalog that also names an unknown value gets the catalog as it would without it.",
		Source: capDiscoSrc + " §Request extensions",
		Basis:  `Capability Discovery §Request extensions: "Receivers SHOULD ignore unknown values inside agh.include so that future extensions stay forward-compatible."`})
	DiscCapabilityArtifact = discovery.Declare(rules.Rule{ID: "DISC-CAPABILITY-ARTIFACT", Severity: rules.Warning,
		Clause: `A peer that takes capability transfers (it accepts work opened by a capability envelope) SHOULD list "capability" in its Peer Card's artifacts_supported, even when its capabilities are empty.`,
		Source: discoSrc + " §Peer Card",
		Basis:  `Peer Discovery §Peer Card, artifacts_supported: "AGH v0 peers that support unified capability transfer SHOULD include "capability" even when capabilities is empty."`})
	ExtUnknownIgnored = extensions.Declare(rules.Rule{ID: "EXT-UNKNOWN-IGNORED",
		Clause: "Receivers MUST ignore extension keys they do not understand: work carrying an unknown ext key is processed as without it.",
		Source: "AGH Network v0, Envelope §Extension rules",
		Basis:  `Envelope §Fields, ext: "Receivers MUST ignore unknown extension keys they do not understand."`})
)

// NATS binding requirements.
var (
	NATSSubject = natsRules.Declare(rules.Rule{ID: "NATS-PUBLISH-SUBJECT",
		Clause: "A sender MUST publish broadcast envelopes (to null) on the channel broadcast subject and directed ones on the target's peer subject with the correct route token.",
		Source: natsSrc + " §Subject mapping",
		Basis:  `NATS binding §Subject mapping: "A sender MUST publish broadcast envelopes to the channel broadcast subject." and "A sender MUST publish directed envelopes to the target peer direct subject."`})
	NATSListen = natsRules.Declare(rules.Rule{ID: "NATS-PEER-SUBJECT",
		Clause: "A NATS peer MUST subscribe to its own peer subject, derived from its route token, and receive directed envelopes there.",
		Source: natsSrc + " §Joining a channel",
		Basis:  `NATS binding §Route tokens: "Each NATS peer MUST derive a route token for direct subjects."; Conformance Levels §Full conformance: a Full NATS Peer MUST "subscribe to agh.network.v0.<workspace_id>.<channel>.peer.<own_route_token>"`})
	NATSPayload = natsRules.Declare(rules.Rule{ID: "NATS-MAX-PAYLOAD",
		Clause: "A NATS peer MUST accept envelopes up to 1 MiB serialized.",
		Source: natsSrc + " §Connection configuration",
		Basis:  `NATS binding §Connection configuration, Maximum payload: "MUST support at least 1 MiB serialized envelopes."`})
	NATSFlood = natsRules.Declare(rules.Rule{ID: "NATS-PUBLISH-RATE",
		Clause: "A peer MUST NOT flood the channel: it publishes in response to traffic and for presence, not unbounded.",
		Source: deliverySrc,
		Basis:  "No modal sentence of the pages bounds how much a peer publishes: aghcheck's own limits (5000 envelopes or 32 MiB a run), read from the pages' posture (a peer publishes in reply to traffic and greets once an interval) and graded MUST by passive judging"})
	NATSRegreet = natsRules.Declare(rules.Rule{ID: "NATS-GREET-RECONNECT", Severity: rules.Warning,
		Clause: "A NATS peer SHOULD publish greet again after reconnecting to the broker.",
		Source: natsSrc + " §Joining a channel",
		Basis:  `NATS binding §Joining a channel, step 4: "SHOULD publish greet again after reconnecting."`})
	NATSBroadcastNotAddressed = natsRules.Declare(rules.Rule{ID: "NATS-BROADCAST-NOT-ADDRESSED",
		Clause: "Directed routing MUST use the target's peer subject: an envelope addressed to another peer, seen on the broadcast subject, is not addressed to the receiver and MUST NOT be worked on.",
		Source: natsSrc + " §Subject mapping",
		Basis:  `NATS binding §Binding scope: "Directed routing MUST use a peer direct subject."; Work Lifecycle §Directed work rules: the opening's to is the target, and "Only those two peers MAY emit lifecycle messages for that work unit."`})
	JetStreamReceipt = natsRules.Declare(rules.Rule{ID: "NATS-JETSTREAM-ACK-NOT-RECEIPT",
		Clause: "A JetStream publish acknowledgement is not an AGH acceptance: an envelope delivered through a stream gets the same receipt, and a replayed id the same deduplication, as on NATS Core.",
		Source: natsSrc + " §JetStream persistence profile",
		Basis:  `NATS binding §JetStream persistence profile: "Replayed messages MUST pass the same envelope validation, freshness checks, trust evaluation, and deduplication as live messages."; Conformance Levels §Capability matrix: acknowledgements are "transport-level only", MUST at Full`})
)

// Trust requirements for a receiver.
var (
	TrustRxReject = trustRules.Declare(rules.Rule{ID: "TRUST-RX-REJECT-BAD-PROOF", Reason: "verification_failed",
		Clause: "A receiver MUST reject an envelope whose proof fails verification (or a handle whose proof was stripped) and never process it; verification_failed is the recommended reason_code (a SHOULD).",
		Source: trustSrc,
		Basis:  `Signature Verification §Verification algorithm: "If any required step fails, the receiver MUST classify the envelope as rejected."; §Trust states, rejected: "Receiver MUST stop normal routing" (verification_failed is the §Error semantics "Recommended reason code": a SHOULD)`})
	TrustRxAccept = trustRules.Declare(rules.Rule{ID: "TRUST-RX-ACCEPT-VERIFIED",
		Clause: "A receiver MUST process a correctly signed envelope from a verified handle like any other, replying on the handle's route token.",
		Source: trustSrc,
		Basis:  `Conformance Levels §Trust conformance: a Trust-level receiver MUST "classify valid baseline proofs as verified"; NATS binding §Route tokens: in verified mode the route token "MUST use the fingerprint suffix from from."`})
)

// Rules returns every requirement this package declares, of every profile,
// for the catalogue. A new declarer belongs in this list too: the scenario
// loader refuses a scenario citing a rule the catalogue lacks, so one left
// out shows in the scenario tests.
func Rules() []*rules.Rule {
	var out []*rules.Rule
	for _, d := range []*rules.Declarer{&lifecycle, &delivery, &discovery, &extensions, &natsRules, &trustRules, &conformance, &optional} {
		out = append(out, d.Rules()...)
	}
	return out
}
