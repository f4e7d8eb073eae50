package agh

import (
	"encoding/json"
	"math"
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

// unixSeconds reads ts or expires_at as the Envelope page's schema types
// it: a JSON integer (any number without a fractional part, "1e9" and
// "1.0" included) not below 0. n is its value, saturated at MaxInt64 (a
// time beyond int64 is far in the future); plain says it is written as a
// plain integer literal that fits in int64, the one form every typed
// decoder takes (ENV-TS-LITERAL).
func unixSeconds(v any) (n int64, integral, plain bool) {
	switch t := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return max(i, 0), i >= 0, i >= 0
		}
		n, integral = numberSeconds(string(t))
		return n, integral, false
	case int64:
		return t, t >= 0, t >= 0
	case int:
		return int64(t), t >= 0, t >= 0
	case float64:
		if t >= 0 && t == math.Trunc(t) && !math.IsInf(t, 0) {
			if t >= 1<<63 {
				return math.MaxInt64, true, false
			}
			return int64(t), true, true
		}
	}
	return 0, false, false
}

// numberSeconds reads a JSON number literal that is not a plain int64:
// whether it is integral and not negative (-0 is 0), and its value
// saturated at MaxInt64. It works on the digits, so that "1e999999999"
// costs no more than "1e9".
func numberSeconds(lit string) (int64, bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(lit), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	shift := -len(frac) // value = digits × 10^(shift + exponent)
	trimmed := strings.TrimRight(digits, "0")
	shift += len(digits) - len(trimmed)
	if trimmed == "" {
		return 0, true // zero, however written
	}
	if neg {
		return 0, false
	}
	e, big := 0, false
	if hasExp {
		x, err := strconv.Atoi(exp)
		if err != nil {
			// Past int: only its sign matters (a fraction or a huge time).
			if strings.HasPrefix(exp, "-") {
				return 0, false
			}
			big = true
		}
		e = x
	}
	if !big && e > 1<<22 {
		big = true // no message is long enough to hold a fraction this undoes
	}
	if !big {
		shift += e
	}
	switch {
	case big:
		return math.MaxInt64, true
	case shift < 0:
		return 0, false
	case len(trimmed)+shift > 19:
		return math.MaxInt64, true
	}
	i, err := strconv.ParseInt(trimmed+strings.Repeat("0", shift), 10, 64)
	if err != nil {
		return math.MaxInt64, true
	}
	return i, true
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
