package agh

import (
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// Capability discovery (the Capability Discovery page): the brief
// projection a Peer Card carries in its ext, and the rich catalog a whois
// response carries at envelope ext when its request asked for it. Where
// the catalog may come at all is a live requirement (DISC-CAPABILITY-CATALOG:
// it depends on the request); what it holds when it comes is judged here,
// on the response alone.

// The extension keys of capability discovery.
const (
	ExtCapabilitiesBrief = "agh.capabilities_brief"
	ExtCapabilityCatalog = "agh.capability_catalog"
)

// cardBrief checks a card's brief projection against its capabilities.
func (r *run) cardBrief(card map[string]any, base ...string) {
	ext, _ := card["ext"].(map[string]any)
	v, ok := ext[ExtCapabilitiesBrief]
	if !ok {
		return
	}
	ptr := rules.Pointer(append(base, "ext", ExtCapabilitiesBrief)...)
	caps, isCaps := card["capabilities"].([]any)
	if !isCaps {
		return // CARD-ARRAYS's
	}
	list, isArr := v.([]any)
	switch {
	case len(caps) == 0:
		r.add(RuleCardBrief, ptr, "absent: a card without capabilities has no catalog to project", describe(v))
		return
	case !isArr:
		r.add(RuleCardBrief, ptr, "an array of {id, summary} objects", describe(v))
		return
	case len(list) != len(caps):
		r.add(RuleCardBrief, ptr, strconv.Itoa(len(caps))+" entries, one per capability", strconv.Itoa(len(list))+" entries")
		return
	}
	for i, e := range list {
		obj, _ := e.(map[string]any)
		id, idOK := obj["id"].(string)
		_, sumOK := obj["summary"].(string)
		at := ptr + "/" + strconv.Itoa(i)
		switch {
		case !idOK || !sumOK:
			r.add(RuleCardBrief, at, "an object with id and summary strings", describe(e))
		case id != caps[i]:
			r.add(RuleCardBrief, at+"/id", "the capability at the same place in capabilities, "+describe(caps[i]), strconv.Quote(id))
		}
	}
}

// catalog checks the rich catalog a whois response carries: each entry a
// record of the catalog its own card projects.
func (r *run) catalog(body map[string]any) {
	ext, _ := r.val[fExt].(map[string]any)
	cat, _ := ext[ExtCapabilityCatalog].(map[string]any)
	entries, _ := cat["capabilities"].([]any) // not an array: DISC-CAPABILITY-CATALOG's
	if len(entries) == 0 {
		return
	}
	card, hasCard := body["peer_card"].(map[string]any) // none: WHOIS-RESPONSE-CARD's
	if hasCard {
		cardExt, _ := card["ext"].(map[string]any)
		if _, brief := cardExt[ExtCapabilitiesBrief]; !brief {
			r.add(RuleCatalogInCard, rules.Pointer("body", "peer_card", "ext", ExtCapabilitiesBrief), "the brief projection of the catalog", "absent")
		}
	}
	caps, _ := card["capabilities"].([]any)
	next := 0
	for i, e := range entries {
		base := rules.Pointer("ext", ExtCapabilityCatalog, "capabilities", strconv.Itoa(i))
		obj, isObj := e.(map[string]any)
		if !isObj {
			r.add(RuleCatalogEntry, base, "a capability record (object)", describe(e))
			continue
		}
		r.catalogEntry(obj, base)
		id, _ := obj["id"].(string)
		if !hasCard || id == "" {
			continue
		}
		j := -1
		for k := next; k < len(caps); k++ {
			if caps[k] == id {
				j = k
				break
			}
		}
		if j < 0 {
			r.add(RuleCatalogInCard, base+"/id", "one of the card's capabilities, in the card's order", strconv.Quote(id))
			continue
		}
		next = j + 1
	}
}

// catalogEntry checks one catalog record: its required members, its
// optional ones typed and not empty, and its digest.
func (r *run) catalogEntry(obj map[string]any, base string) {
	good := true
	for _, name := range [...]string{"id", "summary", "outcome"} {
		v, ok := obj[name]
		if s, isStr := v.(string); !isStr || strings.TrimSpace(s) == "" {
			r.add(RuleCatalogEntry, base+"/"+name, "non-blank string", found(v, ok))
			good = false
		}
	}
	good = r.typed(RuleCatalogEntry, obj, base+"/", capabilityMembers) && good
	for _, name := range append([]string{"digest"}, capabilityListNames...) {
		v, ok := obj[name]
		if !ok {
			continue
		}
		if s, isStr := v.(string); isStr && s == "" || isEmptyArray(v) {
			r.add(RuleCatalogEntry, base+"/"+name, "omitted when empty", describe(v))
		}
	}
	if v, ok := obj["version"].(string); ok && v == "" {
		r.add(RuleCatalogEntry, base+"/version", "omitted when empty", `""`)
	}
	d, isStr := obj["digest"].(string)
	if !isStr || d == "" || r.c.opts.Errata.SkipCapabilityDigest {
		return
	}
	if !isHexDigest(d) {
		r.add(RuleCatalogDigest, base+"/digest", "sha256: followed by 64 lowercase hex digits", describe(d))
		return
	}
	if !good {
		return
	}
	want, err := CapabilityDigest(obj)
	switch {
	case err != nil:
		r.add(RuleCatalogEntry, base, "a record the canonical digest can be computed of", err.Error())
	case want != d:
		r.addMsg(RuleCatalogDigest, base+"/digest", want, d, "the canonical digest: docs/protocol.md#capability-digest")
	}
}

// capabilityListNames are the descriptive lists of a capability.
var capabilityListNames = func() []string {
	var out []string
	for _, m := range capabilityMembers {
		if m.typ == tStrings {
			out = append(out, m.name)
		}
	}
	return out
}()

func isEmptyArray(v any) bool {
	a, ok := v.([]any)
	return ok && len(a) == 0
}

// IsSemver reports whether v, trimmed, is a semantic version as semver.org
// 2.0.0 writes it: MAJOR.MINOR.PATCH (no leading zeros), then optionally
// -PRERELEASE (dot-separated identifiers of [0-9A-Za-z-], a numeric one
// without leading zeros) and +BUILD (dot-separated identifiers of
// [0-9A-Za-z-]). Hand-written, not a regexp: the fast path asks it of every
// capability (the matcher tests hold it to semver.org's regular expression).
func IsSemver[T text](v T) bool { return isSemver(strings.TrimSpace(string(v))) }

func isSemver(s string) bool {
	i := 0
	for part := range 3 {
		if part > 0 {
			if i >= len(s) || s[i] != '.' {
				return false
			}
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j || s[j] == '0' && i-j > 1 {
			return false
		}
	}
	for _, sep := range [...]byte{'-', '+'} {
		if i >= len(s) || s[i] != sep {
			continue
		}
		for i++; ; i++ { // one identifier, then a '.' and another
			j, numeric := i, true
			for ; i < len(s) && isIdentByte(s[i]); i++ {
				numeric = numeric && s[i] >= '0' && s[i] <= '9'
			}
			if i == j || sep == '-' && numeric && s[j] == '0' && i-j > 1 {
				return false
			}
			if i >= len(s) || s[i] != '.' {
				break
			}
		}
	}
	return i == len(s)
}

func isIdentByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-'
}
