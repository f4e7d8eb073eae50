package olympus

import "github.com/aghcheck/aghcheck/internal/rules"

const (
	profileName = "olympus"
	seedSchema  = "Olympus agent-envelope schema v1"
)

var olympusRules = rules.Declarer{Profile: profileName}

// Schema rules: each constraint of schemas/olympus-envelope.schema.json maps
// to exactly one of these (see schemaRule).
var (
	RuleSchema = olympusRules.Declare(rules.Rule{ID: "OLY-SCHEMA",
		Clause: "A document MUST be valid against the Olympus Agent Context Envelope 1.0 schema.",
		Source: seedSchema})
	RuleRequired = olympusRules.Declare(rules.Rule{ID: "OLY-REQUIRED",
		Clause: "Required members MUST be present: envelope, persona, protocol_message at the top; version, message_id, timestamp, source_agent, target_agent, correlation_id, session_id in envelope; sender_persona, sender_task_id, session_id in authentication; message_type, payload in protocol_message; type, path in each attachment.",
		Source: seedSchema + " required"})
	RuleType = olympusRules.Declare(rules.Rule{ID: "OLY-TYPE",
		Clause: "Every member MUST have the JSON type the schema gives it (objects, strings, the context_attachments array).",
		Source: seedSchema + " type"})
	RuleUnknownMember = olympusRules.Declare(rules.Rule{ID: "OLY-UNKNOWN-MEMBER",
		Clause: "The envelope and its objects are closed: a member the schema does not define MUST NOT appear.",
		Source: seedSchema + " additionalProperties: false"})
	RuleVersion = olympusRules.Declare(rules.Rule{ID: "OLY-VERSION",
		Clause: `envelope.version MUST be "1.0".`,
		Source: seedSchema + " envelope.version const"})
	RuleMessageID = olympusRules.Declare(rules.Rule{ID: "OLY-MESSAGE-ID",
		Clause: "envelope.message_id MUST be \"msg-\" followed by a lowercase hyphenated UUID.",
		Source: seedSchema + " envelope.message_id pattern"})
	RuleTimestamp = olympusRules.Declare(rules.Rule{ID: "OLY-TIMESTAMP",
		Clause: "envelope.timestamp MUST be an RFC 3339 date-time (the schema's format: date-time, asserted).",
		Source: seedSchema + " envelope.timestamp format"})
	RuleSourceAgent = olympusRules.Declare(rules.Rule{ID: "OLY-SOURCE-AGENT",
		Clause: "envelope.source_agent MUST be one of the nine Olympus personas.",
		Source: seedSchema + " envelope.source_agent enum"})
	RuleTargetAgent = olympusRules.Declare(rules.Rule{ID: "OLY-TARGET-AGENT",
		Clause: "envelope.target_agent MUST be one of the nine Olympus personas.",
		Source: seedSchema + " envelope.target_agent enum"})
	RuleCorrelationID = olympusRules.Declare(rules.Rule{ID: "OLY-CORRELATION-ID",
		Clause: `envelope.correlation_id MUST be "issue-N" or "pr-N".`,
		Source: seedSchema + " envelope.correlation_id pattern"})
	RuleMessageType = olympusRules.Declare(rules.Rule{ID: "OLY-MESSAGE-TYPE",
		Clause: "protocol_message.message_type MUST be one of ASSIGN, STATUS, RESULT, FEEDBACK, ESCALATE, APPROVE, BLOCK, CANCEL, WATCH.",
		Source: seedSchema + " protocol_message.message_type enum"})
	RuleAttachmentType = olympusRules.Declare(rules.Rule{ID: "OLY-ATTACHMENT-TYPE",
		Clause: "context_attachments[].type MUST be one of plan, config, persona_definition, source_file, documentation, coder_result, checkpoint.",
		Source: seedSchema + " context_attachments.items.type enum"})
	RuleAttachmentHashFormat = olympusRules.Declare(rules.Rule{ID: "OLY-ATTACHMENT-HASH-FORMAT",
		Clause: `context_attachments[].hash MUST be "sha256:" followed by 64 lowercase hex digits.`,
		Source: seedSchema + " context_attachments.items.hash pattern"})
)

// Rules the schema cannot state.
var (
	RuleSenderPersona = olympusRules.Declare(rules.Rule{ID: "OLY-SENDER-PERSONA",
		Clause: "authentication.sender_persona MUST equal envelope.source_agent.",
		Source: seedSchema + ` authentication.sender_persona ("Must match envelope.source_agent")`})
	RuleAttachmentPath = olympusRules.Declare(rules.Rule{ID: "OLY-ATTACHMENT-PATH",
		Clause: "context_attachments[].path MUST be a relative path that stays inside the repository root: no absolute path, no \"..\" that climbs out, no symlink that resolves outside (such files are never read).",
		Source: seedSchema + ` context_attachments.items.path ("relative to repo root"); aghcheck --attachments-root`})
	RuleAttachmentFile = olympusRules.Declare(rules.Rule{ID: "OLY-ATTACHMENT-FILE",
		Clause: "An attachment that declares a hash MUST name a readable regular file under the attachments root.",
		Source: seedSchema + " context_attachments.items.hash (content-addressed); aghcheck --attachments-root"})
	RuleAttachmentHash = olympusRules.Declare(rules.Rule{ID: "OLY-ATTACHMENT-HASH",
		Clause: "context_attachments[].hash MUST equal the SHA-256 of the file at path.",
		Source: seedSchema + ` context_attachments.items.hash ("integrity verification"); aghcheck --attachments-root`})
	RuleSignaturePresent = olympusRules.Declare(rules.Rule{ID: "OLY-SIGNATURE-PRESENT",
		Clause: "When a verification key is supplied, authentication.signature MUST be present.",
		Source: seedSchema + " authentication.signature; aghcheck --hmac-key-file"})
	RuleSignatureEncoding = olympusRules.Declare(rules.Rule{ID: "OLY-SIGNATURE-ENCODING",
		Clause: "authentication.signature MUST be the 32-byte HMAC-SHA256 in lowercase hex (64 digits).",
		Source: "aghcheck canonical envelope content (docs/formats.md)"})
	RuleSignatureUnchecked = olympusRules.Declare(rules.Rule{ID: "OLY-SIGNATURE-UNCHECKED", Severity: rules.Warning,
		Clause: "A signed envelope SHOULD be validated with its HMAC key (--hmac-key-file or $" + KeyEnv + "): without one, authentication.signature is not verified, and a valid result says nothing of who sent the envelope or whether it changed.",
		Source: seedSchema + " authentication.signature; aghcheck --hmac-key-file"})
	RuleAttachmentUnchecked = olympusRules.Declare(rules.Rule{ID: "OLY-ATTACHMENT-UNCHECKED", Severity: rules.Warning,
		Clause: "An envelope whose attachments declare hashes SHOULD be validated with the directory they live in (--attachments-root): without one, context_attachments[].hash is not compared with any file.",
		Source: seedSchema + " context_attachments.items.hash; aghcheck --attachments-root"})
	RuleSignature = olympusRules.Declare(rules.Rule{ID: "OLY-SIGNATURE",
		Clause: "authentication.signature MUST be the HMAC-SHA256, under the supplied key, of the canonical envelope content (RFC 8785 JCS of the document without authentication.signature).",
		Source: seedSchema + " authentication.signature; aghcheck canonical envelope content (docs/formats.md)"})
)

// Rules returns the Olympus envelope rules, for the catalogue.
func Rules() []*rules.Rule { return olympusRules.Rules() }
