package agh

import (
	"encoding/json"
	"github.com/aghcheck/aghcheck/jsonx"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/trust"
)

// Kinds are the six message kinds of v0, in the pages' order.
var Kinds = []string{KindGreet, KindWhois, KindSay, KindCapability, KindReceipt, KindTrace}

const (
	KindGreet      = "greet"
	KindWhois      = "whois"
	KindSay        = "say"
	KindCapability = "capability"
	KindReceipt    = "receipt"
	KindTrace      = "trace"
)

// IsDiscoveryKind reports whether kind is greet or whois (no conversation fields).
func IsDiscoveryKind(kind string) bool { return kind == KindGreet || kind == KindWhois }

// IsConversationKind reports whether kind must carry a surface and container.
func IsConversationKind(kind string) bool {
	return kind == KindSay || kind == KindCapability || kind == KindReceipt || kind == KindTrace
}

// IsKnownKind reports whether kind is one of the six v0 kinds.
func IsKnownKind(kind string) bool { return IsDiscoveryKind(kind) || IsConversationKind(kind) }

// run is the state of one check.
type run struct {
	c       *Checker
	env     map[string]any
	fs      []rules.Finding
	val     [nFields]any
	has     [nFields]bool
	unknown []string // top-level members outside the schema, sorted
}

func (r *run) load() {
	for k, v := range r.env {
		if i, ok := lookupField(k); ok {
			r.val[i], r.has[i] = v, true
		} else {
			r.unknown = append(r.unknown, k)
		}
	}
	sort.Strings(r.unknown)
}

func (r *run) add(rule *rules.Rule, ptr, expected, found string) {
	r.fs = append(r.fs, rules.Finding{Rule: rule, Pointer: ptr, Expected: expected, Found: found})
}

func (r *run) addMsg(rule *rules.Rule, ptr, expected, found, msg string) {
	r.fs = append(r.fs, rules.Finding{Rule: rule, Pointer: ptr, Expected: expected, Found: found, Message: msg})
}

func sizeFinding(n int) rules.Finding {
	return rules.Finding{Rule: rules.InputTooLarge, Expected: "at most 1048576 bytes", Found: strconv.Itoa(n) + " bytes"}
}

func (c *Checker) check(raw []byte, v any) Result {
	r := run{c: c}
	if len(raw) > MaxEnvelopeSize {
		r.fs = append(r.fs, sizeFinding(len(raw)))
	}
	env, ok := v.(map[string]any)
	if !ok {
		r.add(rules.InputNotObject, "", "object", jsonx.TypeName(v))
		return Result{Findings: r.fs}
	}
	r.env = env
	r.load()
	r.envelope()
	kind, _ := r.val[fKind].(string)
	if IsKnownKind(kind) {
		r.surface(kind)
		if body, ok := r.val[fBody].(map[string]any); ok {
			r.body(kind, body)
		}
	}
	// The native rules implement every schema constraint (TestSchemaSubsumed
	// and FuzzCheck hold them to it), so a schema run on an envelope they
	// found clean cannot add anything; it runs wherever they found an error
	// to catch what they might have missed, and everywhere under FullSchema.
	if native := len(r.fs); c.opts.FullSchema || needSchema(r.fs) {
		r.fs = append(r.fs, schemaFindings(c.schemas.envelope, env, nil, r.fs[:native])...)
		if body, ok := r.val[fBody].(map[string]any); ok && IsKnownKind(kind) {
			r.fs = append(r.fs, schemaFindings(c.schemas.body[kind], body, bodyPrefix, r.fs[:native])...)
		}
	}
	if c.opts.Now != 0 {
		r.freshness()
	}
	if c.opts.Errata.RejectSecretKeys {
		r.secrets()
	}
	state := r.trust()
	if IsKnownKind(kind) && !c.opts.Errata.SkipDirectIDDerivation {
		r.directRoom()
	}
	return Result{Envelope: env, Findings: r.fs, Trust: state}
}

var bodyPrefix = []string{"body"}

// needSchema reports whether the native findings include an error the schema
// could also have an opinion on. The digest, the subject-token check on
// workspace_id and the size limit have no schema counterpart, so an envelope
// broken only there is as clean, for the schema, as a valid one.
func needSchema(fs []rules.Finding) bool {
	for _, f := range fs {
		if f.Rule.Severity == rules.Error && f.Rule != RuleCapDigest && f.Rule != RuleWorkspaceSubject && f.Rule != rules.InputTooLarge {
			return true
		}
	}
	return false
}

// isPeer reports whether s is a Peer ID, or a verified-handle the trust
// profile accepts in its place. Only strings outside the v0 grammar are shown
// to the trust package, so plain peers never pay for it.
func isPeer(s string) bool {
	return ValidPeerID(s) || (strings.IndexByte(s, '@') > 0 && trust.IsHandle(s))
}

func (r *run) envelope() {
	for i, f := range fields {
		if f.required && !r.has[i] {
			r.add(RuleRequired, field(i).ptr(), "member "+f.name, "absent")
		}
	}
	for _, name := range r.unknown {
		if name == "interaction_id" {
			r.add(RuleLegacyInteraction, "/interaction_id", "absent (use work_id)", "present")
		} else if !r.c.opts.Errata.AllowUnknownFields {
			r.add(RuleUnknownField, rules.Pointer(name), "no member "+strconv.Quote(name), "present")
		}
	}
	if v, ok := r.val[fProtocol], r.has[fProtocol]; ok && v != Protocol {
		r.add(RuleProtocol, "/protocol", strconv.Quote(Protocol), describe(v))
	}
	if v, ok := r.val[fID], r.has[fID]; ok && !nonEmptyString(v) {
		r.add(RuleID, "/id", "non-empty string", describe(v))
	}
	if v, ok := r.val[fWorkspaceID], r.has[fWorkspaceID]; ok {
		if !nonEmptyString(v) {
			r.add(RuleWorkspaceID, "/workspace_id", "non-empty string", describe(v))
		} else if !validSubjectToken(v.(string)) {
			r.add(RuleWorkspaceSubject, "/workspace_id", "no '.', '*', '>', whitespace or control characters", describe(v))
		}
	}
	if v, ok := r.val[fKind], r.has[fKind]; ok {
		s, _ := v.(string)
		switch {
		case s == "direct":
			r.add(RuleKindDirect, "/kind", `a kind; use surface "direct" for direct rooms`, `"direct"`)
		case !IsKnownKind(s):
			r.add(RuleKind, "/kind", "greet|whois|say|capability|receipt|trace", describe(v))
		}
	}
	if v, ok := r.val[fChannel], r.has[fChannel]; ok {
		if s, isStr := v.(string); !isStr || !ValidChannel(s) {
			r.add(RuleChannel, "/channel", "[a-z0-9][a-z0-9_-]{0,63}", describe(v))
		}
	}
	if v, ok := r.val[fFrom], r.has[fFrom]; ok {
		if s, isStr := v.(string); !isStr || !isPeer(s) {
			r.add(RuleFrom, "/from", "Peer ID [a-z0-9][a-z0-9._-]{0,127} or nickname@fingerprint", describe(v))
		}
	}
	if v, ok := r.val[fTo], r.has[fTo]; ok && v != nil {
		if s, isStr := v.(string); !isStr || !isPeer(s) {
			r.add(RuleTo, "/to", "null or a Peer ID", describe(v))
		}
	}
	if v, ok := r.val[fTS], r.has[fTS]; ok {
		if _, good := unixSeconds(v); !good {
			r.add(RuleTS, "/ts", "integer >= 0", describe(v))
		}
	}
	nullOK := r.c.opts.Errata.NullAsAbsent
	if v, ok := r.val[fExpiresAt], r.has[fExpiresAt]; ok {
		if v == nil {
			if !nullOK {
				r.add(RuleNullOptional, "/expires_at", "absent or integer >= 0", "null")
			}
		} else if _, good := unixSeconds(v); !good {
			r.add(RuleExpiresAt, "/expires_at", "integer >= 0", describe(v))
		}
	}
	for _, i := range [...]field{fReplyTo, fTraceID, fCausationID} {
		v, ok := r.val[i], r.has[i]
		if !ok {
			continue
		}
		if v == nil {
			if !nullOK {
				r.add(RuleNullOptional, i.ptr(), "absent or a non-empty string", "null")
			}
		} else if !nonEmptyString(v) {
			r.add(RuleCorrelation, i.ptr(), "non-empty string", describe(v))
		}
	}
	if v, ok := r.val[fBody], r.has[fBody]; ok {
		if _, isObj := v.(map[string]any); !isObj {
			r.add(RuleBody, "/body", "object", describe(v))
		}
	}
	if v, ok := r.val[fProof], r.has[fProof]; ok && v != nil {
		if _, isObj := v.(map[string]any); !isObj {
			r.add(RuleProof, "/proof", "object or null", describe(v))
		}
	}
	if v, ok := r.val[fExt], r.has[fExt]; ok {
		if ext, isObj := v.(map[string]any); !isObj {
			r.add(RuleExt, "/ext", "object", describe(v))
		} else {
			for k := range ext {
				if !IsNamespacedKey(k) {
					r.add(RuleExtNamespace, rules.Pointer("ext", k), "a prefixed key such as acme."+k, strconv.Quote(k))
				}
			}
		}
	}
	if v, ok := r.val[fSurface], r.has[fSurface]; ok && v != nil && v != "thread" && v != "direct" {
		r.add(RuleSurfaceEnum, "/surface", `"thread" or "direct"`, describe(v))
	}
	if v, ok := r.val[fThreadID], r.has[fThreadID]; ok && v != nil {
		s, isStr := v.(string)
		if r.c.opts.Errata.ReferenceThreadID {
			if !isStr || !ValidReferenceThreadID(s) {
				r.add(RuleThreadID, "/thread_id", patThreadReference, describe(v))
			}
		} else if !isStr || s == "" {
			r.add(RuleThreadID, "/thread_id", "non-empty string", describe(v))
		}
	}
	if v, ok := r.val[fDirectID], r.has[fDirectID]; ok && v != nil {
		if s, isStr := v.(string); !isStr || !ValidDirectID(s) {
			r.add(RuleDirectID, "/direct_id", patDirectID, describe(v))
		}
	}
	if v, ok := r.val[fWorkID], r.has[fWorkID]; ok && v != nil {
		s, isStr := v.(string)
		if r.c.opts.Errata.ReferenceWorkID {
			if !isStr || !ValidReferenceWorkID(s) {
				r.add(RuleWorkID, "/work_id", "no '/', '\\' or control characters, 1..128 chars", describe(v))
			}
		} else if !isStr || !ValidWorkID(s) {
			r.add(RuleWorkID, "/work_id", patWorkID, describe(v))
		}
	}
}

// IsNamespacedKey reports whether an extension key carries a prefix
// ("acme.priority"): some text, a dot, some text.
func IsNamespacedKey(k string) bool {
	i := strings.IndexByte(k, '.')
	return i > 0 && i < len(k)-1
}

// present reports whether a conversation field is set: null means absent
// for the fields the schema types "string or null".
func (r *run) present(i field) bool { return r.val[i] != nil }

func (r *run) surface(kind string) {
	if IsDiscoveryKind(kind) {
		for _, i := range [...]field{fSurface, fThreadID, fDirectID} {
			if r.present(i) {
				r.add(RuleDiscoverySurface, i.ptr(), "absent on "+kind, describe(r.val[i]))
			}
		}
		if r.present(fWorkID) {
			r.add(RuleDiscoveryWork, "/work_id", "absent on "+kind, describe(r.val[fWorkID]))
		}
		if kind == KindGreet && r.present(fTo) {
			r.add(RuleGreetTo, "/to", "null or absent", describe(r.val[fTo]))
		}
		return
	}
	thread, direct := r.present(fThreadID), r.present(fDirectID)
	switch r.val[fSurface] {
	case nil:
		r.add(RuleSurfaceRequired, "/surface", `"thread" or "direct" on `+kind, "absent")
		if thread && direct {
			r.add(RuleContainerExclusive, "/direct_id", "only one of thread_id and direct_id", "both")
		}
	case "thread":
		if !thread {
			r.add(RuleThreadRequired, "/thread_id", `thread_id with surface "thread"`, "absent")
		}
		if direct {
			if thread {
				r.add(RuleContainerExclusive, "/direct_id", "only one of thread_id and direct_id", "both")
			} else {
				r.add(RuleContainerSurface, "/direct_id", `absent with surface "thread"`, describe(r.val[fDirectID]))
			}
		}
	case "direct":
		if !direct {
			r.add(RuleDirectRequired, "/direct_id", `direct_id with surface "direct"`, "absent")
		}
		if thread {
			if direct {
				r.add(RuleContainerExclusive, "/thread_id", "only one of thread_id and direct_id", "both")
			} else {
				r.add(RuleContainerSurface, "/thread_id", `absent with surface "direct"`, describe(r.val[fThreadID]))
			}
		}
	default: // already ENV-SURFACE-ENUM
		if thread && direct {
			r.add(RuleContainerExclusive, "/direct_id", "only one of thread_id and direct_id", "both")
		}
	}
	needWork := kind == KindReceipt || kind == KindTrace ||
		(kind == KindCapability && r.c.opts.Errata.CapabilityRequiresWorkID)
	if needWork && !r.present(fWorkID) {
		r.add(RuleWorkRequired, "/work_id", "work_id on "+kind, "absent")
	}
	if !r.present(fTo) {
		switch kind {
		case KindReceipt:
			r.add(RuleReceiptTo, "/to", "the peer that needs the receipt", "absent")
		case KindTrace:
			r.add(RuleTraceTo, "/to", "the work initiator", "absent")
		}
	}
}

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

// ReceiptStatuses are the statuses of a receipt body.
var ReceiptStatuses = []string{"accepted", "rejected", "duplicate", "expired", "unsupported", "canceled"}

// ReasonCodes is the full list of registered receipt reason codes.
var ReasonCodes = []string{
	"malformed", "expired", "duplicate", "unsupported_kind", "unsupported_profile",
	"verification_failed", "not_target", "not_found", "busy", "internal",
	"work_closed", "work_container_mismatch",
}

// IsReasonCode reports whether code is a registered reason code.
func IsReasonCode(code string) bool { return contains(ReasonCodes, code) }

// ReasonRequirement says whether a receipt status needs a reason_code:
// "absent" (accepted), "required" (rejected, duplicate, expired,
// unsupported), "optional" (canceled), or "" for an unknown status.
func ReasonRequirement(status string) string {
	switch status {
	case "accepted":
		return "absent"
	case "rejected", "duplicate", "expired", "unsupported":
		return "required"
	case "canceled":
		return "optional"
	}
	return ""
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

// TraceStates are the work states a trace reports.
var TraceStates = []string{"submitted", "working", "needs_input", "completed", "failed", "canceled"}

// IsTerminal reports whether a work state is final (completed, failed, canceled).
func IsTerminal(state string) bool {
	return state == "completed" || state == "failed" || state == "canceled"
}

// IsWorkState reports whether state is one of the six work states.
func IsWorkState(state string) bool { return contains(TraceStates, state) }

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

func (r *run) freshness() {
	now, age := r.c.opts.Now, r.c.opts.MaxReplayAge
	ts, tsOK := unixSeconds(r.val[fTS])
	if exp, ok := unixSeconds(r.val[fExpiresAt]); ok {
		if exp <= now {
			r.addMsg(RuleExpired, "/expires_at", "later than now ("+strconv.FormatInt(now, 10)+")", strconv.FormatInt(exp, 10),
				"expired "+strconv.FormatInt(now-exp, 10)+" s ago")
		}
	} else if tsOK && now-ts > age {
		r.addMsg(RuleReplayAge, "/ts", "at most "+strconv.FormatInt(age, 10)+" s old", strconv.FormatInt(now-ts, 10)+" s old",
			"no expires_at and older than the replay age")
	}
	if r.c.opts.Errata.RejectFutureTS && tsOK && ts-now > age {
		r.add(RuleTSFuture, "/ts", "at most "+strconv.FormatInt(age, 10)+" s ahead of now", strconv.FormatInt(ts-now, 10)+" s ahead")
	}
}

// trust runs the trust profile when the envelope claims it (a proof, or a
// handle-shaped from) and applies the require-verified policy.
func (r *run) trust() string {
	proof, hasProof := r.val[fProof], r.has[fProof]
	from, _ := r.val[fFrom].(string)
	state := trust.Unverified
	if _, isObj := proof.(map[string]any); hasProof && proof != nil && !isObj {
		// ENV-PROOF-TYPE already refuses it; the algorithm's first step
		// would only say the same again.
		state = trust.Rejected
	} else if (hasProof && proof != nil) || (!ValidPeerID(from) && strings.IndexByte(from, '@') >= 0 && trust.IsHandle(from)) {
		var fs []rules.Finding
		state, fs = trust.Evaluate(r.env)
		r.fs = append(r.fs, fs...)
	}
	if state == trust.Unverified && r.c.opts.RequireVerified {
		r.add(RuleRequireVerified, "/proof", "a verified proof", string(state))
	}
	return string(state)
}

func (r *run) directRoom() {
	if r.val[fSurface] != "direct" {
		return
	}
	did, _ := r.val[fDirectID].(string)
	to, _ := r.val[fTo].(string)
	from, _ := r.val[fFrom].(string)
	ws, _ := r.val[fWorkspaceID].(string)
	ch, _ := r.val[fChannel].(string)
	if !ValidDirectID(did) || to == "" || from == "" || ws == "" || ch == "" {
		return
	}
	want, err := DirectID(ws, ch, from, to)
	if err != nil {
		r.addMsg(RuleDirectDerivation, "/to", "a peer other than from", strconv.Quote(to), err.Error())
		return
	}
	if want != did {
		r.add(RuleDirectDerivation, "/direct_id", want, did)
	}
}

// RejectSecretKeys' key list: the reference runtime's names of raw secret
// material, compared case-insensitively without '_', '-' and '.'.
var secretKeys = map[string]bool{
	"apikey": true, "accesstoken": true, "refreshtoken": true, "mcpauthtoken": true,
	"oauthcode": true, "authorizationcode": true, "codeverifier": true, "pkceverifier": true,
	"secretbinding": true, "clientsecret": true, "authorization": true, "password": true,
	"secret": true, "token": true, "claimtoken": true,
}

// IsSecretKey reports whether a member name names raw secret material.
func IsSecretKey(k string) bool {
	n := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(strings.TrimSpace(k)))
	return secretKeys[n]
}

func (r *run) secrets() {
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				p := ptr + rules.Pointer(k)
				if IsSecretKey(k) && !emptyValue(e) {
					r.add(RuleSecret, p, "no raw secret material", "member "+strconv.Quote(k))
					continue
				}
				walk(e, p)
			}
		case []any:
			for i, e := range t {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	for _, name := range [...]string{"body", "proof", "ext"} {
		walk(r.env[name], "/"+name)
	}
}

func emptyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(t) == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// unixSeconds reads a JSON integer literal >= 0 that fits in int64. A
// fraction or exponent ("1.0", "1e9") is refused even when integral: the
// typed decoders of common peers reject it.
func unixSeconds(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil && i >= 0
	case int64:
		return n, n >= 0
	case int:
		return int64(n), n >= 0
	case float64:
		if n >= 0 && n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

func nonEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// describe renders a decoded value briefly for a finding's "found".
func describe(v any) string {
	switch t := v.(type) {
	case string:
		if len(t) > 80 {
			cut := 77
			for cut > 0 && !utf8.RuneStart(t[cut]) {
				cut--
			}
			t = t[:cut] + "..."
		}
		return strconv.Quote(t)
	case json.Number:
		s := string(t)
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return s
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return "null"
	}
	return jsonx.TypeName(v)
}
