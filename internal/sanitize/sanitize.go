// Package sanitize makes strings that aghcheck did not write safe to print:
// what an implementation under test sends (display names, versions, ids,
// reason codes, texts, stderr lines) and what an input file holds (file
// names, JSON member names). Every human-readable output passes such data
// through here, so that no peer and no file can
//
//   - drive a terminal (ESC and CSI sequences, OSC 8 links, window titles,
//     a backspace that hides text, C1 controls that some terminals obey),
//   - reorder what a reader sees (bidi overrides and isolates),
//   - start a line of its own (CR, LF, U+2028): CI runners split lines on a
//     bare CR too, and a line that starts with "::" is a GitHub Actions
//     workflow command (::error, ::stop-commands::, ::add-mask::),
//   - add structure to Markdown, or make XML or YAML that does not parse.
//
// The escapes are visible (\x1b, \u202e, \r) so a reader sees that the
// data held them. Secrets aghcheck holds are redacted here too (see
// AddSecret), so that a token an IUT logs never reaches a report.
package sanitize

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// escapeRune is the visible form of r when r must not reach an output raw,
// or "" when r is safe.
func escapeRune(r rune) string {
	switch {
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r < 0x20 || r == 0x7f:
		return `\x` + hex2(byte(r))
	case r >= 0x80 && r <= 0x9f: // C1: CSI (U+009B), OSC (U+009D), NEL, ...
		return `\u00` + hex2(byte(r))
	case r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r >= 0x2066 && r <= 0x2069,            // bidi isolates
		r == 0x200e, r == 0x200f, r == 0x061c, // bidi marks
		r == 0x2028, r == 0x2029, // line and paragraph separators
		r == 0xfeff,              // byte order mark, invisible
		r == 0xfffe, r == 0xffff: // not characters; XML 1.0 cannot carry them
		return `\u` + strings.ToLower(strconv.FormatInt(int64(r)|0x10000, 16)[1:])
	}
	return ""
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&0xf]})
}

// Text is s made safe to print within one line: control characters, bidi
// controls and line breaks escaped visibly, invalid UTF-8 bytes shown as
// \xNN, a leading "::" (after any blanks) escaped so the line cannot be a
// workflow command, and every registered secret redacted.
func Text(s string) string {
	s = Redact(s)
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	lead := true // still in the blanks that open s
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(`\x` + hex2(s[i]))
			i++
			lead = false
			continue
		}
		if lead && r == ':' && strings.HasPrefix(s[i:], "::") {
			b.WriteString(`\x3a`)
			i++
			lead = false
			continue
		}
		if r != ' ' {
			lead = false
		}
		if e := escapeRune(r); e != "" {
			b.WriteString(e)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether Text has nothing to change in s (the common case,
// checked without allocating).
func clean(s string) bool {
	if strings.HasPrefix(strings.TrimLeft(s, " "), "::") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			if c < 0x80 {
				return false
			}
			// Multi-byte: decode and look at the rune.
			r, n := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && n == 1) || escapeRune(r) != "" {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// Lines is s made safe to print as lines of its own (an IUT's stdout or
// stderr): each line passes through Text, and the line breaks between them
// stay (CRLF counts as one break; a bare CR is escaped).
func Lines(s string) string {
	if s == "" {
		return s
	}
	s = Redact(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Text(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n")
}

// markdownEscaper escapes what would give a Markdown table cell structure:
// the cell's end (|), raw HTML (<, >, &), code spans (`), links and images
// ([, ]), and a backslash that would escape what follows it.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;",
	"`", "\\`", "[", `\[`, "]", `\]`,
)

// Markdown is s made safe for a Markdown table cell or list item: Text,
// then Markdown's own structure escaped.
func Markdown(s string) string {
	return markdownEscaper.Replace(Text(s))
}

// YAMLComment is s made safe to follow "# " in a YAML file: one line, no
// control character (Text does both).
func YAMLComment(s string) string { return Text(s) }
