package agh

import (
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// The envelope members: what each top-level member must hold (stage 2 of
// the validation order, plus the container-id grammars of stage 4). Which
// members a kind needs is the conversation surface's business (surface.go).

// grammar is what a string member must match, and how a finding names it.
type grammar struct {
	expected string
	valid    func(string) bool
}

var (
	nonEmptyGrammar     = grammar{"non-empty string", func(s string) bool { return s != "" }}
	subjectTokenGrammar = grammar{"no '.', '*', '>', whitespace or control characters", validSubjectToken[string]}
	channelGrammar      = grammar{"[a-z0-9][a-z0-9_-]{0,63}", ValidChannel}
	fromGrammar         = grammar{"Peer ID [a-z0-9][a-z0-9._-]{0,127} or nickname@fingerprint", isPeer}
	toGrammar           = grammar{"null or a Peer ID", isPeer}
	directIDGrammar     = grammar{patDirectID, ValidDirectID}
)

// idGrammars picks the thread_id and work_id grammars the errata select
// (errata 6 and 5), once per checker.
func idGrammars(e Errata) (threadID, workID grammar) {
	threadID, workID = nonEmptyGrammar, grammar{patWorkID, ValidWorkID}
	if e.ReferenceThreadID {
		threadID = grammar{patThreadReference, ValidReferenceThreadID}
	}
	if e.ReferenceWorkID {
		workID = grammar{"no '/', '\\' or control characters, 1..128 chars", ValidReferenceWorkID}
	}
	return threadID, workID
}

// match reports member i under rule unless it is a string g accepts (or,
// when nullable, null); it says whether the member is there and matched.
func (r *run) match(i field, rule *rules.Rule, g grammar, nullable bool) bool {
	v, ok := r.val[i], r.has[i]
	if !ok || (nullable && v == nil) {
		return false
	}
	if s, isStr := v.(string); !isStr || !g.valid(s) {
		r.add(rule, i.ptr(), g.expected, describe(v))
		return false
	}
	return true
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
		r.wrongType(v)
	}
	r.match(fID, RuleID, nonEmptyGrammar, false)
	if r.match(fWorkspaceID, RuleWorkspaceID, nonEmptyGrammar, false) {
		r.match(fWorkspaceID, RuleWorkspaceSubject, subjectTokenGrammar, false)
	}
	if v, ok := r.val[fKind], r.has[fKind]; ok {
		s, _ := v.(string)
		switch {
		case s == "direct":
			r.add(RuleKindDirect, "/kind", `a kind; use surface "direct" for direct rooms`, `"direct"`)
		case !IsKnownKind(s):
			r.add(RuleKind, "/kind", "greet|whois|say|capability|receipt|trace", describe(v))
			r.wrongType(v)
		}
	}
	r.match(fChannel, RuleChannel, channelGrammar, false)
	r.match(fFrom, RuleFrom, fromGrammar, false)
	r.match(fTo, RuleTo, toGrammar, true)
	if v, ok := r.val[fTS], r.has[fTS]; ok {
		r.seconds(v, RuleTS, "/ts")
	}
	// expires_at and the correlation ids are optional, and the schema does
	// not let them be null.
	for _, i := range [...]field{fExpiresAt, fReplyTo, fTraceID, fCausationID} {
		v, ok := r.val[i], r.has[i]
		switch {
		case !ok:
		case v == nil:
			if !r.c.opts.Errata.NullAsAbsent {
				want := "absent or a non-empty string"
				if i == fExpiresAt {
					want = "absent or integer >= 0"
				}
				r.add(RuleNullOptional, i.ptr(), want, "null")
			}
		case i == fExpiresAt:
			r.seconds(v, RuleExpiresAt, i.ptr())
		case !nonEmptyString(v):
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
	r.match(fThreadID, RuleThreadID, r.c.threadID, true)
	r.match(fDirectID, RuleDirectID, directIDGrammar, true)
	r.match(fWorkID, RuleWorkID, r.c.workID, true)
}

// IsNamespacedKey reports whether an extension key carries a prefix
// ("acme.priority"): some text, a dot, some text.
func IsNamespacedKey(k string) bool {
	i := strings.IndexByte(k, '.')
	return i > 0 && i < len(k)-1
}

// seconds checks a time member: the schema's integer >= 0 (rule), and the
// plain int64 literal typed decoders take (ENV-TS-LITERAL, a SHOULD).
func (r *run) seconds(v any, rule *rules.Rule, ptr string) {
	switch _, integral, plain := unixSeconds(v); {
	case !integral:
		r.add(rule, ptr, "integer >= 0", describe(v))
	case !plain && r.c.opts.Errata.PlainTimes:
		r.add(rule, ptr, "a plain integer literal within int64 (--errata plain-times)", describe(v))
	case !plain:
		r.add(RuleTSLiteral, ptr, "a plain integer literal within int64", describe(v))
	}
}

// wrongType marks the finding just added as malformed when v is no string:
// unsupported_profile and unsupported_kind answer a profile or kind the
// receiver does not support (Message Kinds §Reason codes), and a value of
// the wrong JSON type names none; it fails validation (malformed).
func (r *run) wrongType(v any) {
	if _, ok := v.(string); !ok {
		r.fs[len(r.fs)-1].Reason = ReasonMalformed
	}
}
