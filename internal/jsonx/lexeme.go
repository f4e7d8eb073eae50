package jsonx

// The decoder's leaves: strings (escapes, surrogate pairs, UTF-8) and
// numbers (the grammar, shared with Scanner, and the I-JSON range).

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// str decodes the string starting at d.pos ('"').
func (d *decoder) str() (string, bool) {
	start := d.pos + 1
	i := start
	data := d.data
	for i < len(data) {
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			return d.src[start:i], true
		}
		if c == '\\' {
			return d.strEscaped(start, i)
		}
		if c < 0x20 {
			d.pos = i
			d.failUnexpected("a string character (control characters must be escaped)", " in string")
			return "", false
		}
		if c >= 0x80 {
			if c < 0xC2 || !utf8.FullRune(data[i:]) {
				d.pos = i
				d.failUTF8()
				return "", false
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				d.pos = i
				d.failUTF8()
				return "", false
			}
			i += size
			continue
		}
		i++
	}
	d.pos = len(data)
	d.failUnexpected("'\"'", " in string")
	return "", false
}

// strEscaped finishes a string that has escapes; esc is the first backslash.
func (d *decoder) strEscaped(start, esc int) (string, bool) {
	data := d.data
	b := append(d.buf[:0], data[start:esc]...)
	i := esc
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.buf = b
			return string(b), true
		case c == '\\':
			if i+1 >= len(data) {
				d.pos = len(data)
				d.failUnexpected("an escape sequence", " in string")
				return "", false
			}
			switch e := data[i+1]; {
			case simpleEscape[e] != 0:
				b = append(b, simpleEscape[e])
				i += 2
			case e == 'u':
				r, ok := hex4(data, i+2)
				if !ok {
					d.pos = i
					d.fail(d.pointer(), `\u followed by four hex digits`, "a malformed escape", "invalid \\u escape in string")
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if r < 0xDC00 && i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
						if x, ok := hex4(data, i+2); ok {
							r2 = x
						}
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						// encoding/json substitutes U+FFFD too; the value still
						// exists, but it is not Unicode text, so it is a finding.
						d.findings = append(d.findings, rules.Finding{Rule: rules.InputUTF8, Pointer: d.pointer(),
							Expected: "a surrogate pair", Found: fmt.Sprintf(`lone surrogate \u%04x`, r),
							Message: "string escapes an unpaired UTF-16 surrogate (read as U+FFFD) " + d.where(i-6)})
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				d.pos = i
				d.fail(d.pointer(), `one of \" \\ \/ \b \f \n \r \t \u`, strconv.Quote(string(data[i:i+2])), "invalid escape in string")
				return "", false
			}
		case c < 0x20:
			d.pos = i
			d.failUnexpected("a string character (control characters must be escaped)", " in string")
			return "", false
		case c >= 0x80:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				d.pos = i
				d.failUTF8()
				return "", false
			}
			b = append(b, data[i:i+size]...)
			i += size
		default:
			b = append(b, c)
			i++
		}
	}
	d.pos = len(data)
	d.failUnexpected("'\"'", " in string")
	return "", false
}

// simpleEscape maps the byte after a backslash to the byte the escape
// stands for; 0 for 'u' (four hex digits follow) and for what JSON forbids.
// The decoder, Scanner's check and its unescape all read it.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (d *decoder) number() any {
	start := d.pos
	end, want, big := numberEnd(d.data, start)
	d.pos = end
	if want != "" {
		d.failUnexpected(want, " in number")
		return nil
	}
	s := d.src[start:end]
	if big && overflows(s) {
		shown := s
		if len(shown) > 40 {
			shown = shown[:20] + "…" + shown[len(shown)-10:] + fmt.Sprintf(" (%d chars)", len(s))
		}
		d.findings = append(d.findings, rules.Finding{Rule: rules.InputNumber, Pointer: d.pointer(),
			Expected: "a number within ±1.7976931348623157e308", Found: shown,
			Message: "number overflows an IEEE 754 double " + d.where(start)})
	}
	return json.Number(s)
}

// numberEnd reads the number starting at data[start] (a '-' or a digit) by
// the RFC 8259 grammar. It returns where it ends, or, when the grammar
// breaks, where and what was expected there (want). big says whether the
// number may leave the float64 range: without an exponent that takes over
// 308 integer digits, so the costly parse is only done when it can matter.
func numberEnd(data []byte, start int) (end int, want string, big bool) {
	i := start
	if data[i] == '-' {
		i++
	}
	if i >= len(data) || !isDigit(data[i]) {
		return i, "a digit", false
	}
	if data[i] == '0' {
		i++
	} else {
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	intDigits := i - start
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return i, "a digit after '.'", false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	exp := false
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		exp = true
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, "a digit in the exponent", false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, "", exp || intDigits > 300
}

// overflows reports whether the number literal s is beyond a double.
func overflows(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return math.IsInf(f, 0) || (err != nil && !isRange(err))
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
