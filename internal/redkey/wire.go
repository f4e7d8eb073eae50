// Package redkey validates the two RedKey formats (the RedKey design spec): Agent Wire 1.0
// messages (envelope plus the brief, inbox, complete, blocked and claim
// payloads) and Agent Card 1.0 identity documents.
package redkey

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// WireVersion is the only Agent Wire version this package knows.
const WireVersion = "1.0"

// RoleTopicLimit is the size a role-topic message must stay under.
const RoleTopicLimit = 1024

var (
	wireTypes        = []string{"brief", "inbox", "complete", "blocked", "claim"}
	outputTypes      = []string{"file", "json", "pr", "message", "report"}
	inboxTypes       = []string{"task.feedback", "status.update", "task.blocked", "exec.gate", "question", "info"}
	mechanicalValues = []string{"pass", "fail"}
	semanticValues   = []string{"pass", "fail", "skipped"}
	blockerTypes     = []string{"spec_gap", "dependency", "tool_failure", "ambiguity", "resource", "verification_fail"}

	taskIDPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
	tsPattern     = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`)
)

// WireOptions configure the Agent Wire profile.
type WireOptions struct {
	// RoleTopic judges every message as posted to a role topic, where it
	// must stay under RoleTopicLimit bytes.
	RoleTopic bool
}

// Wire is the "redkey-wire" validate profile. It is safe for concurrent use.
type Wire struct{ opts WireOptions }

// NewWire builds the Agent Wire profile.
func NewWire(o WireOptions) *Wire { return &Wire{opts: o} }

func (w *Wire) Name() string { return wireProfile }

// Detect recognises the version member every Wire carries.
func (w *Wire) Detect(doc map[string]any) bool {
	_, ok := doc["wire"]
	return ok
}

// Check returns every finding for one decoded Wire message.
func (w *Wire) Check(raw []byte, v any) []rules.Finding {
	c := &checker{typeRule: RuleWireFieldType}
	if w.opts.RoleTopic {
		// Measured as posted: the document's bytes without the insignificant
		// whitespace an editor leaves around it.
		if n := len(bytes.TrimSpace(raw)); n >= RoleTopicLimit {
			c.add(RuleRoleTopicSize, "", fmt.Sprintf("fewer than %d bytes", RoleTopicLimit), fmt.Sprintf("%d bytes", n),
				"role topics carry a pointer (the task_id), not the payload")
		}
	}
	doc, ok := v.(map[string]any)
	if !ok {
		c.add(RuleWireFieldType, "", "object", describe(v), "a Wire message is a JSON object")
		return c.out
	}
	if ver, present := doc["wire"]; !present {
		c.add(RuleWireEnvelope, "/wire", `member "wire"`, "absent", `missing member "wire"; checked as version 1.0`)
	} else if s, _ := ver.(string); s != WireVersion {
		c.add(RuleWireVersion, "/wire", quote(WireVersion), describe(ver),
			fmt.Sprintf("unknown Agent Wire version %s: aghcheck knows version %s only, so the message is rejected unchecked", describe(ver), WireVersion))
		return c.out
	}

	typ, typeOK := c.member(doc, "", "type", kString, RuleWireEnvelope)
	if typeOK && !slices.Contains(wireTypes, typ.(string)) {
		c.oneOf(RuleWireType, "/type", typ.(string), wireTypes)
		typeOK = false
	}
	if s, ok := c.member(doc, "", "sender", kString, RuleWireEnvelope); ok {
		if s := s.(string); s == "" || strings.ContainsFunc(s, isSpace) {
			c.add(RuleWireSender, "/sender", `an agent slug, "system" or "human"`, quote(s), "")
		}
	}
	if ts, ok := c.member(doc, "", "ts", kString, RuleWireEnvelope); ok {
		if why := timestampProblem(ts.(string)); why != "" {
			c.add(RuleWireTS, "/ts", "an ISO 8601 (RFC 3339) timestamp such as 2026-04-28T00:00:00Z", quote(ts.(string)), why)
		}
	}
	payload, ok := c.member(doc, "", "payload", kObject, RuleWireEnvelope)
	if !ok || !typeOK {
		return c.out
	}
	p := payload.(map[string]any)
	switch typ {
	case "brief":
		c.brief(p)
	case "inbox":
		c.inbox(p)
	case "complete":
		c.complete(p)
	case "blocked":
		c.blocked(p)
	case "claim":
		c.claim(p)
	}
	return c.out
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' }

func timestampProblem(s string) string {
	if !tsPattern.MatchString(s) {
		return "not in the form YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)"
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil && !leapSecond(s) {
		return "not a real date and time"
	}
	return ""
}

// leapSecond reports whether s (already of tsPattern's shape) is a valid
// leap second: RFC 3339 allows second 60 at 23:59 UTC, which time.Parse
// refuses.
func leapSecond(s string) bool {
	if s[17:19] != "60" {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, s[:17]+"59"+s[19:])
	if err != nil {
		return false
	}
	t = t.UTC()
	return t.Hour() == 23 && t.Minute() == 59
}

const pl = "/payload"

// taskID checks a member that holds a task pointer ("0.0.XXXXX").
func (c *checker) taskID(p map[string]any, name string, nullable bool) {
	k := kString
	if nullable {
		k = kStringOrNull
	}
	v, ok := c.member(p, pl, name, k, RuleWirePayloadMember)
	if s, isStr := v.(string); ok && isStr && !taskIDPattern.MatchString(s) {
		c.add(RuleTaskID, pl+rules.Pointer(name), `a Hedera entity id "shard.realm.num", e.g. "0.0.48213"`, quote(s), "")
	}
}

func (c *checker) members(p map[string]any, ptr string, k kind, names ...string) {
	for _, n := range names {
		c.member(p, ptr, n, k, RuleWirePayloadMember)
	}
}

func (c *checker) brief(p map[string]any) {
	if _, present := p["goal"]; !present {
		c.add(RuleBriefGoalRequired, pl+"/goal", `member "goal"`, "absent", "a brief must say what is true when the task is done")
	} else if g, ok := c.member(p, pl, "goal", kString, nil); ok {
		if n := Sentences(g.(string)); n != 1 {
			c.add(RuleBriefGoalSentence, pl+"/goal", "1 sentence", fmt.Sprintf("%d sentences", n), "")
		}
	}
	if _, present := p["context"]; present { // optional, says the seed
		if ctx, ok := c.member(p, pl, "context", kString, nil); ok {
			if n := Words(ctx.(string)); n > 200 {
				c.add(RuleBriefContextWords, pl+"/context", "at most 200 words", fmt.Sprintf("%d words", n), "")
			}
		}
	}
	c.members(p, pl, kStrings, "constraints", "acceptance_criteria", "escalation_triggers")
	if oc, ok := c.member(p, pl, "output_contract", kObject, RuleWirePayloadMember); ok {
		o := oc.(map[string]any)
		const ptr = pl + "/output_contract"
		if t, ok := c.member(o, ptr, "type", kString, RuleWirePayloadMember); ok {
			c.oneOf(RuleBriefOutputType, ptr+"/type", t.(string), outputTypes)
		}
		c.member(o, ptr, "schema_ref", kStringOrNull, RuleWirePayloadMember)
		c.member(o, ptr, "output_ref_required", kBool, RuleWirePayloadMember)
		c.member(o, ptr, "min_length", kCount, RuleWirePayloadMember)
		c.member(o, ptr, "evaluate", kStringOrNull, RuleWirePayloadMember)
	}
	if env, ok := c.member(p, pl, "env", kObject, RuleWirePayloadMember); ok {
		e := env.(map[string]any)
		const ptr = pl + "/env"
		c.member(e, ptr, "client_id", kString, RuleWirePayloadMember)
		for _, n := range []string{"task_id", "project_id"} {
			v, ok := c.member(e, ptr, n, kString, RuleWirePayloadMember)
			if ok && !taskIDPattern.MatchString(v.(string)) {
				c.add(RuleTaskID, ptr+rules.Pointer(n), `a Hedera entity id "shard.realm.num", e.g. "0.0.48213"`, quote(v.(string)), "")
			}
		}
		c.member(e, ptr, "repo_url", kStringOrNull, RuleWirePayloadMember)
		c.member(e, ptr, "worktree_path", kStringOrNull, RuleWirePayloadMember)
	}
}

func (c *checker) inbox(p map[string]any) {
	c.member(p, pl, "to_agent", kString, RuleWirePayloadMember)
	if v, present := p["priority"]; !present {
		c.add(RuleWirePayloadMember, pl+"/priority", `member "priority"`, "absent", `missing member "priority"`)
	} else if f, ok := number(v); !ok || (f != 1 && f != 2 && f != 3) {
		c.add(RuleInboxPriority, pl+"/priority", "1, 2 or 3", describe(v), "")
	}
	if mt, ok := c.member(p, pl, "message_type", kString, RuleWirePayloadMember); ok {
		c.oneOf(RuleInboxMessageType, pl+"/message_type", mt.(string), inboxTypes)
	}
	c.taskID(p, "ref_task_id", true)
	c.members(p, pl, kString, "subject", "body")
	c.member(p, pl, "action_required", kBool, RuleWirePayloadMember)
}

func (c *checker) complete(p map[string]any) {
	c.taskID(p, "task_id", false)
	c.members(p, pl, kString, "agent", "output_ref")
	if s, ok := c.member(p, pl, "summary", kString, RuleWirePayloadMember); ok {
		if n := Words(s.(string)); n > 150 {
			c.add(RuleCompleteSummaryWords, pl+"/summary", "at most 150 words", fmt.Sprintf("%d words", n), "")
		}
	}
	c.member(p, pl, "cost_usd", kNumber, RuleWirePayloadMember)
	c.member(p, pl, "duration_seconds", kNumber, RuleWirePayloadMember)
	if ver, ok := c.member(p, pl, "verification", kObject, RuleWirePayloadMember); ok {
		v := ver.(map[string]any)
		const ptr = pl + "/verification"
		if m, ok := c.member(v, ptr, "mechanical", kString, RuleWirePayloadMember); ok {
			c.oneOf(RuleCompleteMechanical, ptr+"/mechanical", m.(string), mechanicalValues)
		}
		if s, ok := c.member(v, ptr, "semantic", kString, RuleWirePayloadMember); ok {
			c.oneOf(RuleCompleteSemantic, ptr+"/semantic", s.(string), semanticValues)
		}
		c.member(v, ptr, "attempts", kCount, RuleWirePayloadMember)
	}
}

func (c *checker) blocked(p map[string]any) {
	c.taskID(p, "task_id", false)
	c.members(p, pl, kString, "agent", "reason")
	if b, ok := c.member(p, pl, "blocker_type", kString, RuleWirePayloadMember); ok {
		c.oneOf(RuleBlockedType, pl+"/blocker_type", b.(string), blockerTypes)
	}
	c.member(p, pl, "suggested_resolution", kStringOrNull, RuleWirePayloadMember)
	c.member(p, pl, "attempts", kCount, RuleWirePayloadMember)
}

func (c *checker) claim(p map[string]any) {
	c.taskID(p, "task_id", false)
	c.members(p, pl, kString, "agent", "role")
}
