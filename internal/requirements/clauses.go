package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// Clauses of the AGH pages that no check judged when the clause inventory
// (package coverage) was built: each has its id here so that the coverage
// table can show it, either as not judgeable from outside (the reason is in
// coverage/inventory.yaml) or as open until a scenario plays it.

const conformanceSrc = "AGH Network v0, Conformance Levels"

var conformance = rules.Declarer{Profile: "agh-conformance"}

var (
	DelivRetrySameID = delivery.Declare(rules.Rule{ID: "DELIV-RETRY-SAME-ID", Severity: rules.Warning,
		Clause: "A sender SHOULD keep the id when it retries the same logical message, and use a new id when the content or intent changes.",
		Source: deliverySrc + " §Retries",
		Basis:  `Delivery Guarantees §Retry semantics: "Retries SHOULD preserve the original id when the retry is the same logical envelope."`})
	DelivNoTotalOrder = delivery.Declare(rules.Rule{ID: "DELIV-NO-TOTAL-ORDER",
		Clause: "An implementation MUST NOT rely on total ordering across peers or channels: messages of one work may arrive in any order.",
		Source: deliverySrc + " §Ordering",
		Basis:  `Delivery Guarantees §Ordering: "Implementations MUST NOT rely on total ordering across peers or channels."`})
	DelivTransportPreserves = delivery.Declare(rules.Rule{ID: "DELIV-TRANSPORT-PRESERVES",
		Clause: "A transport profile MUST preserve the core semantics (envelope, kinds, lifecycle, freshness, trust); its operational details MUST NOT change them.",
		Source: deliverySrc + " §Transport independence",
		Basis:  `Delivery Guarantees §Transport independence: "A different transport profile MUST preserve" the core semantics, and its details "MUST NOT change the core meaning of the six message kinds."`})

	LifeProgressDetail = lifecycle.Declare(rules.Rule{ID: "LIFE-PROGRESS-DETAIL", Severity: rules.Warning,
		Clause: "A needs_input or failed trace SHOULD carry a message, and a completed trace result data or artifact_refs when the output is not in the message.",
		Source: lifecycleSrc + " §Progress",
		Basis:  `Work Lifecycle §Progress rules: "trace(needs_input) SHOULD include a message that explains the missing input.", and likewise for completed and failed`})
	LifeTraceMeaning = lifecycle.Declare(rules.Rule{ID: "LIFE-TRACE-MEANING", Severity: rules.Warning,
		Clause: "A working trace SHOULD mean the work is active.",
		Source: lifecycleSrc + " §Progress",
		Basis:  `Work Lifecycle §Progress rules: "trace(working) SHOULD mean work is active."`})
	LifeExpiresAtSet = lifecycle.Declare(rules.Rule{ID: "LIFE-EXPIRES-AT-SET", Severity: rules.Warning,
		Clause: "A sender SHOULD set expires_at on time-sensitive requests.",
		Source: lifecycleSrc + " §Freshness",
		Basis:  `Work Lifecycle §Timeout and expiration semantics: "Senders SHOULD set expires_at on time-sensitive requests."`})

	DiscRouteByPeerID = discovery.Declare(rules.Rule{ID: "DISC-ROUTE-BY-PEER-ID",
		Clause: "A receiver MUST route by Peer ID, never by display name.",
		Source: discoSrc + " §Peer IDs",
		Basis:  `Peer Discovery §Peer identity: "A receiver MUST route by Peer ID, not by display_name."`})
	DiscProfilesV0 = discovery.Declare(rules.Rule{ID: "DISC-PROFILES-V0", Severity: rules.Warning,
		Clause: "A v0 peer's Peer Card SHOULD list agh-network/v0 in profiles_supported and advertise its trust modes explicitly.",
		Source: discoSrc + " §Peer Card; " + conformanceSrc,
		Basis:  `Peer Discovery §Peer Card, profiles_supported: "SHOULD include agh-network/v0 for v0 peers."; Conformance Levels §Peer Card signaling: "A Peer Card SHOULD advertise conformance with explicit profile and trust-mode strings."`})
	DiscCapabilityAdvisory = discovery.Declare(rules.Rule{ID: "DISC-CAPABILITY-ADVISORY",
		Clause: "A receiver MUST NOT treat Peer Card claims (capabilities, profiles) as authorization, trust or proof of behaviour.",
		Source: discoSrc + " §Capabilities; " + deliverySrc + "; " + conformanceSrc,
		Basis:  `Peer Discovery §Peer Card: "Receivers MUST NOT treat a capability claim as authorization or trust evidence."; Conformance Levels §Peer Card signaling: "Receivers MUST NOT treat Peer Card claims as proof of behavior."`})
	DiscPresenceExpiry = discovery.Declare(rules.Rule{ID: "DISC-PRESENCE-EXPIRY", Severity: rules.Warning,
		Clause: "A runtime SHOULD expire a remote peer that stops greeting (two greet intervals after its last greet by default).",
		Source: discoSrc + " §Presence; " + natsSrc,
		Basis:  `Peer Discovery §Presence and expiry: "A runtime SHOULD expire remote peers that stop announcing themselves."`})
	DiscCapabilitySpecific = discovery.Declare(rules.Rule{ID: "DISC-CAPABILITY-SPECIFIC", Severity: rules.Warning,
		Clause: "Capability strings SHOULD be specific enough for another agent to make routing decisions.",
		Source: discoSrc + " §Capabilities",
		Basis:  `Peer Discovery §Capability claims: capabilities "SHOULD be specific enough for another agent to make routing decisions"`})

	NATSWorkspaceSubject = natsRules.Declare(rules.Rule{ID: "NATS-WORKSPACE-SUBJECT",
		Clause: "Every subject MUST carry the workspace id: a v0 peer MUST NOT accept envelopes on obsolete channel-only subjects, nor on another workspace's subjects.",
		Source: natsSrc + " §Subject mapping",
		Basis:  `NATS binding §Binding scope: "Peers MUST include the stable workspace ID in every subject. Channel-only subjects are obsolete and MUST NOT be accepted by v0 peers."`})
	NATSRequestReply = natsRules.Declare(rules.Rule{ID: "NATS-REQUEST-REPLY-CORRELATION",
		Clause: "A NATS reply inbox MUST NOT replace AGH correlation: a reply still carries reply_to, surface and container id, and goes to the peer subject.",
		Source: natsSrc + " §Request-reply",
		Basis:  `NATS binding §Request-reply: "NATS reply subjects MUST NOT be treated as a replacement for AGH Network correlation fields."`})
	NATSOneEnvelope = natsRules.Declare(rules.Rule{ID: "NATS-ONE-ENVELOPE",
		Clause: "A NATS payload MUST be exactly one complete AGH envelope encoded as UTF-8 JSON, and to MUST hold the target's identity, not its route token.",
		Source: natsSrc + " §Binding summary",
		Basis:  `NATS binding §Binding scope, Payload: "MUST be one complete AGH Network envelope encoded as UTF-8 JSON."; §Route tokens: to "MUST still contain the target peer identity, not the route token."`})
	NATSSecureBroker = natsRules.Declare(rules.Rule{ID: "NATS-SECURE-BROKER", Severity: rules.Warning,
		Clause: "A peer SHOULD authenticate (credentials, token or mutual TLS) and use TLS when the broker is not local-only.",
		Source: natsSrc + " §Connection configuration",
		Basis:  `NATS binding §Connection configuration, Authentication: "SHOULD use NATS credentials, token auth, or mutually authenticated TLS when the broker is not local-only."`})
	NATSDurableNames = natsRules.Declare(rules.Rule{ID: "NATS-JETSTREAM-DURABLE-NAMES", Severity: rules.Warning,
		Clause: "A JetStream consumer SHOULD use a durable name that includes the peer identity and the channel.",
		Source: natsSrc + " §JetStream persistence profile",
		Basis:  `NATS binding §JetStream persistence profile: "Consumers SHOULD use durable names that include the peer identity and channel."`})

	ConfTrustState = conformance.Declare(rules.Rule{ID: "CONF-TRUST-STATE",
		Clause: "An implementation MUST surface each envelope's trust state as verified, unverified or rejected.",
		Source: conformanceSrc + " §Requirements matrix",
		Basis:  `Conformance Levels §Capability matrix: "Surface trust state as verified, unverified, or rejected", MUST at every level (and §Core Receiver)`})
	ConfNoOverclaim = conformance.Declare(rules.Rule{ID: "CONF-NO-OVERCLAIM",
		Clause: "A self-certification MUST NOT claim a higher level when required behaviour is delegated to deployment.",
		Source: conformanceSrc + " §Self-certification",
		Basis:  `Conformance Levels §Self-certification: "Self-certification MUST NOT claim a higher level when required behavior is delegated to deployment policy" (it binds whoever certifies: aghcheck's claims follow it, docs/harness.md)`})
)
