package redkey

import "github.com/aghcheck/aghcheck/internal/rules"

const (
	wireProfile = "redkey-wire"
	cardProfile = "redkey-card"
	seed        = "RedKey Agent Wire Protocol and Agent Card design spec"
)

var (
	wireRules = rules.Declarer{Profile: wireProfile}
	cardRules = rules.Declarer{Profile: cardProfile}
)

// Agent Wire 1.0.
var (
	RuleWireVersion = wireRules.Declare(rules.Rule{ID: "RKW-VERSION",
		Clause: `wire MUST be "1.0"; a message with any other version is rejected unchecked.`,
		Source: seed + " §Principles 3; Wire Envelope"})
	RuleWireEnvelope = wireRules.Declare(rules.Rule{ID: "RKW-ENVELOPE-REQUIRED",
		Clause: "Every Wire MUST carry the envelope members wire, type, sender, ts and payload.",
		Source: seed + " §Wire Envelope"})
	RuleWireType = wireRules.Declare(rules.Rule{ID: "RKW-TYPE",
		Clause: "type MUST be one of brief, inbox, complete, blocked, claim.",
		Source: seed + " §Message Type sections"})
	RuleWireSender = wireRules.Declare(rules.Rule{ID: "RKW-SENDER",
		Clause: `sender MUST be an agent slug, "system" or "human": a non-empty token without spaces.`,
		Source: seed + " §Wire Envelope"})
	RuleWireTS = wireRules.Declare(rules.Rule{ID: "RKW-TS",
		Clause: "ts MUST be an ISO 8601 timestamp (RFC 3339 date-time with offset, e.g. 2026-04-28T00:00:00Z).",
		Source: seed + " §Wire Envelope"})
	RuleWireFieldType = wireRules.Declare(rules.Rule{ID: "RKW-FIELD-TYPE",
		Clause: "Every envelope and payload member MUST have the type its template shows (string, string or null, number, count, boolean, object, list of strings).",
		Source: seed + " §Principles 4 (every other field is typed); Message Type templates"})
	RuleWirePayloadMember = wireRules.Declare(rules.Rule{ID: "RKW-PAYLOAD-MEMBER", Severity: rules.Warning,
		Clause: "A payload SHOULD carry every member its template shows (the seed marks only brief.goal required and brief.context optional).",
		Source: seed + " §Message Type templates"})
	RuleBriefGoalRequired = wireRules.Declare(rules.Rule{ID: "RKW-BRIEF-GOAL-REQUIRED",
		Clause: "A brief payload MUST carry goal.",
		Source: seed + " §brief Field rules (goal: Required)"})
	RuleBriefGoalSentence = wireRules.Declare(rules.Rule{ID: "RKW-BRIEF-GOAL-ONE-SENTENCE",
		Clause: "brief goal MUST be exactly one sentence.",
		Source: seed + " §brief Field rules (goal: One sentence)"})
	RuleBriefContextWords = wireRules.Declare(rules.Rule{ID: "RKW-BRIEF-CONTEXT-WORDS",
		Clause: "brief context MUST NOT exceed 200 words.",
		Source: seed + " §brief Field rules (context: 200 word cap)"})
	RuleBriefOutputType = wireRules.Declare(rules.Rule{ID: "RKW-BRIEF-OUTPUT-CONTRACT-TYPE",
		Clause: "brief output_contract.type MUST be one of file, json, pr, message, report.",
		Source: seed + " §brief template"})
	RuleInboxMessageType = wireRules.Declare(rules.Rule{ID: "RKW-INBOX-MESSAGE-TYPE",
		Clause: "inbox message_type MUST be one of task.feedback, status.update, task.blocked, exec.gate, question, info.",
		Source: seed + " §inbox Message types"})
	RuleInboxPriority = wireRules.Declare(rules.Rule{ID: "RKW-INBOX-PRIORITY",
		Clause: "inbox priority MUST be the integer 1, 2 or 3.",
		Source: seed + " §inbox Priority levels"})
	RuleCompleteSummaryWords = wireRules.Declare(rules.Rule{ID: "RKW-COMPLETE-SUMMARY-WORDS",
		Clause: "complete summary MUST NOT exceed 150 words.",
		Source: seed + " §complete template (summary: Max 150 words)"})
	RuleCompleteMechanical = wireRules.Declare(rules.Rule{ID: "RKW-COMPLETE-VERIFICATION-MECHANICAL",
		Clause: "complete verification.mechanical MUST be pass or fail.",
		Source: seed + " §complete template"})
	RuleCompleteSemantic = wireRules.Declare(rules.Rule{ID: "RKW-COMPLETE-VERIFICATION-SEMANTIC",
		Clause: "complete verification.semantic MUST be pass, fail or skipped.",
		Source: seed + " §complete template"})
	RuleBlockedType = wireRules.Declare(rules.Rule{ID: "RKW-BLOCKED-BLOCKER-TYPE",
		Clause: "blocked blocker_type MUST be one of spec_gap, dependency, tool_failure, ambiguity, resource, verification_fail.",
		Source: seed + " §blocked template"})
	RuleTaskID = wireRules.Declare(rules.Rule{ID: "RKW-TASK-ID",
		Clause: `task_id, project_id and ref_task_id MUST be Hedera entity ids "shard.realm.num" (the templates' "0.0.XXXXX").`,
		Source: seed + " §brief, inbox, complete, blocked, claim templates"})
	RuleRoleTopicSize = wireRules.Declare(rules.Rule{ID: "RKW-ROLE-TOPIC-SIZE",
		Clause: "A message posted to a role topic MUST stay under 1024 bytes (a pointer, not the payload); checked with --role-topic.",
		Source: seed + " §Principles 5 (Lean messages)"})
)

// Agent Card 1.0.
var (
	RuleCardVersion = cardRules.Declare(rules.Rule{ID: "RKC-VERSION",
		Clause: `card_version MUST be "1.0"; a card with any other version is rejected unchecked.`,
		Source: seed + " §Agent Card Schema; Naming Glossary (card_version)"})
	RuleCardRequired = cardRules.Declare(rules.Rule{ID: "RKC-REQUIRED",
		Clause: "A card MUST carry every member of the Agent Card schema: card_version, identity (slug, name, department, reports_to, model), scope, capabilities, constraints, escalation_rules (trigger, route_to, via), output_types, working_style, voice (description, example), values.",
		Source: seed + " §Agent Card Schema"})
	RuleCardFieldType = cardRules.Declare(rules.Rule{ID: "RKC-FIELD-TYPE",
		Clause: "Every card member MUST have the type the schema shows (strings, objects, lists of strings, a list of escalation rule objects).",
		Source: seed + " §Agent Card Schema"})
	RuleCardScope = cardRules.Declare(rules.Rule{ID: "RKC-SCOPE-ONE-SENTENCE",
		Clause: "scope MUST be exactly one sentence.",
		Source: seed + " §Field Rules (scope: 1 sentence max)"})
	RuleCardConstraint = cardRules.Declare(rules.Rule{ID: "RKC-CONSTRAINT-I-NEVER",
		Clause: `Each constraints item MUST be phrased "I never …".`,
		Source: seed + " §" + `Field Rules (constraints: "I never X" format); Why Constraints Beat Prose`})
	RuleCardWorkingStyle = cardRules.Declare(rules.Rule{ID: "RKC-WORKING-STYLE-SENTENCES",
		Clause: "working_style MUST be one to three sentences.",
		Source: seed + " §Field Rules (working_style: 3 sentences max)"})
	RuleCardVoiceDescription = cardRules.Declare(rules.Rule{ID: "RKC-VOICE-DESCRIPTION-SENTENCES",
		Clause: "voice.description MUST be one or two sentences.",
		Source: seed + " §Agent Card Schema (voice.description: 1–2 sentences)"})
	RuleCardVoiceExample = cardRules.Declare(rules.Rule{ID: "RKC-VOICE-EXAMPLE-SINGLE",
		Clause: "voice.example MUST be a single example: one non-blank string on one line, not a list.",
		Source: seed + " §Field Rules (voice.example: 1 example only)"})
	RuleCardVia = cardRules.Declare(rules.Rule{ID: "RKC-ESCALATION-VIA",
		Clause: "escalation_rules[].via MUST be task.blocked, inbox or exec.gate.",
		Source: seed + " §Agent Card Schema"})
	RuleCardRouteTo = cardRules.Declare(rules.Rule{ID: "RKC-ESCALATION-ROUTE-TO",
		Clause: `escalation_rules[].route_to MUST name a known role slug, agent slug or "exec"; checked with --registry.`,
		Source: seed + " §Field Rules (escalation_rules: real role or agent slugs)"})
	RuleCardOutputType = cardRules.Declare(rules.Rule{ID: "RKC-OUTPUT-TYPE",
		Clause: "output_types items MUST name known Wire output contract slugs; checked with --registry.",
		Source: seed + " §Field Rules (output_types: real output contract slugs)"})
	RuleCardRegistryUnchecked = cardRules.Declare(rules.Rule{ID: "RKC-REGISTRY-UNCHECKED", Severity: rules.Warning,
		Clause: "A card that routes escalations or declares output types SHOULD be validated with the registry of known slugs (--registry): without one, route_to and output_types are not checked.",
		Source: seed + " §Field Rules (real role, agent and output contract slugs); aghcheck --registry"})
)

// Rules returns the RedKey wire and card rules, for the catalogue.
func Rules() []*rules.Rule { return append(wireRules.Rules(), cardRules.Rules()...) }
