package scenario

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// Match reports whether value matches a partial pattern, and when it does
// not, where and why. Objects match when every member of the pattern
// matches (extra members in the value are fine); arrays match element by
// element with equal length; scalars by equality (numbers by value).
// A one-member object whose key starts with "$" is an operator:
//
//	{$absent: true}   the member is missing or null
//	{$present: true}  the member exists and is not null
//	{$in: [a, b]}     equals one of the listed patterns
//	{$ne: x}          does not match x
//	{$regex: "re"}    a string matching the regular expression
//	{$contains: x}    an array with an element matching x
//	{$type: t}        string, number, object, array, boolean or null
func Match(pattern, value any) (bool, string) {
	return matcher{explain: true}.match("", pattern, value, true)
}

// Matches is Match without the why: the harness tries every pattern on
// every message that arrives, and a mismatch is the common case.
func Matches(pattern, value any) bool {
	ok, _ := matcher{}.match("", pattern, value, true)
	return ok
}

// matcher matches; explain says whether a mismatch is described (at, the
// pointer so far, is kept only then).
type matcher struct{ explain bool }

// no is a mismatch, described by format and the results of args when the
// matcher explains.
func (mt matcher) no(format string, args ...func() any) (bool, string) {
	if !mt.explain {
		return false, ""
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a()
	}
	return false, fmt.Sprintf(format, vals...)
}

func (mt matcher) sub(at, step string) string {
	if !mt.explain {
		return ""
	}
	return at + "/" + step
}

func (mt matcher) match(at string, p, v any, present bool) (bool, string) {
	if op, arg, ok := operator(p); ok {
		return mt.applyOp(at, op, arg, v, present)
	}
	w := func() any { return where(at) }
	if !present {
		return mt.no("%s: missing", w)
	}
	switch pt := p.(type) {
	case map[string]any:
		vm, ok := v.(map[string]any)
		if !ok {
			return mt.no("%s: want an object, got %s", w, func() any { return short(v) })
		}
		if !mt.explain {
			for k, pv := range pt {
				vv, has := vm[k]
				if ok, _ := mt.match("", pv, vv, has); !ok {
					return false, ""
				}
			}
			return true, ""
		}
		// Every member is tried, in key order so that the description is
		// always the same, and the differences are told in the order that
		// decides: a receipt that is "expired" where "accepted" was wanted
		// lacks a reason_code only because of its status.
		keys := make([]string, 0, len(pt))
		for k := range pt {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var whys []string
		for _, k := range keys {
			vv, has := vm[k]
			if ok, why := mt.match(mt.sub(at, k), pt[k], vv, has); !ok {
				whys = append(whys, strings.Split(why, "; ")...)
			}
		}
		if len(whys) == 0 {
			return true, ""
		}
		sort.SliceStable(whys, func(i, j int) bool { return decisive(whys[i]) < decisive(whys[j]) })
		if at == "" && len(whys) > maxDifferences {
			whys = append(whys[:maxDifferences], fmt.Sprintf("%d more", len(whys)-maxDifferences))
		}
		return false, strings.Join(whys, "; ")
	case []any:
		va, ok := v.([]any)
		if !ok || len(va) != len(pt) {
			return mt.no("%s: want %s, got %s", w, func() any { return short(p) }, func() any { return short(v) })
		}
		for i := range pt {
			if ok, why := mt.match(mt.sub(at, strconv.Itoa(i)), pt[i], va[i], true); !ok {
				return false, why
			}
		}
		return true, ""
	}
	if scalarEqual(p, v) {
		return true, ""
	}
	return mt.no("%s: want %s, got %s%s", w, func() any { return short(p) }, func() any { return short(v) }, func() any { return another(at, v) })
}

// maxDifferences is how many differences a description lists.
const maxDifferences = 3

// decisive ranks a difference by the member it is at ("/body/status:
// ..."): the kind decides first, then the status or state, then the ids
// that tie a message to its exchange, then the conversation it is in;
// everything else follows from those.
func decisive(why string) int {
	at, _, _ := strings.Cut(why, ":")
	switch at {
	case "/kind":
		return 0
	case "/body/status", "/body/state", "/body/type":
		return 1
	case "/work_id", "/body/for_id", "/reply_to", "/causation_id", "/id", "/to", "/from":
		return 2
	case "/workspace_id", "/channel", "/surface", "/thread_id", "/direct_id":
		return 3
	}
	return 4
}

// another names a difference of conversation as such: a message in
// another workspace, channel or container than the one wanted.
func another(at string, v any) string {
	if _, ok := v.(string); !ok {
		return ""
	}
	switch at {
	case "/workspace_id":
		return " (another workspace)"
	case "/channel":
		return " (another channel)"
	case "/thread_id", "/direct_id":
		return " (another container)"
	}
	return ""
}

func where(at string) string {
	if at == "" {
		return "envelope"
	}
	return at
}

func operator(p any) (string, any, bool) {
	m, ok := p.(map[string]any)
	if !ok || len(m) != 1 {
		return "", nil, false
	}
	for k, v := range m {
		if strings.HasPrefix(k, "$") {
			return k, v, true
		}
	}
	return "", nil, false
}

// Operators lists the operator keys Match understands.
var Operators = []string{"$absent", "$present", "$in", "$ne", "$regex", "$contains", "$type", "$gt", "$lt"}

func (mt matcher) applyOp(at, op string, arg, v any, present bool) (bool, string) {
	w := func() any { return where(at) }
	got := func() any { return shortOrMissing(v, present) }
	switch op {
	case "$absent":
		if !present || v == nil {
			return true, ""
		}
		return mt.no("%s: want absent, got %s", w, func() any { return short(v) })
	case "$present":
		if present && v != nil {
			return true, ""
		}
		return mt.no("%s: missing", w)
	case "$in":
		alts, _ := arg.([]any)
		for _, a := range alts {
			if ok, _ := (matcher{}).match(at, a, v, present); ok {
				return true, ""
			}
		}
		return mt.no("%s: want one of %s, got %s", w, func() any { return short(arg) }, got)
	case "$ne":
		if ok, _ := (matcher{}).match(at, arg, v, present); ok {
			return mt.no("%s: want anything but %s", w, func() any { return short(arg) })
		}
		return true, ""
	case "$regex":
		s, isStr := v.(string)
		re, err := cachedRegexp(fmt.Sprint(arg))
		if err != nil {
			return false, fmt.Sprintf("%s: bad $regex: %v", where(at), err)
		}
		if present && isStr && re.MatchString(s) {
			return true, ""
		}
		return mt.no("%s: want a string matching %s, got %s", w, func() any { return arg }, got)
	case "$contains":
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				if ok, _ := (matcher{}).match(at, arg, e, true); ok {
					return true, ""
				}
			}
		}
		return mt.no("%s: want an array containing %s, got %s", w, func() any { return short(arg) }, got)
	case "$gt", "$lt":
		n, isNum := number(v)
		bound, boundOK := number(arg)
		if !boundOK {
			return false, fmt.Sprintf("%s: %s needs a number, got %s", where(at), op, short(arg))
		}
		if present && isNum && (op == "$gt" && n.Cmp(bound) > 0 || op == "$lt" && n.Cmp(bound) < 0) {
			return true, ""
		}
		word := map[string]string{"$gt": "greater", "$lt": "less"}[op]
		return mt.no("%s: want a number %s than %v, got %s", w, func() any { return word }, func() any { return bound.Text('f', -1) }, got)
	case "$type":
		if present && jsonx.TypeName(v) == arg {
			return true, ""
		}
		return mt.no("%s: want a %v, got %s", w, func() any { return arg }, got)
	}
	return false, fmt.Sprintf("%s: unknown operator %s", where(at), op)
}

// regexps holds the $regex patterns compiled so far: a pattern is tried on
// every message that arrives while its step waits.
var regexps sync.Map // string → *regexp.Regexp

func cachedRegexp(expr string) (*regexp.Regexp, error) {
	if re, ok := regexps.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err == nil {
		regexps.Store(expr, re)
	}
	return re, err
}

func scalarEqual(p, v any) bool {
	pn, pok := number(p)
	vn, vok := number(v)
	if pok || vok {
		return pok && vok && pn.Cmp(vn) == 0
	}
	return p == v
}

func number(v any) (*big.Float, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = t.String()
	case float64:
		s = strconv.FormatFloat(t, 'g', -1, 64)
	case int:
		s = strconv.Itoa(t)
	case int64:
		s = strconv.FormatInt(t, 10)
	default:
		return nil, false
	}
	f, _, err := big.ParseFloat(s, 10, 200, big.ToNearestEven)
	return f, err == nil
}

func shortOrMissing(v any, present bool) string {
	if !present {
		return "nothing"
	}
	return short(v)
}

func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// Get resolves an RFC 6901 JSON pointer in v.
func Get(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}
