// Package jsonx is aghcheck's strict JSON decoder: it finds what
// encoding/json forgives (duplicate member names, invalid UTF-8, numbers
// outside the I-JSON range, absurd nesting) and reports each as a finding.
//
// It is a single-pass recursive-descent parser over a byte slice. Recursion is
// bounded by MaxDepth, so hostile input cannot exhaust the stack, and the
// memory it allocates is proportional to the input. Scanner is its pull-side
// twin for checks that need no decoded value: just as strict, allocating
// nothing.
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// MaxDepth is the deepest nesting of arrays and objects Decode accepts.
const MaxDepth = 128

// Decode parses exactly one JSON value from data. Objects decode to
// map[string]any, arrays to []any, numbers to json.Number, and strings,
// booleans and null to string, bool and nil.
//
// ok is false when data is not decodable at all (syntax, UTF-8, depth); the
// findings say why. ok is true with findings for problems that still leave a
// value (a duplicate member name: the last value wins, as in encoding/json).
func Decode(data []byte) (v any, findings []rules.Finding, ok bool) {
	return DecodeLine(data, 1)
}

// DecodeLine is Decode for a document that starts on line firstLine of a
// larger input, so that positions in messages point into that input.
func DecodeLine(data []byte, firstLine int) (v any, findings []rules.Finding, ok bool) {
	return DecodeAt(data, firstLine, 1, 0)
}

// DecodeAt is Decode for a document that starts at byte offset (0-based) of
// a larger input, on line firstLine and column firstCol (1-based), so that
// the byte offset, line and column in messages all point into that input.
func DecodeAt(data []byte, firstLine, firstCol, offset int) (v any, findings []rules.Finding, ok bool) {
	d := decoderPool.Get().(*decoder)
	d.data, d.pos, d.depth, d.firstLine, d.firstCol, d.offset = data, 0, 0, firstLine, firstCol, offset
	// One copy of the whole document; every string without escapes (and
	// every number) is then a substring of it, free of allocation.
	d.src = string(data)
	d.findings, d.failed = nil, false
	d.path = d.path[:0]

	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		// Told apart from other bytes before the value: a parser may
		// ignore it (INPUT-BOM), and what follows is still judged.
		d.findings = append(d.findings, rules.Finding{Rule: rules.InputBOM, Expected: "a JSON text without a byte order mark",
			Found: "the bytes EF BB BF", Message: "a UTF-8 byte order mark before the JSON text " + d.where(0)})
		d.pos = 3
	}
	d.skipWS()
	if d.pos >= len(d.data) {
		d.fail("", "a JSON value", "end of input", "empty input")
	} else {
		v = d.value()
		if !d.failed {
			d.skipWS()
			if d.pos < len(d.data) {
				d.failUnexpected("end of input after the value", "")
			}
		}
	}
	findings, ok = d.findings, !d.failed
	if !ok {
		v = nil
	}
	d.data, d.src, d.findings = nil, "", nil
	d.path = d.path[:0]
	if cap(d.buf) > 64<<10 {
		d.buf = nil
	}
	decoderPool.Put(d)
	return v, findings, ok
}

// Valid reports whether data is one strictly valid JSON value with no
// findings at all.
func Valid(data []byte) bool {
	_, fs, ok := Decode(data)
	return ok && len(fs) == 0
}

var decoderPool = sync.Pool{New: func() any {
	return &decoder{path: make([]pathElem, 0, 16)}
}}

type pathElem struct {
	key   string
	index int // -1 for an object member
}

type decoder struct {
	data      []byte
	src       string // data as a string, for substrings
	pos       int
	depth     int
	firstLine int
	firstCol  int
	offset    int // offset of data[0] in the input
	failed    bool
	findings  []rules.Finding
	path      []pathElem
	buf       []byte // scratch for strings with escapes
}

func (d *decoder) skipWS() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\n', '\t', '\r':
			d.pos++
		default:
			return
		}
	}
}

// pointer renders the current path, plus an optional member name.
func (d *decoder) pointer(extra ...string) string {
	toks := make([]string, 0, len(d.path)+len(extra))
	for _, p := range d.path {
		if p.index >= 0 {
			toks = append(toks, strconv.Itoa(p.index))
		} else {
			toks = append(toks, p.key)
		}
	}
	return rules.Pointer(append(toks, extra...)...)
}

// where describes a byte offset for people: offset, line and column.
func (d *decoder) where(off int) string {
	if off > len(d.data) {
		off = len(d.data)
	}
	line, col := d.firstLine, d.firstCol
	for i := 0; i < off; i++ {
		if d.data[i] == '\n' {
			line++
			col = 1
		} else if d.data[i] < 0x80 || d.data[i] >= 0xC0 {
			col++
		}
	}
	return fmt.Sprintf("at byte %d (line %d, column %d)", d.offset+off, line, col)
}

// fail records the finding that makes the document undecodable. Only the
// first failure is kept: everything after it is noise.
func (d *decoder) fail(ptr, expected, found, msg string) {
	if d.failed {
		return
	}
	d.failed = true
	d.findings = append(d.findings, rules.Finding{Rule: rules.InputSyntax, Pointer: ptr,
		Expected: expected, Found: found, Message: msg + " " + d.where(d.pos)})
}

// failUnexpected reports the byte at d.pos, telling invalid UTF-8 and
// control bytes apart from plain syntax errors.
func (d *decoder) failUnexpected(expected, ctx string) {
	if d.failed {
		return
	}
	if d.pos >= len(d.data) {
		d.fail(d.pointer(), expected, "end of input", "unexpected end of input"+ctx)
		return
	}
	c := d.data[d.pos]
	if c >= 0x80 {
		if r, size := utf8.DecodeRune(d.data[d.pos:]); r == utf8.RuneError && size <= 1 {
			d.failUTF8()
			return
		}
		r, _ := utf8.DecodeRune(d.data[d.pos:])
		d.fail(d.pointer(), expected, strconv.QuoteRune(r), "unexpected character"+ctx)
		return
	}
	d.fail(d.pointer(), expected, quoteByte(c), "unexpected character"+ctx)
}

func (d *decoder) failUTF8() {
	if d.failed {
		return
	}
	d.failed = true
	d.findings = append(d.findings, rules.Finding{Rule: rules.InputUTF8, Pointer: d.pointer(),
		Expected: "UTF-8 text", Found: fmt.Sprintf("byte 0x%02x", d.data[d.pos]),
		Message: "invalid UTF-8 sequence " + d.where(d.pos)})
}

func quoteByte(c byte) string {
	if c < 0x20 || c == 0x7f {
		return fmt.Sprintf("control byte 0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

func (d *decoder) value() any {
	if d.pos >= len(d.data) {
		d.failUnexpected("a JSON value", "")
		return nil
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		s, _ := d.str()
		return s
	case 't':
		return d.literal("true", true)
	case 'f':
		return d.literal("false", false)
	case 'n':
		return d.literal("null", nil)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
		d.failUnexpected("a JSON value", "")
		return nil
	}
}

func (d *decoder) literal(word string, v any) any {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return v
	}
	// Point at the first byte that differs (or the end).
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			d.failUnexpected(strconv.Quote(word), " in literal "+word)
			return nil
		}
		d.pos++
	}
	return nil
}

func (d *decoder) enter() bool {
	d.depth++
	if d.depth > MaxDepth {
		d.failed = true
		d.findings = append(d.findings, rules.Finding{Rule: rules.InputDepth, Pointer: d.pointer(),
			Expected: fmt.Sprintf("at most %d levels", MaxDepth), Found: fmt.Sprintf("more than %d", MaxDepth),
			Message: "nesting too deep " + d.where(d.pos)})
		return false
	}
	return true
}

func (d *decoder) object() any {
	if !d.enter() {
		return nil
	}
	d.pos++ // '{'
	// Envelopes have a dozen top-level members: sizing the top map for
	// them saves a rehash per document.
	hint := 8
	if d.depth == 1 {
		hint = 16
	}
	m := make(map[string]any, hint)
	d.skipWS()
	if d.closes('}') {
		return m
	}
	d.path = append(d.path, pathElem{index: -1})
	top := len(d.path) - 1
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			d.path[top].key = ""
			d.path = d.path[:top]
			d.failUnexpected("a member name (string)", " in object")
			return nil
		}
		key, ok := d.str()
		if !ok {
			return nil
		}
		d.skipWS()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			d.path = d.path[:top]
			d.failUnexpected("':'", " after member name")
			return nil
		}
		d.pos++
		d.skipWS()
		d.path[top].key = key
		v := d.value()
		if d.failed {
			return nil
		}
		n := len(m)
		m[key] = v
		if len(m) == n {
			d.path = d.path[:top]
			d.findings = append(d.findings, rules.Finding{Rule: rules.InputDuplicateKey, Pointer: d.pointer(key),
				Expected: "unique member names", Found: strconv.Quote(key) + " more than once",
				Message: "duplicate member name " + strconv.Quote(key) + " (the last value wins) " + d.where(d.pos)})
			d.path = d.path[:top+1]
		}
		if d.comma() {
			continue
		}
		if !d.end(top, '}', "',' or '}'", " after object member") {
			return nil
		}
		return m
	}
}

func (d *decoder) array() any {
	if !d.enter() {
		return nil
	}
	d.pos++ // '['
	a := make([]any, 0, 4)
	d.skipWS()
	if d.closes(']') {
		return a
	}
	d.path = append(d.path, pathElem{index: 0})
	top := len(d.path) - 1
	for {
		d.path[top].index = len(a)
		v := d.value()
		if d.failed {
			return nil
		}
		a = append(a, v)
		if d.comma() {
			continue
		}
		if !d.end(top, ']', "',' or ']'", " after array element") {
			return nil
		}
		return a
	}
}

// closes consumes the container's closing byte when it comes next, leaving
// the nesting level.
func (d *decoder) closes(close byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == close {
		d.pos++
		d.depth--
		return true
	}
	return false
}

// comma consumes the ',' (and the space around it) that says another member
// or element follows.
func (d *decoder) comma() bool {
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == ',' {
		d.pos++
		d.skipWS()
		return true
	}
	return false
}

// end pops the container's path element (top) and consumes its closing
// byte, or fails the decode expecting want.
func (d *decoder) end(top int, close byte, want, where string) bool {
	d.path = d.path[:top]
	if d.closes(close) {
		return true
	}
	d.failUnexpected(want, where)
	return false
}

// Copy is a deep copy of a decoded JSON value that shares nothing with
// it, strings included. A decoded string is a substring of the whole
// document's text: what is kept past the document (an id in a table, a
// Peer Card) is copied, or one small id keeps a megabyte alive.
func Copy(v any) any {
	switch t := v.(type) {
	case string:
		return strings.Clone(t)
	case json.Number:
		return json.Number(strings.Clone(string(t)))
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[strings.Clone(k)] = Copy(val)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = Copy(val)
		}
		return out
	}
	return v
}

// Lenient is data read as a lenient receiver reads it (Go's encoding/json:
// no limit of aghcheck's on depth, a byte that is not UTF-8 read as
// U+FFFD, numbers kept as json.Number): the object, or nil when data is
// no JSON object even so. What aghcheck's own decoder gives up on may
// still be a message a peer takes and answers.
func Lenient(data []byte) map[string]any {
	var env map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&env) != nil {
		return nil
	}
	return env
}
