package agh

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// run is the state of one check.
type run struct {
	c       *Checker
	env     map[string]any
	fs      []rules.Finding
	val     [nFields]any
	has     [nFields]bool
	unknown []string // top-level members outside the schema, sorted
}

// load files each member of the table into r.val by a lookup of its name;
// only an envelope with members outside the table is walked to name them.
func (r *run) load() {
	known := 0
	for i := range fields {
		if v, ok := r.env[fields[i].name]; ok {
			r.val[i], r.has[i] = v, true
			known++
		}
	}
	if known == len(r.env) {
		return
	}
	for k := range r.env {
		if _, ok := lookupField(k); !ok {
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
	// and FuzzCheck hold them to it), so the schema validator cannot add a
	// finding to theirs: it runs only under FullSchema, as a visible
	// cross-check, on every envelope, broken or clean.
	if c.opts.FullSchema {
		cs := c.schemas.get()
		native := r.fs
		r.fs = append(r.fs, schemaFindings(cs.envelope, env, nil, native)...)
		if body, ok := r.val[fBody].(map[string]any); ok && IsKnownKind(kind) {
			r.fs = append(r.fs, schemaFindings(cs.body[kind], body, bodyPrefix, native)...)
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

// isPeer reports whether s is a Peer ID, or a verified-handle the trust
// profile accepts in its place. Only strings outside the v0 grammar are shown
// to the trust package, so plain peers never pay for it.
func isPeer(s string) bool {
	return ValidPeerID(s) || (strings.IndexByte(s, '@') > 0 && trust.IsHandle(s))
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

// describe renders a decoded value briefly for a finding's "found".
func describe(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(rules.Clip(t, 77, "..."))
	case json.Number:
		return rules.Clip(string(t), 37, "...")
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return "null"
	}
	return jsonx.TypeName(v)
}
