package jsonx

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads one JSON text in place, value by value, without building
// anything: the pull side of a one-pass check. It is exactly as strict as
// Decode, and stricter where that is cheaper: it fails (Failed) on
// everything Decode reports, syntax and findings alike (duplicate member
// names, invalid UTF-8, unpaired surrogates, numbers outside the double
// range, nesting deeper than MaxDepth), and also on member names with
// escapes. So a text the Scanner reads to its end without failing is one
// Decode accepts without a finding, and the strings it returns are the ones
// Decode would have produced.
//
// Once failed, every method is a no-op returning zero values, so callers
// may read on and look at Failed once. A Scanner is reused with Reset and
// allocates only while its scratch space grows.
type Scanner struct {
	data   []byte
	pos    int
	depth  int
	failed bool
	keys   [][]byte // member names of the open objects, for duplicates
	marks  []mark   // each open object's start in keys, and a summary of its names
	arena  []byte   // decoded strings that had escapes
}

// mark is an open object: where its member names start in keys (-1 for
// ObjectOwnNames), and one bit per name (by length and end bytes) so that a
// new name is compared with the others only when its bit is already set.
type mark struct {
	start int
	bloom uint64
}

// Reset starts reading data.
func (s *Scanner) Reset(data []byte) {
	s.data, s.pos, s.depth, s.failed = data, 0, 0, false
	s.keys, s.marks, s.arena = s.keys[:0], s.marks[:0], s.arena[:0]
}

// Failed reports whether the text broke a rule (or held something the
// Scanner does not settle): then only Decode can say what.
func (s *Scanner) Failed() bool { return s.failed }

// Peek skips white space and returns the next byte (0 at the end or once
// failed) without consuming it.
func (s *Scanner) Peek() byte {
	if s.failed {
		return 0
	}
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return s.data[s.pos] // compact JSON: no white space to skip
	}
	s.skipWS()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *Scanner) skipWS() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\n', '\t', '\r':
			s.pos++
		default:
			return
		}
	}
}

// End reports whether nothing but white space is left after the value.
func (s *Scanner) End() bool {
	if s.failed {
		return false
	}
	s.skipWS()
	if s.pos != len(s.data) {
		s.failed = true
	}
	return !s.failed
}

// Object consumes the '{' that opens an object; false (and failed) if the
// next value is not one. Read its members with Member.
func (s *Scanner) Object() bool {
	if !s.open('{') {
		return false
	}
	s.marks = append(s.marks, mark{start: len(s.keys)})
	return true
}

// ObjectOwnNames is Object for an object whose member names the caller
// holds to be distinct itself (it knows every name it takes, and refuses
// one it has seen), so Member spends nothing on comparing them: a repeated
// name is then the caller's to refuse, not a failure of the Scanner.
func (s *Scanner) ObjectOwnNames() bool {
	if !s.open('{') {
		return false
	}
	s.marks = append(s.marks, mark{start: -1})
	return true
}

// open consumes c, the byte that opens a container, one level deeper.
func (s *Scanner) open(c byte) bool {
	if s.Peek() != c {
		s.failed = true
		return false
	}
	if !s.enter() {
		return false
	}
	s.pos++
	return true
}

// Member reads the next member name of the object being read, and the ':'
// after it; i counts the members read so far (0 for the first). more is
// false at the closing '}' (which it consumes) and on failure. A name that
// repeats an earlier one of the same object fails, as do names with escapes
// (Decode would unescape them first; they are too rare to be worth it).
func (s *Scanner) Member(i int) (name []byte, more bool) {
	c := s.Peek()
	if i > 0 {
		if c == ',' {
			s.pos++
			c = s.Peek()
		} else if c == '}' {
			s.closeObject()
			return nil, false
		} else {
			s.failed = true
			return nil, false
		}
	} else if c == '}' {
		s.closeObject()
		return nil, false
	}
	if c != '"' {
		s.failed = true
		return nil, false
	}
	start := s.pos + 1
	end, escaped := s.stringEnd(start)
	if s.failed || escaped {
		s.failed = true
		return nil, false
	}
	name = s.data[start:end]
	s.pos = end + 1
	if s.Peek() != ':' {
		s.failed = true
		return nil, false
	}
	s.pos++
	m := &s.marks[len(s.marks)-1]
	if m.start < 0 {
		return name, true // ObjectOwnNames: the caller compares them
	}
	bit := uint64(1)
	if len(name) > 0 {
		bit <<= (uint(len(name)) + uint(name[0]) + uint(name[len(name)-1])) & 63
	}
	if m.bloom&bit != 0 {
		for _, k := range s.keys[m.start:] {
			if len(k) == len(name) && bytes.Equal(k, name) {
				s.failed = true
				return nil, false
			}
		}
	}
	m.bloom |= bit
	s.keys = append(s.keys, name)
	return name, true
}

func (s *Scanner) closeObject() {
	s.pos++
	s.depth--
	if start := s.marks[len(s.marks)-1].start; start >= 0 {
		s.keys = s.keys[:start]
	}
	s.marks = s.marks[:len(s.marks)-1]
}

// Array consumes the '[' that opens an array; false (and failed) if the
// next value is not one. Read its elements with Element.
func (s *Scanner) Array() bool { return s.open('[') }

// Element reports whether another element follows in the array being read
// (consuming the ',' before it); i counts the elements read so far. It
// consumes the closing ']' and returns false there and on failure.
func (s *Scanner) Element(i int) bool {
	c := s.Peek()
	switch {
	case c == ']':
		s.pos++
		s.depth--
		return false
	case i == 0 && c != 0:
		return true
	case i > 0 && c == ',':
		s.pos++
		if s.Peek() != 0 {
			return true
		}
	}
	s.failed = true
	return false
}

func (s *Scanner) enter() bool {
	s.depth++
	if s.depth > MaxDepth {
		s.failed = true
	}
	return !s.failed
}

// Null consumes a null and reports whether the next value was one.
func (s *Scanner) Null() bool {
	if s.Peek() != 'n' {
		return false
	}
	if !bytes.HasPrefix(s.data[s.pos:], litNull) {
		s.failed = true
		return false
	}
	s.pos += len(litNull)
	return true
}

var litNull, litTrue, litFalse = []byte("null"), []byte("true"), []byte("false")

// String reads a string value and returns its text: a slice of the input,
// or, when it has escapes, of scratch space that lives until Reset. ok is
// false (not failed) when the next value is not a string.
func (s *Scanner) String() (text []byte, ok bool) {
	if s.Peek() != '"' {
		return nil, false
	}
	start := s.pos + 1
	end, escaped := s.stringEnd(start)
	if s.failed {
		return nil, false
	}
	s.pos = end + 1
	if !escaped {
		return s.data[start:end], true
	}
	at := len(s.arena)
	s.arena = unescape(s.arena, s.data[start:end])
	return s.arena[at:len(s.arena):len(s.arena)], true
}

// strByte classes the bytes of a string: 0 plain, 1 '"' or '\\', 2 control,
// 3 not ASCII.
var strByte = func() (t [256]uint8) {
	t['"'], t['\\'] = 1, 1
	for c := 0; c < 0x20; c++ {
		t[c] = 2
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = 3
	}
	return t
}()

// stringEnd finds the closing quote of the string whose text starts at
// start, checking everything Decode checks on the way; escaped says whether
// the text has escapes.
func (s *Scanner) stringEnd(start int) (end int, escaped bool) {
	data := s.data
	i := start
	for i < len(data) {
		// Eight bytes at a time up to the next byte that is not plain.
		if i+8 <= len(data) {
			m := special8(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		if data[i] == '"' { // the usual stop, without the table
			return i, escaped
		}
		switch strByte[data[i]] {
		case 0:
			i++
		case 1: // a backslash: the quote returned above
			n := escapeLen(data, i)
			if n == 0 {
				s.failed = true
				return 0, false
			}
			escaped = true
			i += n
		case 2:
			s.failed = true
			return 0, false
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				s.failed = true
				return 0, false
			}
			i += size
		}
	}
	s.failed = true
	return 0, false
}

// special8 flags (high bit set) the bytes of w, read little-endian, that
// are a quote, a backslash, a control character or not ASCII, with the bit
// tricks of "Bit Twiddling Hacks" (a byte below n; a zero byte after an
// XOR). A borrow can flag a plain byte above a flagged one, never below, so
// the lowest flag is exact: that is all stringEnd uses.
func special8(w uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q, bs := w^(lo*'"'), w^(lo*'\\')
	return ((w-lo*0x20)&^w | (q-lo)&^q | (bs-lo)&^bs | w) & hi
}

// escapeLen returns the length of the escape at data[i] ('\\'), a
// surrogate pair counting as one, or 0 when Decode would report it (a
// malformed escape or an unpaired surrogate).
func escapeLen(data []byte, i int) int {
	if i+1 >= len(data) {
		return 0
	}
	switch c := data[i+1]; {
	case simpleEscape[c] != 0:
		return 2
	case c == 'u':
		r, ok := hex4(data, i+2)
		if !ok {
			return 0
		}
		if !utf16.IsSurrogate(r) {
			return 6
		}
		if r < 0xDC00 && i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			if r2, ok := hex4(data, i+8); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
				return 12
			}
		}
	}
	return 0
}

// unescape appends the text of a string body with (well-formed) escapes.
func unescape(b, text []byte) []byte {
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if text[i+1] != 'u' {
			b = append(b, simpleEscape[text[i+1]])
			i += 2
			continue
		}
		r, _ := hex4(text, i+2)
		if utf16.IsSurrogate(r) {
			r2, _ := hex4(text, i+8)
			b = utf8.AppendRune(b, utf16.DecodeRune(r, r2))
			i += 12
			continue
		}
		b = utf8.AppendRune(b, r)
		i += 6
	}
	return b
}

// Uint reads a number that is a plain integer literal, 0 to MaxInt64 ("-0"
// included, as strconv.ParseInt reads it). ok is false (not failed) for any
// other value, a number with a fraction or exponent included.
func (s *Scanner) Uint() (n int64, ok bool) {
	c := s.Peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	start := s.pos
	if !s.number() {
		return 0, false
	}
	lit := s.data[start:s.pos]
	if lit[0] == '-' {
		return 0, len(lit) == 2 && lit[1] == '0'
	}
	for _, d := range lit {
		if d < '0' || d > '9' {
			return 0, false
		}
		if n > (math.MaxInt64-int64(d-'0'))/10 {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

// number consumes a number, failing where Decode fails or reports it.
func (s *Scanner) number() bool {
	end, want, big := numberEnd(s.data, s.pos)
	if want != "" || big && overflows(string(s.data[s.pos:end])) {
		s.failed = true
		return false
	}
	s.pos = end
	return true
}

// Skip reads past the next value of any type, checking it as strictly as
// the rest. It reports whether it did not fail.
func (s *Scanner) Skip() bool {
	switch c := s.Peek(); c {
	case '{':
		s.Object()
		for i := 0; ; i++ {
			if _, more := s.Member(i); !more {
				break
			}
			s.Skip()
		}
	case '[':
		s.Array()
		for i := 0; s.Element(i); i++ {
			s.Skip()
		}
	case '"':
		s.String()
	case 'n':
		s.Null()
	case 't':
		s.literal(litTrue)
	case 'f':
		s.literal(litFalse)
	case 0:
		s.failed = true
	default:
		if c == '-' || isDigit(c) {
			s.number()
		} else {
			s.failed = true
		}
	}
	return !s.failed
}

func (s *Scanner) literal(word []byte) {
	if !bytes.HasPrefix(s.data[s.pos:], word) {
		s.failed = true
		return
	}
	s.pos += len(word)
}

// Pos is the offset of the next unread byte; Span returns the bytes between
// two positions (to come back to a value with a second Scanner).
func (s *Scanner) Pos() int                 { return s.pos }
func (s *Scanner) Span(from, to int) []byte { return s.data[from:to] }
