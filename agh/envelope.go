package agh

import (
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/rules"
)

// The envelope members: one check per member of the field table, in the
// schema's order (stage 2 of the validation order, plus the container-id
// grammars of stage 4).

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
