// Package jcs implements the JSON Canonicalization Scheme (RFC 8785).
//
// Signatures in the AGH trust profile are computed over these bytes, so a
// single byte of difference from another implementation is a verification
// failure: the package follows the RFC to the letter and refuses what the RFC
// cannot canonicalize (NaN, infinities, invalid UTF-8) instead of guessing.
package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// maxDepth guards against cyclic or absurdly deep values built in Go; the
// strict decoder already caps parsed input far below it.
const maxDepth = 1000

// Errors returned (wrapped) by Canonicalize; callers can test with errors.Is.
var (
	ErrNumber      = errors.New("number cannot be canonicalized")
	ErrInvalidUTF8 = errors.New("string is not valid UTF-8")
	ErrType        = errors.New("value is not JSON")
	ErrDepth       = errors.New("value nests too deeply")
)

// Canonicalize returns the RFC 8785 canonical UTF-8 bytes of a decoded JSON
// value (as produced by jsonx.Decode: map[string]any, []any, json.Number,
// string, bool, nil; float64 and int are accepted too).
func Canonicalize(v any) ([]byte, error) {
	var e encoder
	e.b.Grow(1024) // an envelope's size: the buffer does not grow by steps
	if err := e.encode(v, 0); err != nil {
		return nil, err
	}
	return e.b.Bytes(), nil
}

// Transform canonicalizes raw JSON text. The text is decoded strictly: a
// duplicate member name, invalid UTF-8 or a number outside the double range
// has no single canonical form, so any decoder finding is an error.
func Transform(raw []byte) ([]byte, error) {
	v, findings, ok := jsonx.Decode(raw)
	if len(findings) > 0 {
		return nil, fmt.Errorf("input is not I-JSON: %s", findings[0])
	}
	if !ok {
		return nil, errors.New("input is not JSON")
	}
	return Canonicalize(v)
}

// encoder writes canonical bytes. path is the JSON pointer to the value
// being written, one step per level (a member name, or an array index when
// index >= 0), spelled out only for an error message.
type encoder struct {
	b    bytes.Buffer
	path []step
}

type step struct {
	key   string
	index int
}

// at renders the current pointer ("" for the top-level value).
func (e *encoder) at() string {
	var p strings.Builder
	for _, s := range e.path {
		p.WriteByte('/')
		if s.index >= 0 {
			p.WriteString(strconv.Itoa(s.index))
		} else {
			p.WriteString(escapeToken(s.key))
		}
	}
	return p.String()
}

// encode writes v, found at e.path.
func (e *encoder) encode(v any, depth int) error {
	b := &e.b
	if depth > maxDepth {
		return fmt.Errorf("at %q: %w", e.at(), ErrDepth)
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		if err := writeString(b, x); err != nil {
			return fmt.Errorf("at %q: %w", e.at(), err)
		}
	case json.Number:
		f, err := parseNumber(string(x))
		if err != nil {
			return fmt.Errorf("at %q: %w", e.at(), err)
		}
		return e.writeNumber(f)
	case float64:
		return e.writeNumber(x)
	case float32:
		return e.writeNumber(float64(x))
	case int:
		return e.writeNumber(float64(x))
	case int64:
		return e.writeNumber(float64(x))
	case int32:
		return e.writeNumber(float64(x))
	case uint64:
		return e.writeNumber(float64(x))
	case uint32:
		return e.writeNumber(float64(x))
	case []any:
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			e.path = append(e.path, step{index: i})
			if err := e.encode(el, depth+1); err != nil {
				return err
			}
			e.path = e.path[:len(e.path)-1]
		}
		b.WriteByte(']')
	case map[string]any:
		return e.writeObject(x, depth)
	default:
		return fmt.Errorf("at %q: %w (%T)", e.at(), ErrType, v)
	}
	return nil
}

func (e *encoder) writeObject(m map[string]any, depth int) error {
	b := &e.b
	keys := make([]string, 0, len(m))
	wide := false // a name holds a character above U+FFFF
	for k := range m {
		if !utf8.ValidString(k) {
			return fmt.Errorf("at %q: member name: %w", e.at(), ErrInvalidUTF8)
		}
		wide = wide || supplementary(k)
		keys = append(keys, k)
	}
	if wide {
		slices.SortFunc(keys, compareUTF16)
	} else {
		slices.Sort(keys) // compareUTF16 is the byte order then: not asked per pair
	}
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = writeString(b, k) // validated above
		b.WriteByte(':')
		e.path = append(e.path, step{key: k, index: -1})
		if err := e.encode(m[k], depth+1); err != nil {
			return err
		}
		e.path = e.path[:len(e.path)-1]
	}
	b.WriteByte('}')
	return nil
}

// compareUTF16 orders member names as RFC 8785 §3.2.3 does, by their
// UTF-16 code units. That is the UTF-8 byte order unless a name holds a
// character above U+FFFF (a 4-byte sequence, lead byte 0xF0 or more), whose
// surrogates sort before U+E000..U+FFFF: only then are the units compared.
func compareUTF16(a, c string) int {
	if !supplementary(a) && !supplementary(c) {
		return strings.Compare(a, c)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(c)))
}

func supplementary(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 {
			return true
		}
	}
	return false
}

func escapeToken(s string) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

const hexDigits = "0123456789abcdef"

// writeString applies RFC 8785 §3.2.2.2: only '"', '\\' and the C0 controls
// are escaped (with the short forms where JSON has them); everything else,
// including U+2028/U+2029 and '/', is written as raw UTF-8.
// Invalid UTF-8 is found on the way (only a string with a byte that is not
// ASCII is validated); b then holds part of the string, and the caller
// drops b with the error.
func writeString(b *bytes.Buffer, s string) error {
	b.WriteByte('"')
	start := 0
	var high byte // the OR of every byte: high&0x80 when one is not ASCII
	for i := 0; i < len(s); i++ {
		c := s[i]
		high |= c
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	if high >= 0x80 && !utf8.ValidString(s) {
		return ErrInvalidUTF8
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
	return nil
}

// parseNumber reads a json.Number as an IEEE 754 double. The grammar is
// checked first because strconv.ParseFloat also accepts forms JSON does not
// ("Inf", "0x1p3", "+1", "1_0").
func parseNumber(s string) (float64, error) {
	if !validNumber(s) {
		return 0, fmt.Errorf("%w: %q is not a JSON number", ErrNumber, s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s is outside the IEEE 754 double range", ErrNumber, s)
	}
	return f, nil
}

// validNumber reports whether s matches the RFC 8259 number grammar.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}

func (e *encoder) writeNumber(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("at %q: %w: %v", e.at(), ErrNumber, f)
	}
	e.b.WriteString(FormatNumber(f))
	return nil
}

// FormatNumber renders a finite double the way ECMAScript's
// Number.prototype.toString does (ECMA-262 §Number::toString), which is what
// RFC 8785 §3.2.2.3 prescribes. It panics on NaN and infinities.
func FormatNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		panic("jcs.FormatNumber: not a finite number")
	}
	if f == 0 {
		return "0" // both zeros
	}
	var out []byte
	if f < 0 {
		out = append(out, '-')
		f = -f
	}
	// Shortest round-trip digits; Go and ECMAScript agree on them, both
	// picking the closest candidate when several are equally short.
	e := strconv.AppendFloat(nil, f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut(e, []byte{'e'})
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	x, _ := strconv.Atoi(string(exp))
	k := len(digits)
	n := x + 1 // value = 0.digits × 10^n in ECMA-262 terms
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for range n - k {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for range -n {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return string(out)
}
