package requirements

import "github.com/aghcheck/aghcheck/rules"

// The MAY clauses of the AGH pages: what a peer is permitted to send or do.
// No check reports them (they break nothing); they are in the catalogue so
// the clause inventory (package coverage) can show each with how aghcheck
// holds a receiver to accepting it, or why nothing can.

const envelopeSrc = "AGH Network v0, Envelope"

var optional = rules.Declarer{Profile: "agh-optional"}

var (
	OptWorkID = optional.Declare(rules.Rule{ID: "OPT-WORK-ID", Severity: rules.Note,
		Clause: "A say or capability MAY carry a work_id when it is part of a lifecycle-bearing work unit.",
		Source: envelopeSrc + " §Fields (work_id); " + kindsSrc + " §say, §capability"})
	OptReplyTo = optional.Declare(rules.Rule{ID: "OPT-REPLY-TO", Severity: rules.Note,
		Clause: "A response-like message other than a whois response MAY name the envelope it answers in reply_to.",
		Source: envelopeSrc + " §Fields (reply_to)"})
	OptDirected = optional.Declare(rules.Rule{ID: "OPT-DIRECTED", Severity: rules.Note,
		Clause: "A say or capability MAY target one peer with to inside its thread or direct room; a whois MAY be broadcast (to null) or directed to a Peer ID.",
		Source: kindsSrc + " §say, §capability, §whois"})
	OptGreetSummary = optional.Declare(rules.Rule{ID: "OPT-GREET-SUMMARY", Severity: rules.Note,
		Clause: "A greet MAY carry a summary saying why the peer announces itself.",
		Source: kindsSrc + " §greet body fields"})
	OptSayFields = optional.Declare(rules.Rule{ID: "OPT-SAY-FIELDS", Severity: rules.Note,
		Clause: "A say MAY carry an intent (notice, question, proposal, ...) and artifacts (JSON artifact descriptors).",
		Source: kindsSrc + " §say body fields"})
	OptCapabilityFields = optional.Declare(rules.Rule{ID: "OPT-CAPABILITY-FIELDS", Severity: rules.Note,
		Clause: "A capability MAY carry version, context_needed, artifacts_expected, execution_outline, constraints, examples and requirements.",
		Source: kindsSrc + " §capability body fields"})
	OptReceiptDetail = optional.Declare(rules.Rule{ID: "OPT-RECEIPT-DETAIL", Severity: rules.Note,
		Clause: "A receipt MAY carry a human-readable detail.",
		Source: kindsSrc + " §receipt body fields"})
	OptTraceFields = optional.Declare(rules.Rule{ID: "OPT-TRACE-FIELDS", Severity: rules.Note,
		Clause: "A trace MAY carry a message (progress or the current blocker), result data and artifact_refs.",
		Source: kindsSrc + " §trace body fields"})
	OptNATSRequestReply = natsRules.Declare(rules.Rule{ID: "NATS-REQUEST-REPLY-ALLOWED", Severity: rules.Note,
		Clause: "An implementation MAY use NATS request-reply for local convenience; AGH correlation stays authoritative.",
		Source: natsSrc + " §Request-reply"})
	OptJetStream = natsRules.Declare(rules.Rule{ID: "NATS-JETSTREAM-ALLOWED", Severity: rules.Note,
		Clause: "A deployment MAY add JetStream for persistence, replay or at-least-once delivery, without changing the core semantics.",
		Source: natsSrc + " §Persistence, §JetStream persistence profile"})
)
