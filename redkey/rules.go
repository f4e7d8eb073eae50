package redkey

import "github.com/aghcheck/aghcheck/rules"

const (
	wireProfile = "redkey-wire"
	cardProfile = "redkey-card"
	seed        = "RedKey Agent Wire Protocol + Agent Card design spec (seed 004)"
)

func wireRule(id string, sev rules.Severity, clause, section string) *rules.Rule {
	return &rules.Rule{ID: id, Profile: wireProfile, Severity: sev, Clause: clause, Source: seed + " §" + section}
}

func cardRule(id, clause, section string) *rules.Rule {
	return &rules.Rule{ID: id, Profile: cardProfile, Severity: rules.Error, Clause: clause, Source: seed + " §" + section}
}

// Agent Wire 1.0.
var (
	RuleWireVersion = wireRule("RKW-VERSION", rules.Error,
		`wire MUST be "1.0"; a message with any other version is rejected unchecked.`, "Principles 3; Wire Envelope")
	RuleWireEnvelope = wireRule("RKW-ENVELOPE-REQUIRED", rules.Error,
		"Every Wire MUST carry the envelope members wire, type, sender, ts and payload.", "Wire Envelope")
	RuleWireType = wireRule("RKW-TYPE", rules.Error,
		"type MUST be one of brief, inbox, complete, blocked, claim.", "Message Type sections")
	RuleWireSender = wireRule("RKW-SENDER", rules.Error,
		`sender MUST be an agent slug, "system" or "human": a non-empty token without spaces.`, "Wire Envelope")
	RuleWireTS = wireRule("RKW-TS", rules.Error,
		"ts MUST be an ISO 8601 timestamp (RFC 3339 date-time with offset, e.g. 2026-04-28T00:00:00Z).", "Wire Envelope")
	RuleWireFieldType = wireRule("RKW-FIELD-TYPE", rules.Error,
		"Every envelope and payload member MUST have the type its template shows (string, string or null, number, count, boolean, object, list of strings).",
		"Principles 4 (every other field is typed); Message Type templates")
	RuleWirePayloadMember = wireRule("RKW-PAYLOAD-MEMBER", rules.Warning,
		"A payload SHOULD carry every member its template shows (the seed marks only brief.goal required and brief.context optional).", "Message Type templates")
	RuleBriefGoalRequired = wireRule("RKW-BRIEF-GOAL-REQUIRED", rules.Error,
		"A brief payload MUST carry goal.", "brief Field rules (goal: Required)")
	RuleBriefGoalSentence = wireRule("RKW-BRIEF-GOAL-ONE-SENTENCE", rules.Error,
		"brief goal MUST be exactly one sentence.", "brief Field rules (goal: One sentence)")
	RuleBriefContextWords = wireRule("RKW-BRIEF-CONTEXT-WORDS", rules.Error,
		"brief context MUST NOT exceed 200 words.", "brief Field rules (context: 200 word cap)")
	RuleBriefOutputType = wireRule("RKW-BRIEF-OUTPUT-CONTRACT-TYPE", rules.Error,
		"brief output_contract.type MUST be one of file, json, pr, message, report.", "brief template")
	RuleInboxMessageType = wireRule("RKW-INBOX-MESSAGE-TYPE", rules.Error,
		"inbox message_type MUST be one of task.feedback, status.update, task.blocked, exec.gate, question, info.", "inbox Message types")
	RuleInboxPriority = wireRule("RKW-INBOX-PRIORITY", rules.Error,
		"inbox priority MUST be the integer 1, 2 or 3.", "inbox Priority levels")
	RuleCompleteSummaryWords = wireRule("RKW-COMPLETE-SUMMARY-WORDS", rules.Error,
		"complete summary MUST NOT exceed 150 words.", "complete template (summary: Max 150 words)")
	RuleCompleteMechanical = wireRule("RKW-COMPLETE-VERIFICATION-MECHANICAL", rules.Error,
		"complete verification.mechanical MUST be pass or fail.", "complete template")
	RuleCompleteSemantic = wireRule("RKW-COMPLETE-VERIFICATION-SEMANTIC", rules.Error,
		"complete verification.semantic MUST be pass, fail or skipped.", "complete template")
	RuleBlockedType = wireRule("RKW-BLOCKED-BLOCKER-TYPE", rules.Error,
		"blocked blocker_type MUST be one of spec_gap, dependency, tool_failure, ambiguity, resource, verification_fail.", "blocked template")
	RuleTaskID = wireRule("RKW-TASK-ID", rules.Error,
		`task_id, project_id and ref_task_id MUST be Hedera entity ids "shard.realm.num" (the templates' "0.0.XXXXX").`, "brief, inbox, complete, blocked, claim templates")
	RuleRoleTopicSize = wireRule("RKW-ROLE-TOPIC-SIZE", rules.Error,
		"A message posted to a role topic MUST stay under 1024 bytes (a pointer, not the payload); checked with --role-topic.", "Principles 5 (Lean messages)")
)

// Agent Card 1.0.
var (
	RuleCardVersion = cardRule("RKC-VERSION",
		`card_version MUST be "1.0"; a card with any other version is rejected unchecked.`, "Agent Card Schema; Naming Glossary (card_version)")
	RuleCardRequired = cardRule("RKC-REQUIRED",
		"A card MUST carry every member of the Agent Card schema: card_version, identity (slug, name, department, reports_to, model), scope, capabilities, constraints, escalation_rules (trigger, route_to, via), output_types, working_style, voice (description, example), values.",
		"Agent Card Schema")
	RuleCardFieldType = cardRule("RKC-FIELD-TYPE",
		"Every card member MUST have the type the schema shows (strings, objects, lists of strings, a list of escalation rule objects).", "Agent Card Schema")
	RuleCardScope = cardRule("RKC-SCOPE-ONE-SENTENCE",
		"scope MUST be exactly one sentence.", "Field Rules (scope: 1 sentence max)")
	RuleCardConstraint = cardRule("RKC-CONSTRAINT-I-NEVER",
		`Each constraints item MUST be phrased "I never …".`, `Field Rules (constraints: "I never X" format); Why Constraints Beat Prose`)
	RuleCardWorkingStyle = cardRule("RKC-WORKING-STYLE-SENTENCES",
		"working_style MUST be one to three sentences.", "Field Rules (working_style: 3 sentences max)")
	RuleCardVoiceDescription = cardRule("RKC-VOICE-DESCRIPTION-SENTENCES",
		"voice.description MUST be one or two sentences.", "Agent Card Schema (voice.description: 1–2 sentences)")
	RuleCardVoiceExample = cardRule("RKC-VOICE-EXAMPLE-SINGLE",
		"voice.example MUST be a single example: one non-blank string on one line, not a list.", "Field Rules (voice.example: 1 example only)")
	RuleCardVia = cardRule("RKC-ESCALATION-VIA",
		"escalation_rules[].via MUST be task.blocked, inbox or exec.gate.", "Agent Card Schema")
	RuleCardRouteTo = cardRule("RKC-ESCALATION-ROUTE-TO",
		`escalation_rules[].route_to MUST name a known role slug, agent slug or "exec"; checked with --registry.`, "Field Rules (escalation_rules: real role or agent slugs)")
	RuleCardOutputType = cardRule("RKC-OUTPUT-TYPE",
		"output_types items MUST name known Wire output contract slugs; checked with --registry.", "Field Rules (output_types: real output contract slugs)")
)

func init() {
	rules.Register(RuleWireVersion, RuleWireEnvelope, RuleWireType, RuleWireSender, RuleWireTS, RuleWireFieldType,
		RuleWirePayloadMember, RuleBriefGoalRequired, RuleBriefGoalSentence, RuleBriefContextWords, RuleBriefOutputType,
		RuleInboxMessageType, RuleInboxPriority, RuleCompleteSummaryWords, RuleCompleteMechanical, RuleCompleteSemantic,
		RuleBlockedType, RuleTaskID, RuleRoleTopicSize,
		RuleCardVersion, RuleCardRequired, RuleCardFieldType, RuleCardScope, RuleCardConstraint, RuleCardWorkingStyle,
		RuleCardVoiceDescription, RuleCardVoiceExample, RuleCardVia, RuleCardRouteTo, RuleCardOutputType)
}
