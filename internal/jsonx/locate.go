package jsonx

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// locators are the Scanners Locate reads with: one per finding of every
// broken document, so their scratch space is kept, not grown each time.
var locators = sync.Pool{New: func() any { return new(Scanner) }}

// Locate returns the byte offset in data, one JSON text, of the value the
// JSON pointer ptr (RFC 6901) names. When that value is not there (a
// finding about a member that is missing) or the text cannot be read up
// to it, it returns the offset of the closest enclosing value that is:
// an annotation then points at the object that lacks the member.
func Locate(data []byte, ptr string) int {
	s := locators.Get().(*Scanner)
	defer locators.Put(s)
	s.Reset(data)
	s.Peek()
	at := s.Pos()
	if ptr == "" || ptr[0] != '/' {
		return at
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		found := false
		switch s.Peek() {
		case '{':
			s.Object()
			for i := 0; !found; i++ {
				name, more := s.Member(i)
				if !more {
					return at
				}
				if string(name) == tok {
					found = true
				} else if !s.Skip() {
					return at
				}
			}
		case '[':
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 {
				return at
			}
			s.Array()
			for i := 0; !found; i++ {
				if !s.Element(i) {
					return at
				}
				if i == idx {
					found = true
				} else if !s.Skip() {
					return at
				}
			}
		default:
			return at
		}
		if s.Peek() == 0 {
			return at
		}
		at = s.Pos()
	}
	return at
}

var newline = []byte{'\n'}

// Position is the line (1-based) and column (1-based, in UTF-16 code
// units, as SARIF counts by default and editors show) of offset in data,
// a text that starts at line, col of its file.
func Position(data []byte, offset, line, col int) (int, int) {
	offset = max(0, min(offset, len(data)))
	start := 0
	if i := bytes.LastIndexByte(data[:offset], '\n'); i >= 0 {
		line += bytes.Count(data[:i+1], newline)
		start, col = i+1, 1
	}
	for i := start; i < offset; {
		if data[i] < utf8.RuneSelf { // a finding of every broken line is located
			col++
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:offset])
		col++
		if r >= 0x10000 {
			col++ // a surrogate pair
		}
		i += n
	}
	return line, col
}
