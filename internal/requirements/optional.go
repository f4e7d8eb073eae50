package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// The MAY clauses of the AGH pages: what a peer is permitted to send or do.
// No check reports them (they break nothing); they are in the catalogue so
// the clause inventory (package coverage) can show each with how aghcheck
// holds a receiver to accepting it, or why nothing can.

const envelopeSrc = "AGH Network v0, Envelope"

var optional = rules.Declarer{Profile: "agh-optional"}

var (
	OptWorkID = optional.Declare(rules.Rule{ID: "OPT-WORK-ID", Severity: rules.Note,
		Clause: "A say or capability MAY carry a work_id when it is part of a lifecycle-bearing work unit.",
		Source: envelopeSrc + " §Fields (work_id); " + kindsSrc + " §say, §capability",
		Basis:  `Envelope §Fields, work_id: "MAY appear on say and capability when the message is part of a single lifecycle-bearing work unit."`})
	OptReplyTo = optional.Declare(rules.Rule{ID: "OPT-REPLY-TO", Severity: rules.Note,
		Clause: "A response-like message other than a whois response MAY name the envelope it answers in reply_to.",
		Source: envelopeSrc + " §Fields (reply_to)",
		Basis:  `Envelope §Fields, reply_to: "MAY reference the envelope ID being answered by other response-like messages."`})
	OptDirected = optional.Declare(rules.Rule{ID: "OPT-DIRECTED", Severity: rules.Note,
		Clause: "A say or capability MAY target one peer with to inside its thread or direct room; a whois MAY be broadcast (to null) or directed to a Peer ID.",
		Source: kindsSrc + " §say, §capability, §whois",
		Basis:  `Message Kinds §say, to: "MAY target a peer when the message is directed inside a public thread or direct room."; §whois, to: "MAY be null for broadcast discovery or a Peer ID for targeted discovery."`})
	OptGreetSummary = optional.Declare(rules.Rule{ID: "OPT-GREET-SUMMARY", Severity: rules.Note,
		Clause: "A greet MAY carry a summary saying why the peer announces itself.",
		Source: kindsSrc + " §greet body fields",
		Basis:  `Message Kinds §greet body fields, summary: "MAY explain why the peer is announcing itself."`})
	OptSayFields = optional.Declare(rules.Rule{ID: "OPT-SAY-FIELDS", Severity: rules.Note,
		Clause: "A say MAY carry an intent (notice, question, proposal, ...) and artifacts (JSON artifact descriptors).",
		Source: kindsSrc + " §say body fields",
		Basis:  `Message Kinds §say body fields: intent "MAY describe the purpose", artifacts "MAY include JSON artifact descriptors."`})
	OptCapabilityFields = optional.Declare(rules.Rule{ID: "OPT-CAPABILITY-FIELDS", Severity: rules.Note,
		Clause: "A capability MAY carry version, context_needed, artifacts_expected, execution_outline, constraints, examples and requirements.",
		Source: kindsSrc + " §capability body fields",
		Basis:  `Message Kinds §capability body fields: version "MAY identify the capability version.", and each descriptive list "MAY describe" its part`})
	OptReceiptDetail = optional.Declare(rules.Rule{ID: "OPT-RECEIPT-DETAIL", Severity: rules.Note,
		Clause: "A receipt MAY carry a human-readable detail.",
		Source: kindsSrc + " §receipt body fields",
		Basis:  `Message Kinds §receipt body fields, detail: "MAY give human-readable context."`})
	OptTraceFields = optional.Declare(rules.Rule{ID: "OPT-TRACE-FIELDS", Severity: rules.Note,
		Clause: "A trace MAY carry a message (progress or the current blocker), result data and artifact_refs.",
		Source: kindsSrc + " §trace body fields",
		Basis:  `Message Kinds §trace body fields: message "MAY describe progress or the current blocker.", result and artifact_refs likewise MAY`})
	OptNATSRequestReply = natsRules.Declare(rules.Rule{ID: "NATS-REQUEST-REPLY-ALLOWED", Severity: rules.Note,
		Clause: "An implementation MAY use NATS request-reply for local convenience; AGH correlation stays authoritative.",
		Source: natsSrc + " §Request-reply",
		Basis:  `NATS binding §Request-reply: "Implementations MAY use NATS request-reply mechanics for local convenience."`})
	OptJetStream = natsRules.Declare(rules.Rule{ID: "NATS-JETSTREAM-ALLOWED", Severity: rules.Note,
		Clause: "A deployment MAY add JetStream for persistence, replay or at-least-once delivery, without changing the core semantics.",
		Source: natsSrc + " §Persistence, §JetStream persistence profile",
		Basis:  `NATS binding §JetStream persistence profile: "A deployment MAY add JetStream for persistence, replay, or at-least-once delivery"`})
)
