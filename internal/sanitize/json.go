package sanitize

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// JSON escapes, in JSON text b, what encoding/json leaves raw but a terminal
// may obey or a reader misread: C1 controls, bidi controls, U+2028/U+2029
// (already escaped by encoding/json) and raw control bytes. These only
// occur inside strings in valid JSON, where \uXXXX means the same
// character, so the document reads back unchanged. Registered secrets are
// redacted.
func JSON(b []byte) []byte {
	return escapeJSON([]byte(Redact(string(b))))
}

func escapeJSON(b []byte) []byte {
	if jsonClean(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out.WriteString(`\ufffd`)
		case r == '\n' || r == '\t' || r == '\r' || r == ' ':
			out.WriteByte(b[i]) // whitespace between tokens
		case escapeRune(r) != "":
			out.WriteString(`\u` + hex4(r))
		default:
			out.Write(b[i : i+n])
		}
		i += n
	}
	return out.Bytes()
}

func hex4(r rune) string {
	return hex2(byte(r>>8)) + hex2(byte(r))
}

func jsonClean(b []byte) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\n' || c == '\t' || c == '\r' {
			continue
		}
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRune(b[i:])
			if (r == utf8.RuneError && n == 1) || escapeRune(r) != "" {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// JSONWriter escapes, in the JSON text written through it, what JSON
// leaves raw inside strings but a terminal may obey (see JSON). A character
// split across two writes is held until its end arrives.
type JSONWriter struct {
	w    io.Writer
	tail []byte
}

// NewJSONWriter returns a JSONWriter on w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

func (j *JSONWriter) Write(p []byte) (int, error) {
	b := append(j.tail, p...)
	j.tail = nil
	// Hold back an incomplete character at the end.
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		if c := b[len(b)-k]; c >= 0xc0 { // a leading byte
			if !utf8.FullRune(b[len(b)-k:]) {
				j.tail = append([]byte(nil), b[len(b)-k:]...)
				b = b[:len(b)-k]
			}
			break
		} else if c < 0x80 {
			break
		}
	}
	if _, err := j.w.Write(escapeJSON(b)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what is held back (an incomplete character, as \ufffd).
func (j *JSONWriter) Close() error {
	if len(j.tail) == 0 {
		return nil
	}
	_, err := j.w.Write(escapeJSON(j.tail))
	j.tail = nil
	return err
}
