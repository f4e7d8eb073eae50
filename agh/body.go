package agh

import (
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/rules"
)

// The bodies, one check per kind, in the Message Kinds page's order.

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

func (r *run) greet(body map[string]any) {
	v, ok := body["peer_card"]
	card, isObj := v.(map[string]any)
	if !isObj {
		found := "absent"
		if ok {
			found = describe(v)
		}
		r.add(RuleGreetCard, "/body/peer_card", "Peer Card object", found)
	} else {
		r.peerCard(card)
	}
	if v, ok := body["summary"]; ok {
		if _, isStr := v.(string); !isStr {
			r.add(RuleGreetSummary, "/body/summary", "string", describe(v))
		}
	}
}

// PeerCardArrays are the four Peer Card members that must be string arrays.
var PeerCardArrays = [...]string{"profiles_supported", "capabilities", "artifacts_supported", "trust_modes_supported"}

func (r *run) peerCard(card map[string]any) {
	pid, ok := card["peer_id"]
	s, isStr := pid.(string)
	switch {
	case !ok:
		r.add(RuleCardPeerID, "/body/peer_card/peer_id", "a Peer ID", "absent")
	case !isStr || !isPeer(s):
		r.add(RuleCardPeerID, "/body/peer_card/peer_id", "a Peer ID", describe(pid))
	default:
		if from, _ := r.val[fFrom].(string); from != s {
			r.add(RuleCardMatchFrom, "/body/peer_card/peer_id", "equal to from "+strconv.Quote(from), strconv.Quote(s))
		}
	}
	for _, name := range PeerCardArrays {
		v, ok := card[name]
		if !ok {
			r.add(RuleCardArrays, "/body/peer_card/"+name, "array of strings (may be empty)", "absent")
			continue
		}
		r.stringArray(RuleCardArrays, v, "/body/peer_card/"+name)
	}
	if v, ok := card["display_name"]; ok {
		if _, isStr := v.(string); !isStr {
			r.add(RuleCardOptional, "/body/peer_card/display_name", "string", describe(v))
		}
	}
	if v, ok := card["ext"]; ok {
		if _, isObj := v.(map[string]any); !isObj {
			r.add(RuleCardOptional, "/body/peer_card/ext", "object", describe(v))
		}
	}
}

// stringArray reports v unless it is an array of strings.
func (r *run) stringArray(rule *rules.Rule, v any, ptr string) bool {
	arr, ok := v.([]any)
	if !ok {
		r.add(rule, ptr, "array of strings", describe(v))
		return false
	}
	good := true
	for i, e := range arr {
		if _, isStr := e.(string); !isStr {
			r.add(rule, ptr+"/"+strconv.Itoa(i), "string", describe(e))
			good = false
		}
	}
	return good
}

func (r *run) whois(body map[string]any) {
	t, ok := body["type"]
	card, hasCard := body["peer_card"]
	if q, ok := body["query"]; ok {
		if _, isStr := q.(string); !isStr {
			r.add(RuleWhoisQueryType, "/body/query", "string", describe(q))
		}
	}
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
		} else {
			found := "absent"
			if hasCard {
				found = describe(card)
			}
			r.add(RuleWhoisResponseCard, "/body/peer_card", "Peer Card object", found)
		}
		if r.val[fReplyTo] == nil {
			r.add(RuleWhoisReplyTo, "/reply_to", "the request envelope id", "absent")
		}
	default:
		found := "absent"
		if ok {
			found = describe(t)
		}
		r.add(RuleWhoisType, "/body/type", `"request" or "response"`, found)
	}
}

func (r *run) say(body map[string]any) {
	v, ok := body["text"]
	if s, isStr := v.(string); !isStr || strings.TrimSpace(s) == "" {
		found := "absent"
		if ok {
			found = describe(v)
		}
		r.add(RuleSayText, "/body/text", "non-blank string", found)
	}
	if v, ok := body["intent"]; ok {
		if _, isStr := v.(string); !isStr {
			r.add(RuleSayOptional, "/body/intent", "string", describe(v))
		}
	}
	if v, ok := body["artifacts"]; ok {
		if _, isArr := v.([]any); !isArr {
			r.add(RuleSayOptional, "/body/artifacts", "array", describe(v))
		}
	}
}

var capabilityLists = [...]string{"context_needed", "artifacts_expected", "execution_outline", "constraints", "examples", "requirements"}

func (r *run) capability(body map[string]any) {
	v, ok := body["capability"]
	capDoc, isObj := v.(map[string]any)
	if !isObj {
		found := "absent"
		if ok {
			found = describe(v)
		}
		r.add(RuleCapObject, "/body/capability", "capability object", found)
		return
	}
	const base = "/body/capability/"
	digestable := true
	for _, name := range [...]string{"id", "summary", "outcome", "digest"} {
		v, ok := capDoc[name]
		if s, isStr := v.(string); !isStr || strings.TrimSpace(s) == "" {
			found := "absent"
			if ok {
				found = describe(v)
			}
			r.add(RuleCapRequired, base+name, "non-blank string", found)
			digestable = false
		}
	}
	if v, ok := capDoc["version"]; ok {
		if _, isStr := v.(string); !isStr {
			r.add(RuleCapTypes, base+"version", "string", describe(v))
			digestable = false
		}
	}
	for _, name := range capabilityLists {
		v, ok := capDoc[name]
		if !ok {
			continue
		}
		if !r.stringArray(RuleCapTypes, v, base+name) {
			digestable = false
			continue
		}
		if name == "requirements" {
			seen := map[string]bool{}
			for i, e := range v.([]any) {
				s := strings.TrimSpace(e.(string))
				switch {
				case s == "":
					r.add(RuleCapRequirements, base+"requirements/"+strconv.Itoa(i), "non-blank capability id", describe(e))
					digestable = false
				case seen[s]:
					r.add(RuleCapRequirements, base+"requirements/"+strconv.Itoa(i), "unique after trimming", describe(e))
					digestable = false
				}
				seen[s] = true
			}
		}
	}
	d, isStr := capDoc["digest"].(string)
	if !isStr || strings.TrimSpace(d) == "" {
		return
	}
	if r.c.opts.Errata.SkipCapabilityDigest {
		return
	}
	if !isHexDigest(d) {
		r.add(RuleCapDigest, base+"digest", "sha256: followed by 64 lowercase hex digits", describe(d))
		return
	}
	if !digestable {
		return
	}
	want, err := CapabilityDigest(capDoc)
	if err != nil {
		return // the field rules above already say why
	}
	if want != d {
		r.add(RuleCapDigest, base+"digest", want, d)
	}
}

func (r *run) receipt(body map[string]any) {
	v, ok := body["for_id"]
	if !nonEmptyString(v) {
		found := "absent"
		if ok {
			found = describe(v)
		}
		r.add(RuleReceiptForID, "/body/for_id", "non-empty string", found)
	}
	st, ok := body["status"]
	status, _ := st.(string)
	need := ReasonRequirement(status)
	if need == "" {
		found := "absent"
		if ok {
			found = describe(st)
		}
		r.add(RuleReceiptStatus, "/body/status", strings.Join(ReceiptStatuses, "|"), found)
	}
	rc, hasReason := body["reason_code"]
	if hasReason {
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
	if v, ok := body["detail"]; ok {
		if _, isStr := v.(string); !isStr {
			r.add(RuleReceiptReasonType, "/body/detail", "string", describe(v))
		}
	}
}

func (r *run) trace(body map[string]any) {
	v, ok := body["state"]
	if s, _ := v.(string); !IsWorkState(s) {
		found := "absent"
		if ok {
			found = describe(v)
		}
		r.add(RuleTraceState, "/body/state", strings.Join(TraceStates, "|"), found)
	}
	if v, ok := body["message"]; ok {
		if _, isStr := v.(string); !isStr {
			r.add(RuleTraceOptional, "/body/message", "string", describe(v))
		}
	}
	if v, ok := body["result"]; ok {
		if _, isObj := v.(map[string]any); !isObj {
			r.add(RuleTraceOptional, "/body/result", "object", describe(v))
		}
	}
	if v, ok := body["artifact_refs"]; ok {
		if _, isArr := v.([]any); !isArr {
			r.add(RuleTraceOptional, "/body/artifact_refs", "array", describe(v))
		}
	}
}
