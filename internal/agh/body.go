package agh

import (
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// The bodies, one check per kind, in the Message Kinds page's order. The
// optional members of each body are a table (member lists below) checked by
// one function, typed.

func (r *run) body(kind string, body map[string]any) {
	switch kind {
	case KindGreet:
		r.greet(body)
	case KindWhois:
		r.whois(body)
	case KindSay:
		r.say(body)
	case KindCapability:
		r.capability(body)
	case KindReceipt:
		r.receipt(body)
	case KindTrace:
		r.trace(body)
	}
}

// member is an optional member and the JSON type it must have, named as a
// finding's "expected" names it.
type member struct{ name, typ string }

const (
	tString  = "string"
	tObject  = "object"
	tArray   = "array"
	tStrings = "array of strings"
)

var (
	greetMembers   = []member{{"summary", tString}}
	cardMembers    = []member{{"display_name", tString}, {"ext", tObject}}
	whoisMembers   = []member{{"query", tString}}
	sayMembers     = []member{{"intent", tString}, {"artifacts", tArray}}
	receiptMembers = []member{{"detail", tString}}
	traceMembers   = []member{{"message", tString}, {"result", tObject}, {"artifact_refs", tArray}}
	// capabilityMembers: the version and the descriptive lists.
	capabilityMembers = []member{{"version", tString}, {"context_needed", tStrings}, {"artifacts_expected", tStrings},
		{"execution_outline", tStrings}, {"constraints", tStrings}, {"examples", tStrings}, {"requirements", tStrings}}
)

// typed reports, under rule, each member of obj (at base+name) whose value
// does not have its type; it says whether all of them do.
func (r *run) typed(rule *rules.Rule, obj map[string]any, base string, members []member) bool {
	good := true
	for _, m := range members {
		v, ok := obj[m.name]
		if !ok {
			continue
		}
		switch m.typ {
		case tStrings:
			good = r.stringArray(rule, v, base+m.name) && good
			continue
		case tString:
			_, ok = v.(string)
		case tObject:
			_, ok = v.(map[string]any)
		case tArray:
			_, ok = v.([]any)
		}
		if !ok {
			r.add(rule, base+m.name, m.typ, describe(v))
			good = false
		}
	}
	return good
}

// stringArray reports v unless it is an array of strings.
func (r *run) stringArray(rule *rules.Rule, v any, ptr string) bool {
	arr, ok := v.([]any)
	if !ok {
		r.add(rule, ptr, tStrings, describe(v))
		return false
	}
	good := true
	for i, e := range arr {
		if _, isStr := e.(string); !isStr {
			r.add(rule, ptr+"/"+strconv.Itoa(i), tString, describe(e))
			good = false
		}
	}
	return good
}

// found is a finding's "found" for a member that may be absent.
func found(v any, present bool) string {
	if !present {
		return "absent"
	}
	return describe(v)
}

func (r *run) greet(body map[string]any) {
	v, ok := body["peer_card"]
	if card, isObj := v.(map[string]any); isObj {
		r.peerCard(card)
	} else {
		r.add(RuleGreetCard, "/body/peer_card", "Peer Card object", found(v, ok))
	}
	r.typed(RuleGreetSummary, body, "/body/", greetMembers)
}

// PeerCardArrays are the four Peer Card members that must be string arrays.
var PeerCardArrays = [...]string{"profiles_supported", "capabilities", "artifacts_supported", "trust_modes_supported"}

func (r *run) peerCard(card map[string]any) {
	const base = "/body/peer_card/"
	pid, ok := card["peer_id"]
	if s, isStr := pid.(string); !isStr || !isPeer(s) {
		r.add(RuleCardPeerID, base+"peer_id", "a Peer ID", found(pid, ok))
	} else if from, _ := r.val[fFrom].(string); from != s {
		r.add(RuleCardMatchFrom, base+"peer_id", "equal to from "+strconv.Quote(from), strconv.Quote(s))
	}
	for _, name := range PeerCardArrays {
		if v, ok := card[name]; ok {
			r.stringArray(RuleCardArrays, v, base+name)
		} else {
			r.add(RuleCardArrays, base+name, "array of strings (may be empty)", "absent")
		}
	}
	if r.typed(RuleCardOptional, card, base, cardMembers) {
		r.cardBrief(card, "body", "peer_card")
	}
}

func (r *run) whois(body map[string]any) {
	t, ok := body["type"]
	card, hasCard := body["peer_card"]
	r.typed(RuleWhoisQueryType, body, "/body/", whoisMembers)
	switch t {
	case "request":
		if hasCard {
			r.add(RuleWhoisRequestCard, "/body/peer_card", "absent on a request", describe(card))
		}
		if _, ok := body["query"]; !ok {
			r.add(RuleWhoisQuery, "/body/query", "a query string", "absent")
		}
	case "response":
		if c, isObj := card.(map[string]any); isObj {
			r.peerCard(c)
			r.catalog(body)
		} else {
			r.add(RuleWhoisResponseCard, "/body/peer_card", "Peer Card object", found(card, hasCard))
		}
		if r.val[fReplyTo] == nil {
			r.add(RuleWhoisReplyTo, "/reply_to", "the request envelope id", "absent")
		}
	default:
		r.add(RuleWhoisType, "/body/type", `"request" or "response"`, found(t, ok))
	}
}

func (r *run) say(body map[string]any) {
	v, ok := body["text"]
	if s, isStr := v.(string); !isStr || strings.TrimSpace(s) == "" {
		r.add(RuleSayText, "/body/text", "non-blank string", found(v, ok))
	}
	r.typed(RuleSayOptional, body, "/body/", sayMembers)
}

func (r *run) capability(body map[string]any) {
	v, ok := body["capability"]
	capDoc, isObj := v.(map[string]any)
	if !isObj {
		r.add(RuleCapObject, "/body/capability", "capability object", found(v, ok))
		return
	}
	const base = "/body/capability/"
	digestable := true
	for _, name := range [...]string{"id", "summary", "outcome", "digest"} {
		v, ok := capDoc[name]
		if s, isStr := v.(string); !isStr || strings.TrimSpace(s) == "" {
			r.add(RuleCapRequired, base+name, "non-blank string", found(v, ok))
			digestable = false
		}
	}
	if !r.typed(RuleCapTypes, capDoc, base, capabilityMembers) {
		digestable = false
	} else if v, _ := capDoc["version"].(string); strings.TrimSpace(v) != "" && !IsSemver(v) {
		r.add(RuleCapVersion, base+"version", "a semantic version (MAJOR.MINOR.PATCH)", describe(v))
	}
	if reqs, ok := capDoc["requirements"].([]any); ok && !r.requirements(reqs, base+"requirements/") {
		digestable = false
	}
	r.capabilityDigest(capDoc, digestable)
}

// requirements reports blank and repeated entries of a capability's
// requirements; it says whether there were none. A list that is not all
// strings is CAP-FIELD-TYPES's alone.
func (r *run) requirements(reqs []any, base string) bool {
	for _, e := range reqs {
		if _, isStr := e.(string); !isStr {
			return true
		}
	}
	good := true
	seen := make(map[string]bool, len(reqs))
	for i, e := range reqs {
		s := strings.TrimSpace(e.(string))
		want := ""
		switch {
		case s == "":
			want = "non-blank capability id"
		case seen[s]:
			want = "unique after trimming"
		}
		if want != "" {
			r.add(RuleCapRequirements, base+strconv.Itoa(i), want, describe(e))
			good = false
		}
		seen[s] = true
	}
	return good
}

// capabilityDigest checks capability.digest: its shape, and, when the rest
// of the document can be digested, its value.
func (r *run) capabilityDigest(capDoc map[string]any, digestable bool) {
	d, isStr := capDoc["digest"].(string)
	if !isStr || strings.TrimSpace(d) == "" || r.c.opts.Errata.SkipCapabilityDigest {
		return // CAP-REQUIRED's, or not asked for
	}
	want := ""
	if !isHexDigest(d) {
		want = "sha256: followed by 64 lowercase hex digits"
		d = describe(d)
	} else if digestable {
		// An error means a field rule above already said why.
		if digest, err := CapabilityDigest(capDoc); err == nil && digest != d {
			want = digest
		}
	}
	if want != "" {
		r.addMsg(RuleCapDigest, "/body/capability/digest", want, d, "the canonical digest: docs/protocol.md#capability-digest")
	}
}

func (r *run) receipt(body map[string]any) {
	v, ok := body["for_id"]
	if !nonEmptyString(v) {
		r.add(RuleReceiptForID, "/body/for_id", "non-empty string", found(v, ok))
	}
	st, ok := body["status"]
	status, _ := st.(string)
	need := ReasonRequirement(status)
	if need == "" {
		r.add(RuleReceiptStatus, "/body/status", strings.Join(ReceiptStatuses, "|"), found(st, ok))
	}
	if rc, ok := body["reason_code"]; ok {
		code, isStr := rc.(string)
		switch {
		case !isStr || code == "":
			r.add(RuleReceiptReasonType, "/body/reason_code", "non-empty string", describe(rc))
		case need == "absent":
			r.add(RuleReceiptReasonAbsent, "/body/reason_code", "absent on an accepted receipt", describe(rc))
		case !IsReasonCode(code):
			r.add(RuleReceiptReasonKnown, "/body/reason_code", "one of "+strings.Join(ReasonCodes, ", "), describe(rc))
		}
	} else if need == "required" {
		r.add(RuleReceiptReasonRequired, "/body/reason_code", "a reason code when status is "+status, "absent")
	}
	r.typed(RuleReceiptDetailType, body, "/body/", receiptMembers)
}

func (r *run) trace(body map[string]any) {
	v, ok := body["state"]
	if s, _ := v.(string); !IsWorkState(s) {
		r.add(RuleTraceState, "/body/state", strings.Join(TraceStates, "|"), found(v, ok))
	}
	r.typed(RuleTraceOptional, body, "/body/", traceMembers)
}
