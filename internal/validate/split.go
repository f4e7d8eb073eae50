package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// MaxDocument is the largest document the pipeline hands to the decoder
// (the AGH 1 MiB message limit). Larger ones are skipped without buffering.
const MaxDocument = 1 << 20

// rawDoc is one document cut out of an input: its bytes, or, when the bytes
// could not be cut out (too large, not JSON at all), the finding that says why.
type rawDoc struct {
	line  int
	col   int // column (1-based, in characters) where the document starts
	off   int // byte offset (0-based) of the document in its input
	index int // position in a top-level array, -1 otherwise
	raw   []byte
	fail  *rules.Finding
}

// splitter cuts a byte stream into documents without ever holding more than
// one document (at most MaxDocument bytes) plus a read chunk in memory.
//
// Forms: a top-level array (each element is a document), NDJSON (each
// non-blank line is a document), or a stream of concatenated values (a single
// document being the common case). A stream whose first value sits alone on
// its line is read as NDJSON from then on, so that a broken line does not
// swallow the lines after it.
type splitter struct {
	r        io.Reader
	buf      []byte
	pos, end int // unconsumed window buf[pos:end]
	eof      bool
	err      error
	line     int // line number of buf[lpos]
	col      int // column of buf[lpos] on that line (1-based, in characters)
	lpos     int
	base     int               // offset of buf[0] in the input
	emit     func(rawDoc) bool // false stops the split
	// idle is called before every read, when each complete document read
	// so far has been sent: a read may wait on a live stream, so what is
	// queued must go out first. false stops the split.
	idle    func() bool
	stopped bool
	docs    int
	// whole reads the input as one message, whatever it holds (a receiver
	// gets one NATS payload): an array is one document that is not an
	// object, two values one document with trailing data.
	whole bool
	// nulAt is the input offset of the first NUL byte within the first
	// binarySniff bytes (-1: none seen), and nulLine its line.
	nulAt, nulLine int
}

// binarySniff is how far into an input a NUL byte, which never occurs in a
// JSON text, marks it as binary: one finding instead of thousands.
const binarySniff = 8192

const readChunk = 256 << 10

func newSplitter(r io.Reader, emit func(rawDoc) bool, idle func() bool) *splitter {
	return &splitter{r: r, buf: make([]byte, MaxDocument+readChunk+1), line: 1, col: 1, emit: emit, idle: idle, nulAt: -1}
}

// fill compacts the window to the front and reads more. It returns false at
// EOF or on a read error (kept in s.err).
func (s *splitter) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		s.lineAt(s.pos)
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += s.pos
		s.pos, s.end, s.lpos = 0, n, 0
	}
	if s.end == len(s.buf) {
		return true // caller must consume before more fits
	}
	if s.idle != nil && !s.idle() {
		s.eof, s.stopped = true, true
		return false
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.sniff(s.end, s.end+n)
		s.end += n
		if err != nil {
			s.eof = true
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// sniff looks for a NUL byte in buf[from:to], just read, as far as it lies
// within the first binarySniff bytes of the input.
func (s *splitter) sniff(from, to int) {
	if s.nulAt >= 0 || s.base+from >= binarySniff {
		return
	}
	to = min(to, binarySniff-s.base)
	if i := bytes.IndexByte(s.buf[from:to], 0); i >= 0 {
		at := from + i
		s.nulAt = s.base + at
		s.nulLine = s.line + bytes.Count(s.buf[s.lpos:at], nl)
	}
}

// lineAt returns the line number of buf[p]; p never moves backwards.
func (s *splitter) lineAt(p int) int {
	if p > s.lpos {
		seg := s.buf[s.lpos:p]
		if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
			s.line += bytes.Count(seg[:i+1], nl)
			s.col = 1 + columns(seg[i+1:])
		} else {
			s.col += columns(seg)
		}
		s.lpos = p
	}
	return s.line
}

// columns counts the characters in b as the decoder does: every byte that
// does not continue a UTF-8 sequence.
func columns(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 || c >= 0xC0 {
			n++
		}
	}
	return n
}

// at returns a document starting at buf[p] on line: its position in the input.
func (s *splitter) at(p, line, index int, raw []byte) rawDoc {
	s.lineAt(p)
	return rawDoc{line: line, col: s.col, off: s.base + p, index: index, raw: raw}
}

var nl = []byte{'\n'}

// bom is U+FEFF in UTF-8, which editors on Windows put before a JSON text.
var bom = []byte{0xEF, 0xBB, 0xBF}

func (s *splitter) send(d rawDoc) {
	if s.stopped {
		return
	}
	// A document or a failure that reaches the NUL byte becomes the one
	// finding for the rest of a binary input. Being positional, this does
	// not depend on how the reads were cut.
	reach := s.base + s.pos + 1
	if d.raw != nil {
		reach = d.off + len(d.raw)
	}
	if s.nulAt >= 0 && reach > s.nulAt {
		d = rawDoc{line: s.nulLine, index: -1, fail: &rules.Finding{Rule: rules.InputSyntax, Expected: "a JSON text", Found: "binary data",
			Message: fmt.Sprintf("NUL byte at byte %d: this looks like a binary file, not JSON; the rest of the file is skipped", s.nulAt)}}
		s.stopped = true
	}
	s.docs++
	if !s.emit(d) {
		s.stopped = true
	}
}

func (s *splitter) failAt(line, index int, r *rules.Rule, expected, found, msg string) {
	s.send(rawDoc{line: line, index: index, fail: &rules.Finding{Rule: r, Expected: expected, Found: found, Message: msg}})
}

// skipWS skips JSON whitespace, reading as needed; false at end of input.
func (s *splitter) skipWS() bool {
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case ' ', '\t', '\r', '\n':
				s.pos++
			default:
				return true
			}
		}
		if !s.fill() {
			return false
		}
	}
}

// run splits the whole input. lines forces NDJSON reading.
func (s *splitter) run(lines bool) error {
	// One read, not a fixed amount: on a live stream the first document
	// may be all there is for a while.
	if !s.fill() && s.end == 0 {
		return s.err
	}
	switch {
	case s.whole:
		s.message()
	case lines:
		s.lines()
	case !s.skipWS():
	case s.buf[s.pos] == '[':
		s.array()
	default:
		s.values()
	}
	return s.err
}

// message sends the whole input as one document.
func (s *splitter) message() {
	for s.end-s.pos <= MaxDocument && s.fill() {
	}
	if size := s.end - s.pos; size > MaxDocument {
		for s.pos = s.end; s.fill(); s.pos = s.end {
			size += s.end - s.pos
		}
		s.tooLarge(1, -1, size, "")
		return
	}
	if len(bytes.TrimLeft(s.buf[s.pos:s.end], " \t\r\n")) == 0 {
		return // empty: the caller says so
	}
	s.send(s.at(s.pos, 1, -1, s.buf[s.pos:s.end]))
	s.pos = s.end
}

// lines reads NDJSON: every non-blank line is one document, and a broken line
// only costs that line.
func (s *splitter) lines() {
	for !s.stopped {
		i := bytes.IndexByte(s.buf[s.pos:s.end], '\n')
		if i < 0 {
			if s.end-s.pos > MaxDocument {
				s.skipLongLine()
				continue
			}
			if s.fill() {
				continue
			}
			// Last line without a newline.
			s.lineDoc(s.buf[s.pos:s.end], s.pos)
			s.pos = s.end
			return
		}
		start := s.pos
		s.lineDoc(s.buf[start:start+i], start)
		s.pos += i + 1
		if s.lpos == start {
			// The line's start is counted (lineDoc asked lineAt): the next
			// one starts a line further, so lineAt need not count it again.
			s.line, s.col, s.lpos = s.line+1, 1, s.pos
		}
	}
}

func (s *splitter) lineDoc(b []byte, at int) {
	// The edge bytes first: trimming with a cutset builds a set every call.
	t := b
	if n := len(t); n > 0 && (t[n-1] == ' ' || t[n-1] == '\t' || t[n-1] == '\r') {
		t = bytes.TrimRight(t, " \t\r")
	}
	if len(t) == 0 || (t[0] == ' ' || t[0] == '\t') && len(bytes.TrimLeft(t, " \t")) == 0 {
		return
	}
	if len(t) > MaxDocument {
		s.tooLarge(s.lineAt(at), -1, len(t), "")
		return
	}
	s.send(s.at(at, s.lineAt(at), -1, t))
}

// skipLongLine drops a line longer than MaxDocument up to its newline.
func (s *splitter) skipLongLine() {
	line := s.lineAt(s.pos)
	size := 0
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
			size += i
			s.pos += i + 1
			break
		}
		size += s.end - s.pos
		s.pos = s.end
		if !s.fill() {
			break
		}
	}
	s.tooLarge(line, -1, size, "")
}

func (s *splitter) tooLarge(line, index, size int, extra string) {
	s.failAt(line, index, rules.InputTooLarge, "at most 1048576 bytes", strconv.Itoa(size)+" bytes",
		"document is larger than 1 MiB; skipped without reading it into memory"+extra)
}

// values reads concatenated top-level values.
func (s *splitter) values() {
	first := true
	for !s.stopped && s.skipWS() {
		line := s.lineAt(s.pos)
		if !s.value(line, -1, true) {
			return
		}
		if first && s.aloneOnLine(line) {
			s.lines()
			return
		}
		first = false
	}
}

// aloneOnLine reports whether the value just read started on line and is
// followed by the end of that line: the sign of NDJSON.
func (s *splitter) aloneOnLine(line int) bool {
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case ' ', '\t', '\r':
				s.pos++
			case '\n':
				if s.lineAt(s.pos) == line {
					s.pos++
					return true
				}
				return false
			default:
				return false
			}
		}
		if !s.fill() {
			return false
		}
	}
}

// array reads a top-level array whose elements are the documents.
func (s *splitter) array() {
	open := s.lineAt(s.pos)
	s.pos++ // '['
	for idx := 0; !s.stopped; idx++ {
		if !s.skipWS() {
			s.failAt(open, -1, rules.InputSyntax, "']'", "end of input",
				fmt.Sprintf("unexpected end of input: the array opened on line %d is not closed", open))
			return
		}
		if idx == 0 && s.buf[s.pos] == ']' {
			s.pos++
			break
		}
		line := s.lineAt(s.pos)
		if !s.value(line, idx, false) {
			return
		}
		if !s.skipWS() {
			s.failAt(s.lineAt(s.pos), -1, rules.InputSyntax, "',' or ']'", "end of input",
				fmt.Sprintf("unexpected end of input after array element %d: the array opened on line %d is not closed", idx, open))
			return
		}
		c := s.buf[s.pos]
		if c == ',' {
			s.pos++
			continue
		}
		if c == ']' {
			s.pos++
			break
		}
		s.failAt(s.lineAt(s.pos), -1, rules.InputSyntax, "',' or ']'", quoteByte(c),
			fmt.Sprintf("unexpected character after array element %d; the rest of the file is skipped", idx))
		return
	}
	if !s.stopped && s.skipWS() {
		s.failAt(s.lineAt(s.pos), -1, rules.InputSyntax, "end of input", quoteByte(s.buf[s.pos]),
			"unexpected data after the top-level array; the rest of the file is skipped")
	}
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

// value cuts one value starting at s.pos and sends it. It returns false when
// the rest of the input cannot be split any further.
func (s *splitter) value(line, index int, top bool) bool {
	c := s.buf[s.pos]
	switch {
	case c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
	default:
		// Not the start of any value: resynchronising inside one JSON text is
		// guesswork, so one finding covers the rest of the file.
		rule, found, msg := rules.InputSyntax, quoteByte(c), "unexpected "+quoteByte(c)+" where a JSON value should start"
		if bytes.HasPrefix(s.buf[s.pos:s.end], bom) {
			rule, found, msg = rules.InputBOM, "byte order mark U+FEFF", "a UTF-8 byte order mark where a JSON value should start (RFC 8259 §8.1: JSON senders MUST NOT add one; save the file without it)"
		}
		s.failAt(line, index, rule, "a JSON value", found, msg+"; the rest of the file is skipped")
		return false
	}
	var sc scanState
	k := 0 // scan offset from s.pos
	size := 0
	skipping := false
	for {
		n, done := sc.scan(s.buf[s.pos+k : s.end])
		k += n
		if done {
			break
		}
		if k > MaxDocument && !skipping {
			skipping = true
		}
		if skipping {
			size += k
			s.lineAt(s.pos + k)
			s.pos += k
			k = 0
		}
		if !s.fill() {
			break // truncated: the decoder reports where
		}
	}
	if skipping {
		size += k
		s.lineAt(s.pos + k)
		s.pos += k
		extra := ""
		if !sc.done() {
			extra = " (it is also truncated)"
		}
		s.tooLarge(line, index, size, extra)
		return sc.done()
	}
	if k > MaxDocument {
		s.tooLarge(line, index, k, "")
		s.pos += k
		return sc.done()
	}
	s.send(s.at(s.pos, line, index, s.buf[s.pos:s.pos+k]))
	s.pos += k
	return sc.done()
}

// scanState finds where a JSON value ends without decoding it. Bracket kinds
// are not matched: the decoder reports such mistakes precisely later.
type scanState struct {
	started bool
	depth   int
	inStr   bool
	esc     bool
	scalar  bool
	fin     bool
}

func (sc *scanState) done() bool { return sc.fin }

// scan consumes b and returns how many bytes belong to the value and
// whether the value ended within b.
func (sc *scanState) scan(b []byte) (int, bool) {
	i := 0
	if !sc.started && len(b) > 0 {
		sc.started = true
		switch b[0] {
		case '{', '[':
			sc.depth = 1
		case '"':
			sc.inStr = true
		default:
			sc.scalar = true
		}
		i = 1
	}
	if sc.scalar {
		for ; i < len(b); i++ {
			switch b[i] {
			case ' ', '\t', '\r', '\n', ',', ']', '}', '[', '{', '"', ':':
				sc.fin = true
				return i, true
			}
		}
		return i, false
	}
	for i < len(b) {
		if sc.inStr {
			if sc.esc { // the escaped byte was cut off by the last read
				sc.esc = false
				i++
				continue
			}
			j := indexQuoteOrBackslash(b[i:])
			if j < 0 {
				return len(b), false
			}
			i += j
			if b[i] == '\\' {
				if i+1 < len(b) {
					i += 2
				} else {
					sc.esc = true
					i++
				}
				continue
			}
			sc.inStr = false
			i++
			if sc.depth == 0 {
				sc.fin = true
				return i, true
			}
			continue
		}
		switch b[i] {
		case '"':
			sc.inStr = true
		case '{', '[':
			sc.depth++
		case '}', ']':
			sc.depth--
			if sc.depth == 0 {
				sc.fin = true
				return i + 1, true
			}
		}
		i++
	}
	return i, false
}

// indexQuoteOrBackslash finds the next '"' or '\\'.
func indexQuoteOrBackslash(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}
