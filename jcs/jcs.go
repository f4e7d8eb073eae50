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
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/jsonx"
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
	var b bytes.Buffer
	if err := encode(&b, v, "", 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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

// encode writes v at JSON pointer path (kept only for error messages).
func encode(b *bytes.Buffer, v any, path string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("at %q: %w", path, ErrDepth)
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
			return fmt.Errorf("at %q: %w", path, err)
		}
	case json.Number:
		f, err := parseNumber(string(x))
		if err != nil {
			return fmt.Errorf("at %q: %w", path, err)
		}
		return writeNumber(b, f, path)
	case float64:
		return writeNumber(b, x, path)
	case float32:
		return writeNumber(b, float64(x), path)
	case int:
		return writeNumber(b, float64(x), path)
	case int64:
		return writeNumber(b, float64(x), path)
	case int32:
		return writeNumber(b, float64(x), path)
	case uint64:
		return writeNumber(b, float64(x), path)
	case uint32:
		return writeNumber(b, float64(x), path)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e, path+"/"+strconv.Itoa(i), depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		return writeObject(b, x, path, depth)
	default:
		return fmt.Errorf("at %q: %w (%T)", path, ErrType, v)
	}
	return nil
}

type member struct {
	key   string
	units []uint16
}

func writeObject(b *bytes.Buffer, m map[string]any, path string, depth int) error {
	// RFC 8785 §3.2.3: members are ordered by the UTF-16 code units of their
	// names, which differs from UTF-8 byte order for characters above U+FFFF
	// versus U+E000..U+FFFF.
	ms := make([]member, 0, len(m))
	for k := range m {
		if !utf8.ValidString(k) {
			return fmt.Errorf("at %q: member name: %w", path, ErrInvalidUTF8)
		}
		ms = append(ms, member{key: k, units: utf16.Encode([]rune(k))})
	}
	slices.SortFunc(ms, func(a, c member) int { return slices.Compare(a.units, c.units) })
	b.WriteByte('{')
	for i, e := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = writeString(b, e.key) // validated above
		b.WriteByte(':')
		if err := encode(b, m[e.key], path+"/"+escapeToken(e.key), depth+1); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
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
func writeString(b *bytes.Buffer, s string) error {
	if !utf8.ValidString(s) {
		return ErrInvalidUTF8
	}
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
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

func writeNumber(b *bytes.Buffer, f float64, path string) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("at %q: %w: %v", path, ErrNumber, f)
	}
	b.WriteString(FormatNumber(f))
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
