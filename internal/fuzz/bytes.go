package fuzz

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// bytesOp is one change of the bytes themselves.
type bytesOp struct {
	name, words string
	ext         string // raw JSON spliced in as an extension value
	edit        func(txt string) string
}

// placeholder marks where a bytes mutation splices raw JSON text in.
const placeholder = "\x00aghcheck-splice\x00"

// bytesOps change the payload itself, as text (with the case's templates
// in it) or, for bytes that are not UTF-8, as fixed bytes.
var bytesOps = []bytesOp{
	{"bom", "a UTF-8 byte order mark before the JSON", "", func(s string) string { return "\ufeff" + s }},
	{"trailing", "bytes after the JSON object", "", func(s string) string { return s + " }" }},
	{"two-envelopes", "two envelopes in one payload", "", func(s string) string { return s + "\n" + s }},
	{"duplicate-member", "the member id twice", "", func(s string) string { return `{"id":"{{id.twice}}",` + s[1:] }},
	{"deep-nesting", "arrays nested 200 deep in an extension", strings.Repeat("[", 200) + strings.Repeat("]", 200), nil},
	{"huge-number", "the number 1e400 in an extension", "1e400", nil},
	{"long-number", "a 400-digit integer in an extension", strings.Repeat("9", 400), nil},
	{"array", "the envelope inside a JSON array", "", func(s string) string { return "[" + s + "]" }},
	{"string", "a JSON string instead of an object", "", func(string) string { return `"hello"` }},
	{"empty", "an empty payload", "", func(string) string { return "" }},
	{"not-json", "text that is not JSON", "", func(string) string { return "say hello" }},
	{"pretty", "the JSON indented over many lines", "", indent},
	{"escaped", "the kind's first letter written as a \\u escape", "", escapeKind},
}

// numberTemplate is a template that stands for a number: unquoted in raw
// JSON text.
var numberTemplate = regexp.MustCompile(`"(\{\{\s*now\s*[-+]?\s*\d*\s*\}\})"`)

// rawText is the draft's envelope as JSON text with its templates in it.
func rawText(env map[string]any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return "", err
	}
	return numberTemplate.ReplaceAllString(strings.TrimSuffix(b.String(), "\n"), "$1"), nil
}

// escapeKind writes the first letter of the kind's value as a \u escape:
// the same string, spelt another way.
func escapeKind(s string) string {
	i := strings.Index(s, `"kind":"`) + len(`"kind":"`)
	return s[:i] + fmt.Sprintf(`\u%04x`, s[i]) + s[i+1:]
}

func indent(s string) string {
	var b strings.Builder
	depth := 0
	inStr, esc := false, false
	for _, r := range s {
		b.WriteRune(r)
		switch {
		case esc:
			esc = false
		case inStr && r == '\\':
			esc = true
		case r == '"':
			inStr = !inStr
		case inStr:
		case r == '{' || r == '[':
			depth++
			b.WriteString("\n" + strings.Repeat("  ", depth))
		case r == ',':
			b.WriteString("\n" + strings.Repeat("  ", depth))
		}
	}
	return b.String()
}

// bytes replaces the draft's envelope with raw bytes: the last mutation a
// draft gets. A signed draft keeps its envelope (bytes cannot be signed).
func (g *generator) bytes(d *draft) bool {
	if d.seed.sign || d.send.Envelope == nil {
		return false
	}
	op := -1 // not UTF-8
	if g.rng.IntN(len(bytesOps)+1) != 0 {
		op = g.rng.IntN(len(bytesOps))
	}
	return d.applyBytes(op)
}

// applyBytes changes d's envelope into bytes by bytesOps[op] (-1: a byte
// that is not UTF-8), keeping the envelope it started from: minimization
// shrinks that and changes it again.
func (d *draft) applyBytes(op int) bool {
	pre := d.send
	if op < 0 {
		if !d.notUTF8() {
			return false
		}
	} else if !d.rawOp(bytesOps[op]) {
		return false
	}
	d.pre, d.bytesOp = &pre, op
	return true
}

func (d *draft) rawOp(op bytesOp) bool {
	env := d.send.Envelope
	if op.ext != "" {
		env = jsonx.Copy(env).(map[string]any)
		ext, _ := env["ext"].(map[string]any)
		if ext == nil {
			ext = map[string]any{}
		}
		ext["org.example.raw"] = placeholder
		env["ext"] = ext
	}
	txt, err := rawText(env)
	if err != nil {
		return false
	}
	if op.ext != "" {
		txt = strings.Replace(txt, `"\u0000aghcheck-splice\u0000"`, op.ext, 1)
	}
	if op.edit != nil {
		if op.name == "escaped" && !strings.Contains(txt, `"kind":"`+d.seed.kind) {
			return false
		}
		txt = op.edit(txt)
	}
	d.send.Envelope, d.send.Drop, d.send.Digest, d.send.Raw = nil, nil, false, &txt
	d.note("bytes:"+op.name, op.words)
	return true
}

// notUTF8 puts a byte that is not UTF-8 into a string of the message, an
// extension's (not an id: a decoder that repairs the byte would answer
// under an id no one sent), written {{byte.ff}} so that the scenario file
// stays text and the message carries the case's own identities. A
// receiver may take it or refuse it (INPUT-UTF8 binds the publisher), and
// must survive it.
func (d *draft) notUTF8() bool {
	return d.rawOp(bytesOp{"not-utf8", "a byte that is not UTF-8 in an extension string", `"caf{{byte.ff}}"`, nil})
}

// short is v in at most 40 characters, for a case's description.
func short(v any) string {
	b, err := json.Marshal(v)
	s := string(b)
	if err != nil {
		s = fmt.Sprint(v)
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}
