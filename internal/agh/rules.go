package agh

import "github.com/aghcheck/aghcheck/internal/rules"

// Validation stages, numbered as the Envelope page's "Validation order" lists
// them. RefusalReason picks the reason of the earliest stage so a receipt
// names the first thing a receiver following that order would trip over.
// Trust sits after the body shape and before routing (Signature Verification
// page: freshness before trust, trust before routing and extensions).
const (
	stageInput    = 1 // parse, top-level object, size
	stageEnvelope = 2 // required fields, protocol, kind, channel, Peer ID grammar
	stageFresh    = 3 // expires_at / replay age
	stageSurface  = 4 // surface, containers, work_id per kind
	stageBody     = 5 // body shape for the kind
	stageTrust    = 6 // proof verification and local trust policy
	stageRouting  = 7 // routing-level facts (direct-room derivation)
	stageOther    = 9
)

var (
	stageOf  = map[*rules.Rule]int{}
	aghRules = rules.Declarer{Profile: "agh", Reason: ReasonMalformed}
)

// rule declares r among the agh rules and records its validation stage.
func rule(stage int, r rules.Rule) *rules.Rule {
	d := aghRules.Declare(r)
	stageOf[d] = stage
	return d
}

const (
	srcEnv      = "AGH Envelope"
	srcKinds    = "AGH Message Kinds"
	srcDelivery = "AGH Delivery Guarantees"
	srcNATS     = "AGH NATS binding"
	srcCapDisco = "AGH Capability Discovery"
)

// Envelope-level rules (stage 2).
var (
	RuleSchema = rule(stageEnvelope, rules.Rule{ID: "ENV-SCHEMA",
		Clause: "An envelope MUST satisfy the published JSON Schema of the envelope and of its kind's body (reported only where no precise rule already explains the error).",
		Source: srcEnv + " §JSON schema; " + srcKinds + " body tables",
		Basis:  `Envelope §JSON schema, on a page that "is normative unless a section is marked as an example": the schema restates the §Fields MUSTs, each of which is a precise rule of its own`})
	RuleRequired = rule(stageEnvelope, rules.Rule{ID: "ENV-REQUIRED",
		Clause: "An envelope MUST carry protocol, id, workspace_id, kind, channel, from, ts and body.",
		Source: srcEnv + " §Wire contract",
		Basis:  `Envelope §Wire contract: "The JSON object MUST contain these required top-level fields"`})
	RuleProtocol = rule(stageEnvelope, rules.Rule{ID: "ENV-PROTOCOL",
		Clause: `The protocol field MUST be the string "agh-network/v0".`, Reason: ReasonUnsupportedProfile,
		Source: srcEnv + " §Fields (protocol)",
		Basis:  `Envelope §Fields, protocol: "MUST be agh-network/v0." (the reason_code of its refusal is a SHOULD: DELIV-FAILURE-CLASSES)`})
	RuleID = rule(stageEnvelope, rules.Rule{ID: "ENV-ID",
		Clause: "The id field MUST be a non-empty string naming the envelope uniquely within the sender's replay window.",
		Source: srcEnv + " §Fields (id)",
		Basis:  `Envelope §Fields, id: "MUST identify this envelope uniquely within the sender's replay window."`})
	RuleWorkspaceID = rule(stageEnvelope, rules.Rule{ID: "ENV-WORKSPACE-ID",
		Clause: "The workspace_id field MUST be a non-empty string.",
		Source: srcEnv + " §Fields (workspace_id)",
		Basis:  `Envelope §Wire contract (a required field) and §Fields, workspace_id: "MUST be the stable workspace ID"; Conformance Levels §Capability matrix: "Require workspace_id on every envelope", MUST at every level`})
	RuleWorkspaceSubject = rule(stageEnvelope, rules.Rule{ID: "ENV-WORKSPACE-ID-SUBJECT",
		Clause: "A workspace_id MUST fit in one NATS subject token: no dots, '*', '>', whitespace or control characters.",
		Source: srcNATS + " §Subject grammar",
		Basis:  `NATS binding §Subject grammar, <workspace_id>: "dots, *, and > are forbidden" (a prohibition: MUST), for §Binding scope: "Peers MUST include the stable workspace ID in every subject."`})
	RuleKind = rule(stageEnvelope, rules.Rule{ID: "ENV-KIND",
		Clause: "The kind field MUST be one of greet, whois, say, capability, receipt, trace.", Reason: ReasonUnsupportedKind,
		Source: srcEnv + " §Fields (kind)",
		Basis:  `Envelope §Fields, kind: "MUST be one of greet, whois, say, capability, receipt, or trace."`})
	RuleKindDirect = rule(stageEnvelope, rules.Rule{ID: "ENV-KIND-DIRECT",
		Clause: `kind "direct" MUST be rejected: a direct room is a conversation kind with surface "direct".`,
		Source: srcKinds + " (direct is not a kind)",
		Basis:  `Message Kinds (introduction): "Implementations MUST reject envelopes that try to set kind:"direct"."`})
	RuleLegacyInteraction = rule(stageEnvelope, rules.Rule{ID: "ENV-LEGACY-INTERACTION-ID",
		Clause: "The obsolete interaction_id field MUST NOT appear; work is correlated with work_id.",
		Source: srcEnv + " §JSON schema (additionalProperties: false); reference runtime hard cut",
		Basis:  `Conformance Levels §Capability matrix: "Reject kind:"direct" and interaction_id envelopes", MUST at every level; Envelope §JSON schema: additionalProperties false`})
	RuleUnknownField = rule(stageEnvelope, rules.Rule{ID: "ENV-UNKNOWN-FIELD",
		Clause: "An envelope MUST NOT carry top-level fields the envelope schema does not define (extensions go in ext).",
		Source: srcEnv + " §JSON schema (additionalProperties: false); erratum 4",
		Basis:  `Envelope §JSON schema: "additionalProperties": false, on a normative page, so MUST (erratum 4: the reference runtime reads it otherwise)`})
	RuleChannel = rule(stageEnvelope, rules.Rule{ID: "ENV-CHANNEL-GRAMMAR",
		Clause: "The channel MUST match [a-z0-9][a-z0-9_-]{0,63}.",
		Source: srcEnv + " §Fields (channel)",
		Basis:  `Envelope §Fields, channel: "MUST match [a-z0-9][a-z0-9_-]{0,63}."`})
	RuleFrom = rule(stageEnvelope, rules.Rule{ID: "ENV-FROM-GRAMMAR",
		Clause: "from MUST be a Peer ID matching [a-z0-9][a-z0-9._-]{0,127} (or, under the trust profile, a nickname@fingerprint handle).",
		Source: srcEnv + " §Fields (from)",
		Basis:  `Envelope §Fields, from: "MUST be the sender Peer ID and MUST match [a-z0-9][a-z0-9._-]{0,127}."; Ed25519 + JCS §Verified identity: from "MUST use the verified sender handle format" under that profile`})
	RuleTo = rule(stageEnvelope, rules.Rule{ID: "ENV-TO-GRAMMAR",
		Clause: "to MUST be null, absent, or a Peer ID (or trust-profile handle).",
		Source: srcEnv + " §Fields (to)",
		Basis:  `Envelope §Fields, to: "MUST be a Peer ID when the message is directed to one peer. MUST be null or omitted for broadcast messages."`})
	RuleTS = rule(stageEnvelope, rules.Rule{ID: "ENV-TS",
		Clause: "ts MUST be an integer number of Unix seconds, not negative, as the schema types it (any integral JSON number: 1e9 and 1.0 are integers; ENV-TS-LITERAL advises the plain form).",
		Source: srcEnv + " §Fields (ts)",
		Basis:  `Envelope §Fields, ts (type integer): "MUST be Unix time in seconds, set by the sender."`})
	RuleExpiresAt = rule(stageEnvelope, rules.Rule{ID: "ENV-EXPIRES-AT",
		Clause: "expires_at, when present, MUST be an integer number of Unix seconds, not negative, as the schema types it (any integral JSON number).",
		Source: srcEnv + " §Fields (expires_at)",
		Basis:  `Envelope §Fields, expires_at: its presence is a MAY ("MAY set Unix time in seconds ..."); once set, its type (integer Unix seconds) is the normative schema's, so MUST`})
	RuleTSLiteral = rule(stageEnvelope, rules.Rule{ID: "ENV-TS-LITERAL", Severity: rules.Warning, Reason: ReasonMalformed,
		Clause:    "ts and expires_at SHOULD be written as a plain integer literal that fits in int64 (1776366000, not 1.7763660e9, 1776366000.0 or 1e+30): typed decoders refuse the others.",
		Source:    srcEnv + " §Fields (ts, expires_at); §JSON schema",
		Basis:     `Envelope §JSON schema types ts and expires_at "integer" with minimum 0, which any integral JSON number satisfies (ENV-TS, ENV-EXPIRES-AT); no sentence of the pages asks for one literal form, so this interoperability advice to the sender is a SHOULD (docs/errata.md, "Integral times")`,
		Tolerable: "the advice binds the sender: the schema's integer admits the message, and a receiver may take it (reading it as far in the future when it passes int64) or refuse it as malformed, as a typed decoder does"})
	// Judged against the receiver's clock (Options.Now), in freshness: a
	// value is not wrong in itself, only next to the time it was sent at.
	RuleTSSeconds = rule(stageEnvelope, rules.Rule{ID: "ENV-TS-SECONDS",
		Clause:    "ts and expires_at MUST be Unix time in seconds: a value more than 10,000 years ahead of the receiver's clock (a time in milliseconds, microseconds or nanoseconds) is no time in seconds at all; a clock that is merely off is ENV-TS-CLOCK's.",
		Source:    srcEnv + " §Fields (ts, expires_at)",
		Basis:     `Envelope §Fields, ts: "MUST be Unix time in seconds, set by the sender."; expires_at: "MAY set Unix time in seconds ..." (once set, seconds). A sender's clock reads the present; no skew and no expiry horizon reaches 10,000 years ahead, and every time in milliseconds since 1980 does (docs/errata.md, "Times that cannot be seconds")`,
		Tolerable: "the sentence binds the sender: no sentence of the pages asks a receiver to refuse a time ahead of its clock (erratum 11), so a receiver may take such a message, or refuse it as malformed"})
	RuleCorrelation = rule(stageEnvelope, rules.Rule{ID: "ENV-CORRELATION-ID",
		Clause: "reply_to, trace_id and causation_id, when present, MUST be non-empty strings.",
		Source: srcEnv + " §Fields (reply_to, trace_id, causation_id)",
		Basis:  "Envelope §JSON schema: reply_to, trace_id and causation_id are strings of minLength 1 on a normative page, so MUST (their presence: §Fields, REQUIRED on whois responses, MAY elsewhere)"})
	RuleNullOptional = rule(stageEnvelope, rules.Rule{ID: "ENV-NULL-OPTIONAL",
		Clause: "reply_to, trace_id, causation_id and expires_at MUST be omitted rather than null (the schema does not allow null).",
		Source: srcEnv + " §JSON schema; erratum 3",
		Basis:  "Envelope §JSON schema: reply_to, trace_id, causation_id and expires_at are typed without null, on a normative page, so MUST (erratum 3)"})
	RuleBody = rule(stageEnvelope, rules.Rule{ID: "ENV-BODY-OBJECT",
		Clause: "body MUST be a JSON object.",
		Source: srcEnv + " §Fields (body)",
		Basis:  `Envelope §Fields, body: "MUST be a JSON object matching the message kind."`})
	RuleProof = rule(stageEnvelope, rules.Rule{ID: "ENV-PROOF-TYPE",
		Clause: "proof MUST be an object or null.",
		Source: srcEnv + " §Fields (proof)",
		Basis:  `Envelope §Fields, proof: typed "object or null", "MAY be null in v0." (the type is the normative table's: MUST)`})
	RuleExt = rule(stageEnvelope, rules.Rule{ID: "ENV-EXT-OBJECT",
		Clause: "ext, when present, MUST be a JSON object.",
		Source: srcEnv + " §Fields (ext)",
		Basis:  `Envelope §Fields, ext: typed object, "MAY contain extension keys." (the presence is a MAY, the type the normative table's: MUST)`})
	RuleExtNamespace = rule(stageEnvelope, rules.Rule{ID: "ENV-EXT-NAMESPACE", Severity: rules.Warning,
		Clause: "Extension keys SHOULD be namespaced with an organisation or profile prefix (e.g. acme.priority).",
		Source: srcEnv + " §Extension rules",
		Basis:  `Envelope §Extension rules: "Extension keys SHOULD be namespaced with an organization or profile prefix" (Conformance Levels §Capability matrix makes v1 namespaced keys a MUST at Trust and Full; aghcheck grades it SHOULD at every level)`})
	RuleTSFuture = rule(stageFresh, rules.Rule{ID: "ENV-TS-FUTURE", Reason: ReasonExpired,
		Clause: "ts MUST NOT lie further in the future than the replay age (reference-runtime reading, erratum 11).",
		Source: "Reference runtime freshness; erratum 11",
		Basis:  "No sentence of the pages: the reference runtime's freshness reading, a MUST only under --errata reject-future-ts (erratum 11)"})
	RuleSecret = rule(stageBody, rules.Rule{ID: "ENV-SECRET-MATERIAL",
		Clause: "body, proof and ext MUST NOT carry raw secrets under keys such as token, password, api_key (reference-runtime reading, erratum 11).",
		Source: "Reference runtime; erratum 11",
		Basis:  "No sentence of the pages: the reference runtime's reading, a MUST only under --errata reject-secret-keys (erratum 11)"})
)

// Surface, container and work rules (stage 4).
var (
	RuleSurfaceEnum = rule(stageSurface, rules.Rule{ID: "ENV-SURFACE-ENUM",
		Clause: `surface, when set, MUST be "thread" or "direct".`,
		Source: srcEnv + " §Fields (surface)",
		Basis:  `Envelope §Fields, surface: "MUST be "thread" or "direct" on conversation-bearing kinds."`})
	RuleDiscoverySurface = rule(stageSurface, rules.Rule{ID: "KIND-DISCOVERY-SURFACE",
		Clause: "greet and whois MUST NOT carry surface, thread_id or direct_id.",
		Source: srcEnv + " §Conversation surface fields; " + srcKinds + " §Summary",
		Basis:  `Envelope §Conversation surface fields: greet and whois "MUST NOT carry surface, thread_id, direct_id, or work_id."; Message Kinds §Summary`})
	RuleDiscoveryWork = rule(stageSurface, rules.Rule{ID: "KIND-DISCOVERY-WORK-ID",
		Clause: "greet and whois MUST NOT carry work_id.",
		Source: srcEnv + " §Fields (work_id); " + srcKinds + " §Summary",
		Basis:  `Envelope §Fields, work_id: "MUST be absent on greet and whois."; Message Kinds §Summary: greet and whois "MUST NOT carry work_id."`})
	RuleSurfaceRequired = rule(stageSurface, rules.Rule{ID: "KIND-SURFACE-REQUIRED",
		Clause: `say, capability, receipt and trace MUST carry surface "thread" or "direct".`,
		Source: srcEnv + " §Conversation surface fields; " + srcKinds + " §Summary",
		Basis:  `Message Kinds §Summary: say, capability, receipt and trace "MUST carry surface and matching container ID."`})
	RuleThreadRequired = rule(stageSurface, rules.Rule{ID: "ENV-THREAD-ID-REQUIRED",
		Clause: `thread_id is REQUIRED when surface is "thread".`,
		Source: srcEnv + " §Fields (thread_id)",
		Basis:  `Envelope §Fields, thread_id: "REQUIRED when surface == "thread"."`})
	RuleDirectRequired = rule(stageSurface, rules.Rule{ID: "ENV-DIRECT-ID-REQUIRED",
		Clause: `direct_id is REQUIRED when surface is "direct".`,
		Source: srcEnv + " §Fields (direct_id)",
		Basis:  `Envelope §Fields, direct_id: "REQUIRED when surface == "direct"."`})
	RuleContainerExclusive = rule(stageSurface, rules.Rule{ID: "ENV-CONTAINER-EXCLUSIVE",
		Clause: "thread_id and direct_id are mutually exclusive on one envelope.",
		Source: srcEnv + " §Conversation surface fields",
		Basis:  `Envelope §Conversation surface fields: thread_id and direct_id are mutually exclusive, "Setting both is a validation failure." (a failure to validate: MUST)`})
	RuleContainerSurface = rule(stageSurface, rules.Rule{ID: "ENV-CONTAINER-SURFACE",
		Clause: "A container id MUST match the surface: thread_id only with surface thread, direct_id only with surface direct.",
		Source: srcEnv + " §Fields (thread_id, direct_id: MUST be absent otherwise)",
		Basis:  `Envelope §Fields, thread_id and direct_id: "MUST be absent otherwise."`})
	RuleThreadID = rule(stageSurface, rules.Rule{ID: "ENV-THREAD-ID-GRAMMAR",
		Clause: "thread_id MUST be a non-empty string (reference reading: ^thread_[a-z0-9][a-z0-9_-]{2,95}$, erratum 6).",
		Source: srcEnv + " §JSON schema (thread_id); erratum 6",
		Basis:  "Envelope §JSON schema, thread_id: minLength 1, its only constraint on a normative page, so MUST (erratum 6)"})
	RuleDirectID = rule(stageSurface, rules.Rule{ID: "ENV-DIRECT-ID-GRAMMAR",
		Clause: "direct_id MUST match ^direct_[a-f0-9]{32}$.",
		Source: srcEnv + " §Fields (direct_id)",
		Basis:  `Envelope §Fields, direct_id: "Matches ^direct_[a-f0-9]{32}$." (a rule of the normative field table: MUST)`})
	RuleWorkID = rule(stageSurface, rules.Rule{ID: "ENV-WORK-ID-GRAMMAR",
		Clause: "work_id MUST match ^work_[a-zA-Z0-9_-]{1,64}$ (reference reading: no slash, backslash or control characters, at most 128 chars, erratum 5).",
		Source: srcEnv + " §Fields (work_id); erratum 5",
		Basis:  `Envelope §Fields, work_id: "Matches ^work_[a-zA-Z0-9_-]{1,64}$." (a rule of the normative field table: MUST; erratum 5)`})
	RuleWorkRequired = rule(stageSurface, rules.Rule{ID: "KIND-WORK-ID-REQUIRED",
		Clause: "receipt and trace MUST carry work_id (capability too under the reference reading, erratum 7).",
		Source: srcKinds + " §Summary; erratum 7",
		Basis:  `Message Kinds §Summary: work_id on receipt and trace "REQUIRED."; a capability "MUST carry work_id when transferring work-linked capability" (erratum 7)`})
	RuleDirectDerivation = rule(stageRouting, rules.Rule{ID: "ENV-DIRECT-ID-DERIVATION",
		Clause: "A direct-surface envelope with to MUST use the direct_id derived from (workspace_id, channel, from, to); a room needs two different peers.",
		Source: srcEnv + " §Conversation surface fields (direct_id is deterministic); erratum 1",
		Basis:  `Envelope §Conversation surface fields: direct_id "is deterministic" and "Any peer pair maps to exactly one direct room per workspace channel." (no keyword; read as MUST, erratum 1)`})
)

// Body rules (stage 5).
var (
	RuleGreetTo = rule(stageSurface, rules.Rule{ID: "GREET-TO-NULL",
		Clause: "greet MUST have to null or omitted: it is a broadcast.",
		Source: srcKinds + " §greet",
		Basis:  `Message Kinds §greet envelope requirements, to: "MUST be null or omitted."`})
	RuleGreetCard = rule(stageBody, rules.Rule{ID: "GREET-PEER-CARD",
		Clause: "greet body MUST carry a peer_card object.",
		Source: srcKinds + " §greet body fields",
		Basis:  `Message Kinds §greet body fields, peer_card: required, "MUST be a valid Peer Card."`})
	RuleGreetSummary = rule(stageBody, rules.Rule{ID: "GREET-SUMMARY-TYPE",
		Clause: "greet body summary, when present, MUST be a string.",
		Source: srcKinds + " §greet body fields",
		Basis:  "Message Kinds §greet body fields: summary is typed string (its presence a MAY, its type the normative table's: MUST)"})
	RuleCardPeerID = rule(stageBody, rules.Rule{ID: "CARD-PEER-ID",
		Clause: "A Peer Card MUST carry peer_id, a Peer ID (or trust-profile handle).",
		Source: "AGH Peer Discovery §Peer Card",
		Basis:  `Peer Discovery §Peer Card: peer_id is required; §Peer identity: "A Peer ID MUST match [a-z0-9][a-z0-9._-]{0,127}"`})
	RuleCardArrays = rule(stageBody, rules.Rule{ID: "CARD-ARRAYS",
		Clause: "A Peer Card MUST carry profiles_supported, capabilities, artifacts_supported and trust_modes_supported as arrays of strings, even when empty.",
		Source: "AGH Peer Discovery §Peer Card; " + srcKinds + " §greet annotation",
		Basis:  `Peer Discovery §Peer Card: "The array fields MUST be present even when empty."`})
	RuleCardOptional = rule(stageBody, rules.Rule{ID: "CARD-OPTIONAL-TYPES",
		Clause: "A Peer Card's display_name, when present, MUST be a string and its ext an object.",
		Source: "AGH Peer Discovery §Peer Card",
		Basis:  "Peer Discovery §Peer Card: display_name is typed string and ext object (their presence a MAY, their types the normative table's: MUST)"})
	RuleCardMatchFrom = rule(stageBody, rules.Rule{ID: "CARD-PEER-ID-MATCH",
		Clause: "peer_card.peer_id MUST equal the envelope from in greet and in whois responses.",
		Source: srcKinds + " §greet; AGH Peer Discovery",
		Basis:  `Message Kinds §greet envelope requirements, body.peer_card.peer_id: "MUST match the envelope from value."; Peer Discovery §Peer Card: the same in whois responses`})
	RuleCardBrief = rule(stageBody, rules.Rule{ID: "CARD-CAPABILITIES-BRIEF",
		Clause: `A Peer Card's ext["agh.capabilities_brief"], when present, MUST project its capability catalog: an array of {id, summary} objects whose ids are the card's capabilities entry by entry, in order; a card without capabilities (no catalog) MUST omit it.`,
		Source: srcCapDisco + " §Brief discovery; AGH Peer Discovery §Brief projection",
		Basis:  `Capability Discovery §Brief discovery: a peer with a catalog "MUST project it into its Peer Card in two places", the brief "matching peer_card.capabilities entry-by-entry, in the same order"; a peer without one "MUST omit peer_card.ext["agh.capabilities_brief"] entirely."`})
	RuleCatalogEntry = rule(stageBody, rules.Rule{ID: "WHOIS-CATALOG-ENTRY",
		Clause: `Each entry of a whois response's ext["agh.capability_catalog"].capabilities MUST be a capability record: id, summary and outcome non-blank strings, its optional members typed as a capability's and omitted when empty.`,
		Source: srcCapDisco + " §Response extensions",
		Basis:  `Capability Discovery §Response extensions, field rules for each entry: "id, summary, and outcome are always present"; the optional members "are optional and MUST be omitted when empty."`})
	RuleCatalogDigest = rule(stageBody, rules.Rule{ID: "WHOIS-CATALOG-DIGEST", Reason: ReasonVerificationFailed,
		Clause: "A capability catalog entry's digest, when present, MUST be the canonical digest of its record, the digest a capability transfer of the same record carries (erratum 2: --errata skip-capability-digest).",
		Source: srcCapDisco + " §Response extensions; erratum 2",
		Basis:  `Capability Discovery §Response extensions, field rules: digest "is the canonical digest computed from the structured capability document and MUST match the digest carried by a subsequent kind:"capability" transfer of the same record."`})
	RuleCatalogInCard = rule(stageBody, rules.Rule{ID: "WHOIS-CATALOG-IN-CARD",
		Clause: "The capability catalog of a whois response MUST be the catalog its own Peer Card projects: each entry one of the card's capabilities, in the card's order, and a card with a catalog carries the brief (a peer without a catalog answers capabilities []).",
		Source: srcCapDisco + " §Brief discovery, §Response rules",
		Basis:  `Capability Discovery §Brief discovery: "A peer with a local capability catalog MUST project it into its Peer Card in two places"; §Response rules: "When the responder has no local catalog, agh.capability_catalog.capabilities MUST be []."`})
	RuleWhoisType = rule(stageBody, rules.Rule{ID: "WHOIS-TYPE",
		Clause: `whois body type MUST be "request" or "response".`,
		Source: srcKinds + " §whois body fields",
		Basis:  `Message Kinds §whois body fields, type: "MUST be request or response."`})
	RuleWhoisRequestCard = rule(stageBody, rules.Rule{ID: "WHOIS-REQUEST-NO-CARD",
		Clause: "A whois request MUST NOT carry a peer_card.",
		Source: srcKinds + " §whois body fields",
		Basis:  `Message Kinds §whois body fields, peer_card: "MUST NOT be present for request."`})
	RuleWhoisQuery = rule(stageBody, rules.Rule{ID: "WHOIS-REQUEST-QUERY", Severity: rules.Warning,
		Clause: "A whois request SHOULD carry a query string describing what it looks for.",
		Source: srcKinds + " §whois body fields",
		Basis:  `Message Kinds §whois body fields, query: "SHOULD describe the requested Peer ID, capability, artifact, profile, display name, or trust mode."`})
	RuleWhoisQueryType = rule(stageBody, rules.Rule{ID: "WHOIS-QUERY-TYPE",
		Clause: "whois query, when present, MUST be a string.",
		Source: srcKinds + " §whois body fields",
		Basis:  "Message Kinds §whois body fields: query is typed string (the normative table's type: MUST)"})
	RuleWhoisResponseCard = rule(stageBody, rules.Rule{ID: "WHOIS-RESPONSE-CARD",
		Clause: "A whois response MUST carry a peer_card.",
		Source: srcKinds + " §whois body fields",
		Basis:  `Message Kinds §whois body fields, peer_card: "MUST be present for response"`})
	RuleWhoisReplyTo = rule(stageBody, rules.Rule{ID: "WHOIS-RESPONSE-REPLY-TO",
		Clause: "A whois response MUST carry reply_to naming the request envelope id.",
		Source: srcKinds + " §whois envelope requirements",
		Basis:  `Message Kinds §whois envelope requirements, reply_to: "MUST be present on responses and MUST reference the request envelope ID."`})
	RuleSayText = rule(stageBody, rules.Rule{ID: "SAY-TEXT",
		Clause: "say body text MUST be a string that is non-empty after trimming whitespace.",
		Source: srcKinds + " §say body fields",
		Basis:  `Message Kinds §say body fields, text: "MUST be non-empty after trimming whitespace."`})
	RuleSayOptional = rule(stageBody, rules.Rule{ID: "SAY-OPTIONAL-TYPES",
		Clause: "say body intent, when present, MUST be a string and artifacts an array.",
		Source: srcKinds + " §say body fields",
		Basis:  "Message Kinds §say body fields: intent is typed string and artifacts array (their presence a MAY, their types the normative table's: MUST)"})
	RuleCapObject = rule(stageBody, rules.Rule{ID: "CAP-OBJECT",
		Clause: "capability body MUST carry a capability object.",
		Source: srcKinds + " §capability body fields",
		Basis:  `Message Kinds §capability: "The body MUST contain a capability object."`})
	RuleCapRequired = rule(stageBody, rules.Rule{ID: "CAP-REQUIRED",
		Clause: "A capability MUST carry id, summary, outcome and digest as non-blank strings.",
		Source: srcKinds + " §capability body fields",
		Basis:  `Message Kinds §capability body fields: id, summary, outcome and digest are required, each with a MUST ("MUST identify the capability within the sender", ...)`})
	RuleCapTypes = rule(stageBody, rules.Rule{ID: "CAP-FIELD-TYPES",
		Clause: "A capability's version, when present, MUST be a string, and its descriptive lists arrays of strings.",
		Source: srcKinds + " §capability body fields",
		Basis:  "Message Kinds §capability body fields: version is typed string and the descriptive lists arrays of strings (their presence a MAY, their types the normative table's: MUST)"})
	RuleCapRequirements = rule(stageBody, rules.Rule{ID: "CAP-REQUIREMENTS",
		Clause: "capability requirements entries MUST be non-empty and unique after trimming.",
		Source: srcKinds + " §capability body fields (requirements)",
		Basis:  `Message Kinds §capability body fields, requirements: "Entries MUST be non-empty and unique after normalization."`})
	RuleCapDigest = rule(stageBody, rules.Rule{ID: "CAP-DIGEST", Reason: ReasonVerificationFailed,
		Clause: "capability.digest MUST equal the canonical digest of the capability document.",
		Source: srcKinds + " §capability; reference digest algorithm (spec §1); erratum 2",
		Basis:  `Message Kinds §capability: "Senders MUST compute capability.digest from the canonical structured capability document." and "Receivers MUST reject digest mismatches with reason_code = verification_failed." (erratum 2)`})
	RuleCapVersion = rule(stageBody, rules.Rule{ID: "CAP-VERSION-SEMVER", Severity: rules.Warning,
		Clause: "A capability's version, when present and not blank, SHOULD be a semantic version (MAJOR.MINOR.PATCH, semver.org).",
		Source: srcKinds + " §capability body fields (version)",
		Basis:  `Message Kinds §capability body fields, version: "Semantic versions are RECOMMENDED." (RECOMMENDED is SHOULD, RFC 2119)`})
	RuleReceiptForID = rule(stageBody, rules.Rule{ID: "RECEIPT-FOR-ID",
		Clause: "receipt body for_id MUST be a non-empty string naming the acknowledged envelope.",
		Source: srcKinds + " §receipt body fields",
		Basis:  `Message Kinds §receipt body fields, for_id: "MUST reference the envelope ID being acknowledged."`})
	RuleReceiptStatus = rule(stageBody, rules.Rule{ID: "RECEIPT-STATUS",
		Clause: "receipt status MUST be accepted, rejected, duplicate, expired, unsupported or canceled.",
		Source: srcKinds + " §receipt body fields",
		Basis:  `Message Kinds §receipt body fields, status: "MUST be accepted, rejected, duplicate, expired, unsupported, or canceled."`})
	RuleReceiptReasonAbsent = rule(stageBody, rules.Rule{ID: "RECEIPT-REASON-ABSENT",
		Clause: "An accepted receipt MUST NOT carry reason_code.",
		Source: srcKinds + " §receipt body fields; " + srcDelivery,
		Basis:  `Message Kinds §receipt body fields, reason_code: "MUST be absent for accepted"`})
	RuleReceiptReasonRequired = rule(stageBody, rules.Rule{ID: "RECEIPT-REASON-REQUIRED",
		Clause: "A rejected, duplicate, expired or unsupported receipt MUST carry reason_code.",
		Source: srcKinds + " §receipt body fields; " + srcDelivery,
		Basis:  `Message Kinds §receipt body fields, reason_code: "REQUIRED for rejected, duplicate, expired, and unsupported."`})
	RuleReceiptReasonType = rule(stageBody, rules.Rule{ID: "RECEIPT-REASON-TYPE",
		Clause: "reason_code, when present, MUST be a non-empty string.",
		Source: srcKinds + " §receipt body fields",
		Basis:  "Message Kinds §receipt body fields: reason_code is typed string (the normative table's type: MUST; aghcheck reads an empty code as none)"})
	RuleReceiptDetailType = rule(stageBody, rules.Rule{ID: "RECEIPT-DETAIL-TYPE",
		Clause: "receipt detail, when present, MUST be a string.",
		Source: srcKinds + " §receipt body fields",
		Basis:  "Message Kinds §receipt body fields: detail is typed string (its presence a MAY, its type the normative table's: MUST)"})
	RuleReceiptReasonKnown = rule(stageBody, rules.Rule{ID: "RECEIPT-REASON-KNOWN", Severity: rules.Warning,
		Clause: "A reason_code SHOULD be one of the twelve registered codes.",
		Source: srcKinds + " §Reason codes; " + srcDelivery,
		Basis:  `Message Kinds §Reason codes: "Receipts that reject or otherwise refuse a message SHOULD use one of these reason codes"`})
	RuleReceiptTo = rule(stageBody, rules.Rule{ID: "RECEIPT-TO", Severity: rules.Warning,
		Clause: "A receipt SHOULD set to, the peer that needs the receipt.",
		Source: srcKinds + " §receipt envelope requirements",
		Basis:  `Message Kinds §receipt envelope requirements, to: "SHOULD target the peer that needs the receipt."`})
	RuleTraceState = rule(stageBody, rules.Rule{ID: "TRACE-STATE",
		Clause: "trace state MUST be submitted, working, needs_input, completed, failed or canceled.",
		Source: srcKinds + " §trace body fields",
		Basis:  `Message Kinds §trace body fields, state: "MUST be one of submitted, working, needs_input, completed, failed, or canceled."`})
	RuleTraceOptional = rule(stageBody, rules.Rule{ID: "TRACE-OPTIONAL-TYPES",
		Clause: "trace message, when present, MUST be a string, result an object and artifact_refs an array.",
		Source: srcKinds + " §trace body fields",
		Basis:  "Message Kinds §trace body fields: message is typed string, result object and artifact_refs array (their presence a MAY, their types the normative table's: MUST)"})
	RuleTraceTo = rule(stageBody, rules.Rule{ID: "TRACE-TO", Severity: rules.Warning,
		Clause: "A trace SHOULD set to, the work initiator.",
		Source: srcKinds + " §trace envelope requirements",
		Basis:  `Message Kinds §trace envelope requirements, to: "SHOULD target the work initiator."`})
)

// Freshness and local-policy rules.
var (
	RuleExpired = rule(stageFresh, rules.Rule{ID: "FRESH-EXPIRED", Reason: ReasonExpired,
		Clause: "A receiver MUST reject an envelope whose expires_at is at or before its current time.",
		Source: srcEnv + " §Freshness rules; " + srcDelivery,
		Basis:  `Envelope §Freshness rules: "Receivers MUST reject messages whose expires_at has passed."`})
	RuleReplayAge = rule(stageFresh, rules.Rule{ID: "FRESH-REPLAY-AGE", Reason: ReasonExpired,
		Clause: "Without expires_at, an envelope older than the replay age (default 300 s) is rejected as expired (enforced when a current time is given).",
		Source: srcEnv + " §Freshness rules; " + srcDelivery,
		Basis:  `Envelope §Freshness rules: "When expires_at is absent, receivers SHOULD enforce a bounded replay-age policy." A SHOULD of the receiver (DELIV-REPLAY-AGE); validate --now applies the reference runtime's 300 s policy as a MUST of its own, aghcheck's decision (docs/errata.md, "Replay age is enforced when asked")`})
	RuleRequireVerified = rule(stageTrust, rules.Rule{ID: "POLICY-REQUIRE-VERIFIED", Reason: ReasonVerificationFailed,
		Clause: "Under a require-verified policy an envelope MUST carry a valid trust proof from a verified handle.",
		Source: "AGH Signature Verification §local policy",
		Basis:  `Signature Verification §Trust chains and policy: local policy "MAY allow, deny, pin, or annotate" a key; under such a policy a refused envelope is rejected, and §Trust states: "Receiver MUST stop normal routing"`})
)

// Rules returns the envelope rules of profile agh, for the catalogue.
func Rules() []*rules.Rule { return aghRules.Rules() }
