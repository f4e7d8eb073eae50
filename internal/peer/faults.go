package peer

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
)

// Fault is one deliberate misbehaviour of the reference peer, or one
// allowed variant of its behaviour. Every fault but the liveness ones must
// be caught by at least one scenario of the suite group it names; every
// allowed variant must pass every scenario.
type Fault struct {
	Name string
	// Group is the conformance suite group expected to catch it; liveness:
	// faults of a slow or dying peer, which break no protocol rule and
	// which the harness's liveness reporting, not a suite, judges; or
	// allowed (GroupAllowed): a behaviour the pages leave to the peer.
	Group       string
	Description string
	// Requirements are the rule ids the fault breaks: a scenario citing
	// one of them must catch it (the mutation test in package harness).
	Requirements []string
}

const (
	faultAcceptMalformed    = "accept-malformed"
	faultGreetCardMismatch  = "greet-card-mismatch"
	faultWhoisNoReplyTo     = "whois-no-reply-to"
	faultWhoisOnBroadcast   = "whois-response-on-broadcast"
	faultReopenTerminal     = "reopen-terminal"
	faultCancelNotIdem      = "cancel-not-idempotent"
	faultIgnoreContainer    = "ignore-container"
	faultAcceptExpired      = "accept-expired"
	faultNoDedupe           = "no-dedupe"
	faultRejectUnknownExt   = "reject-unknown-ext"
	faultAcceptBadSignature = "accept-bad-signature"
	faultReceiptOnBroadcast = "receipt-on-broadcast"
	faultWrongRouteToken    = "wrong-route-token"
	faultListenWrongRoute   = "listen-wrong-route"
	faultNoRegreet          = "no-greet-after-reconnect"
	// Faults only a view across envelopes catches (the work-unit tracker).
	faultBackToSubmitted = "trace-back-to-submitted"
	faultReportAfterDone = "report-after-completed"
	faultContainerJump   = "container-jump"
	faultReuseID         = "reuse-message-id"
	faultForIDUnknown    = "receipt-for-unknown-id"
	faultOneFailureClass = "one-failure-class"
	faultDirectUnsorted  = "direct-unsorted"
	faultLenientJSON     = "lenient-json"
	faultRefusalCopies   = "refusal-copies-broken"
	faultRefusalChannel  = "refusal-in-other-channel"
	faultRequireProof    = "require-proof"
	faultShunOdd         = "shun-odd-sender"
	// Allowed variants (GroupAllowed).
	faultNoCapabilityWork = "no-capability-work"
	faultMismatchInWork   = "mismatch-refused-in-work-container"
	// Faults of one behavioural requirement each.
	faultNoAcceptedReceipt = "no-accepted-receipt"
	faultClosedSilent      = "closed-in-silence"
	faultExpiredSilent     = "expired-in-silence"
	faultRefuseSilent      = "refuse-in-silence"
	faultWhoisDirectedDeaf = "whois-directed-unanswered"
	faultWhoisAnswerAll    = "whois-broadcast-answered-always"
	faultRejectVerified    = "reject-verified"
	faultDeafAfterGarbage  = "deaf-after-garbage"
	faultCatalogUnasked    = "catalog-unasked"
	faultNoJoinGreet       = "no-join-greet"
	faultNeedsInputStuck   = "needs-input-stuck"
	faultInventWork        = "invent-work"
	faultAnyParticipant    = "non-participant-obeyed"
	faultProfileBadProof   = "unknown-profile-bad-proof"
	faultReplyToUnknown    = "reply-to-unknown"
	faultWhoisReplyUnknown = "whois-reply-to-unknown"
	faultCardWithoutV0     = "card-without-v0"
	faultReportOthersWork  = "reports-others-work"
	faultBareCompleted     = "bare-completed"
	// Faults of one sentence each of the Capability Discovery, Peer
	// Discovery and Delivery pages (the sentence inventory, docs/coverage.md).
	faultCatalogFilterIgnored = "catalog-filter-ignored"
	faultCatalogAnyInclude    = "catalog-on-any-include"
	faultCatalogIncludeStrict = "catalog-include-strict"
	faultCatalogEmptyMembers  = "catalog-empty-members"
	faultCatalogStaleDigest   = "catalog-stale-digest"
	faultCardWithoutCatalog   = "card-without-catalog"
	faultBriefOutOfStep       = "brief-out-of-step"
	faultNoCapabilityArtifact = "card-without-capability-artifact"
	faultExpiredRemembered    = "expired-id-remembered"
	faultRouteBeforeValidate  = "route-before-validate"
	faultNullBodyAbsent       = "null-body-as-absent"
	// Faults of the NATS binding.
	faultBroadcastAddressed = "broadcast-taken-as-addressed"
	faultChannelOnly        = "channel-only-subjects"
	faultReplyOnInbox       = "reply-on-inbox"
	faultSplitPayload       = "split-payload"
	faultSmallPayload       = "max-payload-64k"
	faultStreamAck          = "stream-ack-as-receipt"
	// Faults of the peer as the initiator of work (initiate.go).
	faultInitBadWorkID         = "init-bad-work-id"
	faultInitUndirected        = "init-undirected"
	faultInitDirectUnsorted    = "init-direct-unsorted"
	faultInitDirectReversed    = "init-direct-reversed"
	faultInitBadDigest         = "init-bad-digest"
	faultInitWrongSubject      = "init-wrong-subject"
	faultInitExpiresMS         = "init-expires-ms"
	faultInitIgnoreRefusal     = "init-ignore-refusal"
	faultInitDuplicateFails    = "init-duplicate-fails"
	faultInitContinueNewThread = "init-continue-new-thread"
	faultInitCancelAsTrace     = "init-cancel-as-trace"
	faultInitAfterTerminal     = "init-after-terminal"
	faultInitLax               = "init-lax"
	// The reference runtime's readings where the documents disagree.
	faultReferenceReadings = "reference-readings"
	// FaultOverlook prefixes a rule id: the peer overlooks that one rule
	// when it judges what it receives, so a message breaking only it is
	// accepted. One fault per receiver rule, from the catalogue, no code.
	FaultOverlook = "overlook:"
	// FaultReading prefixes the name of one of validate's errata
	// readings (agh.ErrataNames): the peer judges what it receives by
	// that reading, as a runtime that reads the pages that way does. It is
	// the peer each reading of aghcheck run --errata NAME is tested with:
	// by default such a peer fails the reading's scenarios, under the
	// reading it passes them. One fault per reading, from agh, no code.
	FaultReading = "reading:"
)

// GroupAllowed is the group of the allowed variants: behaviour the pages
// leave to the peer (a lenient decoder, no capability work). They name no
// Requirements, and a scenario that fails one asks more than the pages do.
const GroupAllowed = "allowed"

// GroupInitiator is the group of the faults of the peer as the initiator
// of work, which the initiator scenarios catch.
const GroupInitiator = "initiator"

var faultList = []Fault{
	{faultAcceptMalformed, "envelope", "accepts and works on a malformed work-opening say instead of refusing it with reason malformed", []string{"DELIV-MALFORMED-REFUSED"}},
	{faultGreetCardMismatch, "kinds", "greets with a Peer Card whose peer_id differs from the envelope from", []string{"CARD-PEER-ID-MATCH"}},
	{faultWhoisNoReplyTo, "kinds", "answers whois requests without reply_to", []string{"WHOIS-RESPONSE-REPLY-TO"}},
	{faultWhoisOnBroadcast, "kinds", "answers whois requests to the whole channel: its responses (reply_to the request) are broadcast, to null on the broadcast subject, instead of directed to the requester's peer subject", []string{"DISC-WHOIS-DIRECTED"}},
	{faultReopenTerminal, "lifecycle", "a continuation on completed work is accepted and moves it back to working instead of work_closed", []string{"LIFE-TERMINAL-FINAL"}},
	{faultCancelNotIdem, "lifecycle", "answers every cancel with a new canceled trace, even on work already canceled", []string{"LIFE-CANCEL-IDEMPOTENT"}},
	{faultIgnoreContainer, "lifecycle", "treats the same work_id from another container as the same work instead of work_container_mismatch", []string{"LIFE-CONTAINER-BINDING"}},
	{faultAcceptExpired, "delivery", "processes envelopes whose expires_at has passed (or older than the replay age)", []string{"DELIV-EXPIRED-REJECT"}},
	{faultNoDedupe, "delivery", "processes a repeated message id from the same sender again instead of answering duplicate", []string{"DELIV-DEDUPE"}},
	{faultRejectUnknownExt, "extensions", "refuses work that carries an ext key it does not know with reason malformed", []string{"EXT-UNKNOWN-IGNORED"}},
	{faultAcceptBadSignature, "trust", "accepts work whose proof does not verify (tampered signed message)", []string{"TRUST-RX-REJECT-BAD-PROOF"}},
	{faultReceiptOnBroadcast, "nats", "publishes directed receipts on the channel broadcast subject", []string{"NATS-PUBLISH-SUBJECT"}},
	{faultNoRegreet, "nats", "does not greet again when its broker connection comes back", []string{"NATS-GREET-RECONNECT"}},
	{faultWrongRouteToken, "nats", "listens on and publishes to peer subjects whose route token is derived wrongly (last 32 hex chars of SHA-256)", []string{"NATS-PEER-SUBJECT"}},
	{faultListenWrongRoute, "nats", "listens on a peer subject of its own whose route token is derived wrongly (last 32 hex chars of SHA-256), not on its own peer subject; publishes to the right subjects", []string{"NATS-PEER-SUBJECT"}},
	{faultBackToSubmitted, "lifecycle", "reports a submitted trace after working, moving work back to submitted, before completing it", []string{"LIFE-TRANSITIONS"}},
	{faultReportAfterDone, "lifecycle", "reports a working trace after the completed one", []string{"LIFE-TERMINAL-FINAL"}},
	{faultContainerJump, "lifecycle", "reports the completed trace in another container (a thread) than the work's", []string{"LIFE-CORRELATION"}},
	{faultReuseID, "delivery", "gives the completed trace the id of the working trace before it", []string{"DELIV-ID-UNIQUE"}},
	{faultForIDUnknown, "delivery", "acknowledges work with an accepted receipt whose for_id names no envelope", []string{"DELIV-FOR-ID-KNOWN"}},
	{faultNoAcceptedReceipt, "lifecycle", "works and completes directed work without acknowledging it with an accepted receipt", []string{"LIFE-RECEIPT-ON-OPEN"}},
	{faultClosedSilent, "lifecycle", "drops a continuation on terminal work in silence instead of refusing it with work_closed", []string{"LIFE-WORK-CLOSED"}},
	{faultExpiredSilent, "delivery", "refuses expired messages in silence, without the expired receipt", []string{"DELIV-EXPIRED-RECEIPT"}},
	{FaultOverlook + "FRESH-REPLAY-AGE", "delivery", "processes a message older than the replay age (the overlook fault of FRESH-REPLAY-AGE)", []string{"DELIV-REPLAY-AGE"}},
	{faultWhoisDirectedDeaf, "kinds", "answers a directed whois request only when its query matches, like a broadcast one", []string{"DISC-WHOIS-DIRECTED"}},
	{faultWhoisAnswerAll, "kinds", "answers every broadcast whois request, whatever it asks for", []string{"DISC-WHOIS-BROADCAST"}},
	{faultRejectVerified, "trust", "refuses every signed message with verification_failed, even one whose proof verifies", []string{"TRUST-RX-ACCEPT-VERIFIED"}},
	{faultDeafAfterGarbage, "delivery", "stops serving after the first payload that is not a JSON object", []string{"DELIV-GARBAGE-SURVIVED"}},
	{faultCatalogUnasked, "extensions", "puts the capability catalog in every whois response, asked for or not", []string{"DISC-CAPABILITY-CATALOG"}},
	{faultNoJoinGreet, "kinds", "does not greet when it joins; it greets only on its greet interval and answers whois", []string{"DISC-GREET-ON-JOIN"}},
	{faultNeedsInputStuck, "lifecycle", "takes the initiator's say on needs_input work as conversation: the work never resumes", []string{"LIFE-NEEDS-INPUT-RESUME"}},
	{faultInventWork, "lifecycle", "takes a directed say without work_id as work, under a work_id of its own making", []string{"LIFE-NO-INVENTED-WORK"}},
	{faultAnyParticipant, "lifecycle", "lets any peer move a work unit, not only its initiator (no not_target)", []string{"LIFE-NON-PARTICIPANT"}},
	{faultProfileBadProof, "trust", "refuses a proof under a trust profile it does not support with verification_failed, instead of taking the message as unverified", []string{"TRUST-PROFILE-UNSUPPORTED"}},
	{faultReplyToUnknown, "delivery", "gives its receipts a reply_to that names no envelope", []string{"DELIV-REPLY-TO-KNOWN"}},
	{faultWhoisReplyUnknown, "kinds", "answers whois requests with a reply_to that names no request", []string{"DISC-WHOIS-REPLY-TO-KNOWN"}},
	{faultCardWithoutV0, "kinds", "leaves agh-network/v0 out of its Peer Card's profiles_supported", []string{"DISC-PROFILES-V0"}},
	{faultReportOthersWork, "lifecycle", "acknowledges work between two other peers it sees on the broadcast subject with an accepted receipt", []string{"LIFE-PARTICIPANTS-ONLY"}},
	{faultBareCompleted, "lifecycle", "completes work with a bare completed trace: no message, result or artifact_refs", []string{"LIFE-PROGRESS-DETAIL"}},
	{faultCatalogFilterIgnored, "extensions", "answers a request for the capability catalog with every capability, whatever agh.capability_ids names", []string{"DISC-CATALOG-FILTER"}},
	{faultCatalogAnyInclude, "extensions", "takes any agh.include for a request of the capability catalog, even one that does not hold capability_catalog", []string{"DISC-CAPABILITY-CATALOG"}},
	{faultCatalogIncludeStrict, "extensions", "sends the capability catalog only when agh.include holds capability_catalog and nothing else: a value it does not know makes it answer without the catalog", []string{"DISC-INCLUDE-UNKNOWN"}},
	{faultCatalogEmptyMembers, "extensions", "gives its catalog records empty constraints and examples lists instead of omitting them", []string{"WHOIS-CATALOG-ENTRY"}},
	{faultCatalogStaleDigest, "extensions", "gives its catalog records a summary other than the one their digest was computed of", []string{"WHOIS-CATALOG-DIGEST"}},
	{faultCardWithoutCatalog, "extensions", "projects nothing of its catalog into its Peer Card (no capabilities, no brief), yet answers a request for the catalog with its capability", []string{"WHOIS-CATALOG-IN-CARD"}},
	{faultBriefOutOfStep, "kinds", "gives its Peer Card a brief whose entry names another id (Echo) than its capabilities (echo)", []string{"CARD-CAPABILITIES-BRIEF"}},
	{faultNoCapabilityArtifact, "kinds", "takes capability work, yet leaves capability out of its Peer Card's artifacts_supported", []string{"DISC-CAPABILITY-ARTIFACT"}},
	{faultExpiredRemembered, "delivery", "refuses an expired message as it should, but remembers its id first: a fresh retry of the same message is refused as a duplicate", []string{"DELIV-EXPIRED-NO-SIDE-EFFECT"}},
	{faultRouteBeforeValidate, "delivery", "routes before it validates: a malformed message on its subject that names another peer is refused as not_target, not as malformed", []string{"DELIV-VALIDATE-BEFORE-ROUTING"}},
	{faultNullBodyAbsent, "receiver", "takes a body member set to null as absent, as decoders into typed structs do: a say whose intent is null, a whois whose query is null are taken", []string{"SAY-OPTIONAL-TYPES", "WHOIS-QUERY-TYPE"}},
	{faultBroadcastAddressed, "nats", "takes directed work seen on the broadcast subject as addressed to itself, whoever it names", []string{"NATS-BROADCAST-NOT-ADDRESSED"}},
	{faultChannelOnly, "nats", "also listens on the obsolete channel-only subjects (no workspace segment)", []string{"NATS-WORKSPACE-SUBJECT"}},
	{faultReplyOnInbox, "nats", "answers a message that came with a NATS reply subject on that inbox instead of the sender's peer subject", []string{"NATS-REQUEST-REPLY-CORRELATION"}},
	{faultSplitPayload, "nats", "takes every JSON value of a payload as an envelope of its own", []string{"NATS-ONE-ENVELOPE", "INPUT-JSON-SYNTAX"}},
	{faultSmallPayload, "nats", "drops payloads over 64 KiB as oversized, far below the 1 MiB every peer must accept", []string{"NATS-MAX-PAYLOAD", "INPUT-SIZE"}},
	{faultStreamAck, "nats", "sends no accepted receipt for work that came with a NATS reply subject (a JetStream publish): the stream's ack stands in for it", []string{"NATS-JETSTREAM-ACK-NOT-RECEIPT"}},
	{faultInitBadWorkID, GroupInitiator, "as initiator, opens work under a work_id that breaks the work_id grammar (job/ and hex)", []string{"ENV-WORK-ID-GRAMMAR"}},
	{faultInitUndirected, GroupInitiator, "as initiator, opens work with to null, though it publishes it on the target's peer subject", []string{"SEND-LIFECYCLE-FIELDS"}},
	{faultInitDirectUnsorted, GroupInitiator, "as initiator, derives a direct surface's direct_id from (its own id, the target) in that order, without sorting the pair", []string{"ENV-DIRECT-ID-DERIVATION"}},
	{faultInitDirectReversed, GroupInitiator, "as initiator, derives a direct surface's direct_id from (the target, its own id) in that order, without sorting the pair", []string{"ENV-DIRECT-ID-DERIVATION"}},
	{faultInitBadDigest, GroupInitiator, "as initiator, gives a capability opening the digest of another document (the capability with its id upper-cased)", []string{"CAP-DIGEST"}},
	{faultInitWrongSubject, GroupInitiator, "as initiator, publishes the opening on the broadcast subject instead of the target's peer subject", []string{"NATS-PUBLISH-SUBJECT"}},
	{faultInitExpiresMS, GroupInitiator, "as initiator, gives the opening an expires_at in milliseconds (ts*1000 + expires_in*1000)", []string{"SEND-EXPIRES-HONORED"}},
	{faultInitIgnoreRefusal, GroupInitiator, "as initiator, does not end work on a refusal: a rejected, expired or unsupported receipt of the opening is taken for its acceptance, a work_closed refusal changes nothing, and a later needs_input is still answered", []string{"LIFE-TERMINAL-FINAL", "SEND-EXPIRES-HONORED"}},
	{faultInitDuplicateFails, GroupInitiator, "as initiator, takes a duplicate receipt for a failure of the work: it no longer answers a later needs_input", []string{"LIFE-TRANSITIONS"}},
	{faultInitContinueNewThread, GroupInitiator, "as initiator, sends its continuations in a fresh thread instead of the work's container", []string{"SEND-LIFECYCLE-FIELDS"}},
	{faultInitCancelAsTrace, GroupInitiator, "as initiator, cancels with a trace of state canceled instead of a receipt of status canceled", []string{"LIFE-TRANSITIONS"}},
	{faultInitAfterTerminal, GroupInitiator, "as initiator, answers a needs_input even on terminal work", []string{"LIFE-TERMINAL-FINAL"}},
	{faultInitLax, GroupInitiator, "as initiator, applies any receipt or trace naming its work (by work_id, or a receipt by for_id) without validating it: from anyone, in any container, expired or repeated", []string{"LIFE-NON-PARTICIPANT", "LIFE-CONTAINER-BINDING", "DELIV-EXPIRED-REJECT", "DELIV-DEDUPE", "KIND-SURFACE-REQUIRED", "KIND-WORK-ID-REQUIRED", "ENV-PROTOCOL", "TRACE-OPTIONAL-TYPES", "RECEIPT-REASON-REQUIRED", "RECEIPT-REASON-TYPE", "RECEIPT-FOR-ID", "RECEIPT-DETAIL-TYPE"}},
	{FaultEmit + "RULE-ID", "sender", "breaks the send-side rule RULE-ID in what it sends, as internal/peer/emit.yaml says (one data entry per rule)", nil},
	{FaultOverlook + "RULE-ID", "receiver", "accepts a message that breaks only the catalogue rule RULE-ID (one fault per rule a receiver enforces)", nil},
	{FaultReading + "NAME", "receiver", "judges what it receives by the other reading NAME of a documented erratum (validate --errata NAME; docs/errata.md), as a runtime reading the pages that way does: aghcheck run --errata NAME judges it by the same reading", nil},
	{faultShunOdd, "receiver", "survives odd input but stops serving its sender: after a message it may take or refuse (anything the rule engine finds, a ts ahead of its clock) it ignores everything more from that sender", []string{"PEER-SURVIVES-INPUT"}},
	{faultRequireProof, "envelope", "takes the trust profile as a condition: refuses every message without a proof with verification_failed", []string{"ENV-PROOF-NOT-REQUIRED"}},
	{faultRefusalCopies, "sender", "refuses every broken message rightly, but its refusal receipts copy the refused envelope's broken members (ext, expires_at, trace_id, ...) as they came", []string{"ENV-EXT-OBJECT"}},
	{faultRefusalChannel, "sender", "refuses every broken message rightly, but its refusal receipts name another channel (the refused message's, with -refusals appended) while going to the sender's peer subject: outside the container of the message they answer", []string{"LIFE-CORRELATION", "NATS-PUBLISH-SUBJECT"}},
	{faultRefuseSilent, "receiver", "refuses every broken message in silence, never with the refusal receipt a message with usable work context should get", []string{"DELIV-REFUSAL-RECEIPT"}},
	{faultReferenceReadings, "receiver", "judges what it receives by the reference runtime's readings (--compat reference: a thread_id grammar, no future ts, no secret-looking member names, ...) and deduplicates by id across senders: valid messages refused as malformed, expired or duplicate (errata 3-7, 10, 11)", []string{"DELIV-FAILURE-CLASSES", "EXT-UNKNOWN-IGNORED", "DELIV-DEDUPE"}},
	{faultDirectUnsorted, "receiver", "derives a direct room's direct_id from (the sender, itself) in that order, without sorting the pair: it refuses as malformed direct-room work from a peer whose id sorts after its own, and takes the unsorted derivation instead", []string{"ENV-DIRECT-ID-DERIVATION"}},
	{faultOneFailureClass, "receiver", "refuses every broken message with reason malformed, whatever its failure class (a bad digest or signature, an unsupported protocol or kind)", []string{"DELIV-FAILURE-CLASSES"}},
	// Allowed variants: behaviour the pages leave to the receiver. They
	// break no requirement and must pass every scenario.
	{faultNoCapabilityWork, GroupAllowed, "offers no capability: its Peer Card lists none, and it refuses every work-opening capability, valid or not once validated, with status rejected and reason_code not_found, which a peer may", nil},
	{faultMismatchInWork, GroupAllowed, "refuses a message that carries a work's work_id from another container (work_container_mismatch) with a receipt in the work's own container, not the refused message's: the pages allow either (docs/errata.md, erratum 14)", nil},
	// Hostile faults: alone they change nothing a scenario sees.
	{faultHelperRefuses, GroupHostile, "beside the peer, a helper process: a second NATS connection with the peer's credentials publishes, as the peer and at once, the refusal receipt the correct peer owes a message the peer itself (through another fault) accepts or refuses otherwise; the peer still does its own thing. Alone it changes nothing; with accept-expired and slow:DURATION it answers first", nil},
	{faultLenientJSON, GroupAllowed, "decodes JSON leniently, as many decoders do: a repeated member name (the last value wins), a number beyond a double's range and a byte that is not UTF-8 (read as U+FFFD) are taken, which a receiver may", nil},
}

// Faults lists every fault the reference peer knows, by group then name.
func Faults() []Fault {
	out := append(append([]Fault(nil), faultList...), raceFaults...)
	for _, f := range livenessFaults {
		out = append(out, f.Fault)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return groupOrder(out[i].Group) < groupOrder(out[j].Group)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func groupOrder(g string) int {
	for i, name := range []string{"envelope", "kinds", "lifecycle", "delivery", "extensions", "trust", "nats", GroupInitiator, GroupConcurrency, "receiver", "sender", GroupAllowed, GroupHostile, GroupLiveness} {
		if g == name {
			return i
		}
	}
	return 99
}

// faultSet is the parsed --fault list.
type faultSet map[string]bool

// overlooks reports whether an overlook fault names rule id. One fault may
// overlook several rules, overlook:A+B: a fixture that cannot break A
// without B takes a peer that overlooks both.
func (fs faultSet) overlooks(id string) bool { return fs[FaultOverlook+id] }

func parseFaults(names []string) (faultSet, error) {
	if _, err := livenessOf(names); err != nil {
		return nil, err
	}
	fs := faultSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		known := isLiveness(n)
		if ids, ok := strings.CutPrefix(n, FaultOverlook); ok {
			known = true
			for _, id := range strings.Split(ids, "+") {
				_, found := catalogue.Lookup(id)
				known = known && found
				fs[FaultOverlook+id] = true
			}
		}
		if name, ok := strings.CutPrefix(n, FaultReading); ok {
			var e agh.Errata
			known = e.Set(name) == nil && name != "reference"
		}
		if id, ok := strings.CutPrefix(n, FaultEmit); ok {
			_, known = Emit(id)
		}
		for _, f := range slices.Concat(faultList, raceFaults) {
			if f.Name == n {
				known = true
				break
			}
		}
		if !known {
			return nil, fmt.Errorf("unknown fault %q (see --list-faults)", n)
		}
		fs[n] = true
	}
	return fs, nil
}
