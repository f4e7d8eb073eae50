package redkey

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// kind is a member type as the seed's templates show it.
type kind int

const (
	kString       kind = iota
	kStringOrNull      // "x | null"
	kNumber            // non-negative number, e.g. cost_usd 0.00
	kCount             // non-negative integer, e.g. attempts 1
	kBool
	kObject
	kStrings // list of strings
	kList    // list of anything (items judged by the caller)
)

func (k kind) String() string {
	return [...]string{"string", "string or null", "non-negative number", "non-negative integer",
		"boolean", "object", "list of strings", "list"}[k]
}

// number returns v as a float64 when it is a finite JSON number.
func number(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil {
			return 0, false
		}
	case float64:
		f = n
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	default:
		return 0, false
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

func is(k kind, v any) bool {
	switch k {
	case kString:
		_, ok := v.(string)
		return ok
	case kStringOrNull:
		_, ok := v.(string)
		return ok || v == nil
	case kNumber:
		f, ok := number(v)
		return ok && f >= 0
	case kCount:
		f, ok := number(v)
		return ok && f >= 0 && f == math.Trunc(f)
	case kBool:
		_, ok := v.(bool)
		return ok
	case kObject:
		_, ok := v.(map[string]any)
		return ok
	case kStrings:
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, it := range l {
			if _, ok := it.(string); !ok {
				return false
			}
		}
		return true
	case kList:
		_, ok := v.([]any)
		return ok
	}
	return false
}

// checker accumulates findings for one document.
type checker struct {
	out      []rules.Finding
	typeRule *rules.Rule
}

func (c *checker) add(r *rules.Rule, ptr, expected, found, msg string) {
	c.out = append(c.out, rules.Finding{Rule: r, Pointer: ptr, Expected: expected, Found: found, Message: msg})
}

// member fetches obj[name] at ptr: a missing member is reported with missing
// (nil: not reported), a mistyped one with the checker's type rule. ok says
// the value is present and of kind k.
func (c *checker) member(obj map[string]any, ptr, name string, k kind, missing *rules.Rule) (any, bool) {
	p := ptr + rules.Pointer(name)
	v, present := obj[name]
	if !present {
		if missing != nil {
			c.add(missing, p, "member "+strconv.Quote(name), "absent", "missing member "+strconv.Quote(name))
		}
		return nil, false
	}
	if !is(k, v) {
		c.add(c.typeRule, p, k.String(), describe(v), "")
		return v, false
	}
	return v, true
}

// oneOf reports a string outside its enumeration.
func (c *checker) oneOf(r *rules.Rule, ptr, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		c.add(r, ptr, "one of "+strings.Join(allowed, ", "), quote(s), "")
	}
}

// describe says what was found, for people: the type, and short values.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + quote(x)
	case json.Number:
		return "number " + quote(string(x))
	case []any:
		return fmt.Sprintf("array of %d", len(x))
	case bool:
		return fmt.Sprintf("boolean %v", x)
	}
	return jsonx.TypeName(v)
}

func quote(s string) string { return strconv.Quote(rules.Clip(s, 80, "…")) }

func idx(i int) string { return strconv.Itoa(i) }
