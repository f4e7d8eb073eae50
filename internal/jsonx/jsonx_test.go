package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/rules"
)

func TestDecodeValues(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`{}`, map[string]any{}},
		{`[]`, []any{}},
		{` {"a":1,"b":[true,false,null],"c":"x"} `, map[string]any{"a": json.Number("1"), "b": []any{true, false, nil}, "c": "x"}},
		{`"\u00e9\ud83d\ude00\n\t\"\\\/"`, "é😀\n\t\"\\/"},
		{`-0.5e+10`, json.Number("-0.5e+10")},
		{`"héllo"`, "héllo"},
		{`1e308`, json.Number("1e308")},
		{`123456789012345678901234567890`, json.Number("123456789012345678901234567890")},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, fs, ok := Decode([]byte(tc.in))
			if !ok || len(fs) != 0 {
				t.Errorf("Decode(%s): ok=%v findings=%v", tc.in, ok, fs)
				return
			}
			if !reflect.DeepEqual(v, tc.want) {
				t.Errorf("Decode(%s) = %#v, want %#v", tc.in, v, tc.want)
			}
		})
	}
}

func TestDecodeFindings(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	okDeep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	tests := []struct {
		name    string
		in      string
		rule    *rules.Rule
		ok      bool
		pointer string
		msg     string // substring of the message
	}{
		{"truncated object", `{"a":1`, rules.InputSyntax, false, "", "unexpected end of input"},
		{"truncated string", `{"a":"xy`, rules.InputSyntax, false, "/a", "end of input"},
		{"empty", "  ", rules.InputSyntax, false, "", "empty input"},
		{"trailing garbage", `{} x`, rules.InputSyntax, false, "", "byte 3 (line 1, column 4)"},
		{"second line", "{\n\"a\":\n}", rules.InputSyntax, false, "/a", "line 3, column 1"},
		{"trailing comma", `[1,]`, rules.InputSyntax, false, "/1", "unexpected character"},
		{"single quote", `{'a':1}`, rules.InputSyntax, false, "", "member name"},
		{"bad literal", `tru`, rules.InputSyntax, false, "", "literal true"},
		{"leading zero", `01`, rules.InputSyntax, false, "", "after the value"},
		{"bad escape", `"\x"`, rules.InputSyntax, false, "", "invalid escape"},
		{"bad unicode escape", `"\u12"`, rules.InputSyntax, false, "", `invalid \u escape`},
		{"control char", "\"a\x01\"", rules.InputSyntax, false, "", "control"},
		{"invalid utf8 in string", "{\"a\":\"\xff\"}", rules.InputUTF8, false, "/a", "invalid UTF-8"},
		{"invalid utf8 outside", "\xfe{}", rules.InputUTF8, false, "", "invalid UTF-8"},
		{"overlong utf8", "\"\xc0\xaf\"", rules.InputUTF8, false, "", "invalid UTF-8"},
		{"surrogate utf8", "\"\xed\xa0\x80\"", rules.InputUTF8, false, "", "invalid UTF-8"},
		{"lone surrogate escape", `{"s":"\ud800"}`, rules.InputUTF8, true, "/s", "unpaired"},
		{"duplicate key", `{"a":{"b":1,"b":2}}`, rules.InputDuplicateKey, true, "/a/b", `"b"`},
		{"deep", deep, rules.InputDepth, false, strings.Repeat("/0", MaxDepth), "too deep"},
		{"huge exponent", `{"n":[1e400]}`, rules.InputNumber, true, "/n/0", "overflows"},
		{"huge integer", strings.Repeat("9", 400), rules.InputNumber, true, "", "overflows"},
		{"binary junk", "\x00\x01\x02", rules.InputSyntax, false, "", "control byte 0x00"},
		{"minus only", `-`, rules.InputSyntax, false, "", "digit"},
		{"dot no digits", `1.`, rules.InputSyntax, false, "", "digit after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, fs, ok := Decode([]byte(tc.in))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (findings %v)", ok, tc.ok, fs)
			}
			if len(fs) != 1 {
				t.Fatalf("findings = %v, want exactly one", fs)
			}
			f := fs[0]
			if f.Rule != tc.rule || f.Pointer != tc.pointer || !strings.Contains(f.String(), tc.msg) {
				t.Errorf("finding = %s %q %q, want %s %q containing %q", f.Rule.ID, f.Pointer, f.String(), tc.rule.ID, tc.pointer, tc.msg)
			}
		})
	}
	if _, fs, ok := Decode([]byte(okDeep)); !ok || len(fs) != 0 {
		t.Errorf("depth %d must be accepted: %v", MaxDepth, fs)
	}
}

func TestDuplicateLastWins(t *testing.T) {
	v, fs, ok := Decode([]byte(`{"k":1,"k":2,"k":3}`))
	if !ok || len(fs) != 2 {
		t.Fatalf("ok=%v findings=%v", ok, fs)
	}
	if got := v.(map[string]any)["k"]; got != json.Number("3") {
		t.Errorf("k = %v, want 3", got)
	}
}

func TestDecodeLineOffsets(t *testing.T) {
	_, fs, _ := DecodeLine([]byte("{\n\"a\" 1}"), 40)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "line 41") {
		t.Fatalf("findings = %v", fs)
	}
}

// TestMatchesEncodingJSON checks the decoder against encoding/json on the
// sample documents used by the benchmarks.
func TestMatchesEncodingJSON(t *testing.T) {
	for _, doc := range sampleDocs {
		t.Run(sampleName(doc), func(t *testing.T) {
			checkAgainstStd(t, []byte(doc))
		})
	}
}

// sampleName names a sample document for its subtest: by its kind ("say"),
// or "array" for the one that is no envelope.
func sampleName(doc string) string {
	if _, rest, ok := strings.Cut(doc, `"kind":"`); ok {
		kind, _, _ := strings.Cut(rest, `"`)
		return kind
	}
	return "array"
}

// docName names a test document's subtest: the document itself, a byte
// that is not UTF-8 written \xNN, cut after 24 bytes (at a character
// boundary) with its length when it is longer.
func docName(doc string) string {
	name := doc
	if len(doc) > 24 {
		cut := 24
		for cut > 0 && !utf8.RuneStart(doc[cut]) {
			cut--
		}
		name = doc[:cut]
	}
	var b strings.Builder
	for len(name) > 0 {
		r, size := utf8.DecodeRuneInString(name)
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, name[0])
		} else {
			b.WriteString(name[:size])
		}
		name = name[size:]
	}
	if len(doc) > 24 {
		fmt.Fprintf(&b, "…(%d bytes)", len(doc))
	}
	return b.String()
}

func checkAgainstStd(t *testing.T, data []byte) {
	t.Helper()
	v, fs, ok := Decode(data)
	stdValid := json.Valid(data)
	if ok && !stdValid {
		t.Fatalf("accepted what encoding/json rejects: %q", data)
	}
	if !stdValid || !utf8.Valid(data) {
		return
	}
	if !ok {
		// The only documents encoding/json takes and we refuse are too deep.
		if len(fs) != 1 || fs[0].Rule != rules.InputDepth {
			t.Fatalf("rejected valid %q: %v", data, fs)
		}
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("Decode(%q) = %#v, encoding/json gives %#v", data, v, want)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range sampleDocs {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":1,"a":2}`, `[1e999]`, "\"\xff\"", `"\ud800\udc00"`, `"\udc00"`, `{"a":[`, `-0.0e-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstStd(t, data)
	})
}

var sampleDocs = []string{
	`{"protocol":"agh.network/v0","id":"msg_01J9Z3K4","kind":"say","workspace":"acme","channel":"general","surface":"channel","from":"agent-a","to":null,"body":{"text":"hello, world \u00e9 \ud83d\ude00"},"created_at":1735689600,"proof":null,"ext":{}}`,
	`{"protocol":"agh.network/v0","kind":"greet","from":"peer-1","body":{"peer_card":{"peer_id":"peer-1","capabilities":["a","b"],"transports":[],"trust":[],"ext":{"x":[1,2.5,-3e2,true,false,null]}}}}`,
	`[{"a":"b"},{"c":[[],[{}]]},"s",0,-1.25E-3]`,
}

func BenchmarkDecode(b *testing.B) {
	data := []byte(sampleDocs[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := Decode(data); !ok {
			b.Fatal("not ok")
		}
	}
}

func BenchmarkStdlibDecode(b *testing.B) {
	data := []byte(sampleDocs[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
	}
}
