package sanitize

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// Hostile is one string that carries everything a peer or a file could
// use against an output: ESC and an OSC 8 link, a window-title change, C1
// CSI, a bare CR, a backspace, a bidi override, HTML, Markdown and
// workflow commands after line breaks.
const Hostile = "::error::x\x1b[31mred\x1b]8;;http://evil/\x07link\x1b]8;;\x07\x1b]0;title\x07" +
	"\u009b31m\rCR\bBS\u202eevil\u2066 <script>alert(1)</script> | **b** [l](http://e) `c`" +
	"\n::error title=forged::pwned\r\n::stop-commands::tok\n  ::warning::w\x00\xff"

func TestTextLeavesNothingRaw(t *testing.T) {
	got := Text(Hostile)
	for _, r := range got {
		if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == unicode.ReplacementChar {
			t.Fatalf("Text left %U raw in %q", r, got)
		}
	}
	if strings.HasPrefix(got, "::") {
		t.Fatalf("Text left a leading workflow command: %q", got)
	}
	for _, want := range []string{`\x1b[31m`, `\u009b`, `\r`, `\x08`, `\u202e`, `\u2066`, `\n::error title=`, `\xff`, `\x00`} {
		if !strings.Contains(got, want) {
			t.Errorf("Text(%q) = %q, want it to show %s", Hostile, got, want)
		}
	}
	if Text("plain text: ok") != "plain text: ok" {
		t.Error("Text changed a plain string")
	}
	if got := Text("   ::warning::x"); !strings.HasPrefix(got, `   \x3a:`) {
		t.Errorf("leading blanks then ::, got %q", got)
	}
}

func TestLinesKeepsLineBreaksOnly(t *testing.T) {
	got := Lines(Hostile)
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "::") {
			t.Errorf("line %q can start a workflow command", l)
		}
		if strings.ContainsAny(l, "\r\x1b\b") {
			t.Errorf("line %q holds a control character", l)
		}
	}
	if n := strings.Count(got, "\n"); n != 3 {
		t.Errorf("Lines kept %d line breaks, want 3: %q", n, got)
	}
}

func TestMarkdownHasNoStructure(t *testing.T) {
	got := Markdown(Hostile)
	for _, bad := range []string{"<script", "\r", "\n", "``"} {
		if strings.Contains(got, bad) {
			t.Errorf("Markdown left %q in %q", bad, got)
		}
	}
	for i, c := range got {
		if strings.ContainsRune("|`[]<>", c) && (i == 0 || got[i-1] != '\\') {
			t.Errorf("Markdown left %q unescaped at %d in %q", c, i, got)
		}
	}
}

func TestJSONEscapesWhatEncodingJSONLeaves(t *testing.T) {
	b, _ := json.Marshal(map[string]string{Hostile: Hostile})
	var out bytes.Buffer
	w := NewJSONWriter(&out)
	for i := range b { // one byte at a time: characters split across writes
		if _, err := w.Write(b[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Close()
	for _, r := range out.String() {
		if unicode.IsControl(r) && r != '\n' || r == 0x202e || r == 0x2066 {
			t.Fatalf("JSON left %U raw: %q", r, out.String())
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	want := strings.ToValidUTF8(Hostile, "\ufffd")
	if back[want] != want {
		t.Errorf("JSON did not read back the same: %q", back)
	}
}

func TestRedact(t *testing.T) {
	AddSecret("s3cr3t-token", "pa:ss/word")
	for _, tc := range []struct{ name, in, want string }{
		{"secret", "token s3cr3t-token in a log", "token [redacted] in a log"},
		{"url-password", "nats://alice:hunter22@host:4222/x", "nats://[redacted]@host:4222/x"},
		{"two-urls", "dial nats://tok@h:1, nats://u:p@h2 failed", "dial nats://[redacted]@h:1, nats://[redacted]@h2 failed"},
		{"escaped-secret", "nats://u:pa%3Ass%2Fword@h", "nats://[redacted]@h"},
		{"secret-alone", "pa:ss/word", "[redacted]"},
		{"no-credentials", "mail a@b.c, see https://x.y/z", "mail a@b.c, see https://x.y/z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.in); got != tc.want {
				t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := Text("\x1bs3cr3t-token"); got != `\x1b[redacted]` {
		t.Errorf("Text does not redact: %q", got)
	}
}

type inner struct {
	Name string
	Out  string `sanitize:"lines"`
	Raw  json.RawMessage
	Any  map[string]any
	List []*inner
}

func TestCopyReachesEveryString(t *testing.T) {
	v := &inner{Name: Hostile, Out: "a\x1b\nb", Raw: json.RawMessage(`{"k":"` + "\u009b" + `"}`),
		Any: map[string]any{Hostile: []any{Hostile, 1.0}}, List: []*inner{{Name: "\x1b"}}}
	c := Copy(v)
	if c == v || c.Name != Text(Hostile) || c.Out != `a\x1b`+"\nb" || string(c.Raw) != `{"k":"\u009b"}` ||
		c.Any[Text(Hostile)].([]any)[0] != Text(Hostile) || c.List[0].Name != `\x1b` {
		t.Fatalf("Copy missed a string: %+v", c)
	}
	if v.Name != Hostile {
		t.Fatal("Copy changed its argument")
	}
}

// A document of aghcheck validate, as its writers get one per input
// document: the copy is paid on every document, valid or not.
type benchRule struct{ ID string }

type benchFinding struct {
	Rule                              *benchRule
	Pointer, Expected, Found, Message string
}

type benchDoc struct {
	Source, Profile, Trust string
	Line, Index            int
	Valid                  bool
	Findings               []benchFinding
	At                     []struct{ Line, Column int }
}

func BenchmarkCopyDocument(b *testing.B) {
	keep := reflect.TypeOf((*benchRule)(nil))
	valid := &benchDoc{Source: "testdata/envelopes.ndjson", Profile: "agh-network-v0", Trust: "unsigned", Line: 12, Valid: true}
	invalid := &benchDoc{Source: "testdata/envelopes.ndjson", Profile: "agh-network-v0", Line: 13,
		Findings: []benchFinding{{Rule: &benchRule{ID: "ENV-ID"}, Pointer: "/id", Expected: "a UUID", Found: `"x"`}},
		At:       []struct{ Line, Column int }{{13, 9}}}
	for _, bc := range []struct {
		name string
		doc  *benchDoc
	}{{"valid", valid}, {"invalid", invalid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Copy(bc.doc, keep) == bc.doc {
					b.Fatal("not copied")
				}
			}
		})
	}
}
