package olympus

import "github.com/aghcheck/aghcheck/rules"

const (
	profileName = "olympus"
	seedSchema  = "Olympus agent-envelope schema v1 (seed 002)"
)

func rule(id, clause, source string) *rules.Rule {
	return &rules.Rule{ID: id, Profile: profileName, Severity: rules.Error, Clause: clause, Source: source}
}

// Schema rules: each constraint of schemas/olympus-envelope.schema.json maps
// to exactly one of these (see schemaRule).
var (
	RuleSchema = rule("OLY-SCHEMA",
		"A document MUST be valid against the Olympus Agent Context Envelope 1.0 schema.", seedSchema)
	RuleRequired = rule("OLY-REQUIRED",
		"Required members MUST be present: envelope, persona, protocol_message at the top; version, message_id, timestamp, source_agent, target_agent, correlation_id, session_id in envelope; sender_persona, sender_task_id, session_id in authentication; message_type, payload in protocol_message; type, path in each attachment.",
		seedSchema+" required")
	RuleType = rule("OLY-TYPE",
		"Every member MUST have the JSON type the schema gives it (objects, strings, the context_attachments array).", seedSchema+" type")
	RuleUnknownMember = rule("OLY-UNKNOWN-MEMBER",
		"The envelope and its objects are closed: a member the schema does not define MUST NOT appear.", seedSchema+" additionalProperties: false")
	RuleVersion = rule("OLY-VERSION",
		`envelope.version MUST be "1.0".`, seedSchema+" envelope.version const")
	RuleMessageID = rule("OLY-MESSAGE-ID",
		"envelope.message_id MUST be \"msg-\" followed by a lowercase hyphenated UUID.", seedSchema+" envelope.message_id pattern")
	RuleTimestamp = rule("OLY-TIMESTAMP",
		"envelope.timestamp MUST be an RFC 3339 date-time (the schema's format: date-time, asserted).", seedSchema+" envelope.timestamp format")
	RuleSourceAgent = rule("OLY-SOURCE-AGENT",
		"envelope.source_agent MUST be one of the nine Olympus personas.", seedSchema+" envelope.source_agent enum")
	RuleTargetAgent = rule("OLY-TARGET-AGENT",
		"envelope.target_agent MUST be one of the nine Olympus personas.", seedSchema+" envelope.target_agent enum")
	RuleCorrelationID = rule("OLY-CORRELATION-ID",
		`envelope.correlation_id MUST be "issue-N" or "pr-N".`, seedSchema+" envelope.correlation_id pattern")
	RuleMessageType = rule("OLY-MESSAGE-TYPE",
		"protocol_message.message_type MUST be one of ASSIGN, STATUS, RESULT, FEEDBACK, ESCALATE, APPROVE, BLOCK, CANCEL, WATCH.", seedSchema+" protocol_message.message_type enum")
	RuleAttachmentType = rule("OLY-ATTACHMENT-TYPE",
		"context_attachments[].type MUST be one of plan, config, persona_definition, source_file, documentation, coder_result, checkpoint.", seedSchema+" context_attachments.items.type enum")
	RuleAttachmentHashFormat = rule("OLY-ATTACHMENT-HASH-FORMAT",
		`context_attachments[].hash MUST be "sha256:" followed by 64 lowercase hex digits.`, seedSchema+" context_attachments.items.hash pattern")
)

// Rules the schema cannot state.
var (
	RuleSenderPersona = rule("OLY-SENDER-PERSONA",
		"authentication.sender_persona MUST equal envelope.source_agent.", seedSchema+` authentication.sender_persona ("Must match envelope.source_agent")`)
	RuleAttachmentPath = rule("OLY-ATTACHMENT-PATH",
		"context_attachments[].path MUST be a relative path that stays inside the repository root: no absolute path, no \"..\" that climbs out, no symlink that resolves outside (such files are never read).",
		seedSchema+` context_attachments.items.path ("relative to repo root"); aghcheck --attachments-root`)
	RuleAttachmentFile = rule("OLY-ATTACHMENT-FILE",
		"An attachment that declares a hash MUST name a readable regular file under the attachments root.", seedSchema+" context_attachments.items.hash (content-addressed); aghcheck --attachments-root")
	RuleAttachmentHash = rule("OLY-ATTACHMENT-HASH",
		"context_attachments[].hash MUST equal the SHA-256 of the file at path.", seedSchema+` context_attachments.items.hash ("integrity verification"); aghcheck --attachments-root`)
	RuleSignaturePresent = rule("OLY-SIGNATURE-PRESENT",
		"When a verification key is supplied, authentication.signature MUST be present.", seedSchema+" authentication.signature; aghcheck --hmac-key-file")
	RuleSignatureEncoding = rule("OLY-SIGNATURE-ENCODING",
		"authentication.signature MUST be the 32-byte HMAC-SHA256 in lowercase hex (64 digits).", "aghcheck canonical envelope content (docs/formats.md)")
	RuleSignature = rule("OLY-SIGNATURE",
		"authentication.signature MUST be the HMAC-SHA256, under the supplied key, of the canonical envelope content (RFC 8785 JCS of the document without authentication.signature).",
		seedSchema+" authentication.signature; aghcheck canonical envelope content (docs/formats.md)")
)

func init() {
	rules.Register(RuleSchema, RuleRequired, RuleType, RuleUnknownMember, RuleVersion, RuleMessageID,
		RuleTimestamp, RuleSourceAgent, RuleTargetAgent, RuleCorrelationID, RuleMessageType,
		RuleAttachmentType, RuleAttachmentHashFormat, RuleSenderPersona, RuleAttachmentPath,
		RuleAttachmentFile, RuleAttachmentHash, RuleSignaturePresent, RuleSignatureEncoding, RuleSignature)
}
