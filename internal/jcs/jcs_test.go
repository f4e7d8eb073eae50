package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/jsontest"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// decode decodes s as the tool does (jsonx), the input jcs.Canonicalize is built for.
func decode(t testing.TB, s string) any { t.Helper(); return jsontest.Decode(t, []byte(s)) }

// RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
var rfcNumbers = []struct {
	bits string
	want string // "" means the value must be refused
}{
	{"0000000000000000", "0"},
	{"8000000000000000", "0"},
	{"0000000000000001", "5e-324"},
	{"8000000000000001", "-5e-324"},
	{"7fefffffffffffff", "1.7976931348623157e+308"},
	{"ffefffffffffffff", "-1.7976931348623157e+308"},
	{"4340000000000000", "9007199254740992"},
	{"c340000000000000", "-9007199254740992"},
	{"4430000000000000", "295147905179352830000"},
	{"7fffffffffffffff", ""},
	{"7ff0000000000000", ""},
	{"44b52d02c7e14af5", "9.999999999999997e+22"},
	{"44b52d02c7e14af6", "1e+23"},
	{"44b52d02c7e14af7", "1.0000000000000001e+23"},
	{"444b1ae4d6e2ef4e", "999999999999999700000"},
	{"444b1ae4d6e2ef4f", "999999999999999900000"},
	{"444b1ae4d6e2ef50", "1e+21"},
	{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
	{"3eb0c6f7a0b5ed8d", "0.000001"},
	{"41b3de4355555553", "333333333.3333332"},
	{"41b3de4355555554", "333333333.33333325"},
	{"41b3de4355555555", "333333333.3333333"},
	{"41b3de4355555556", "333333333.3333334"},
	{"41b3de4355555557", "333333333.33333343"},
	{"becbf647612f3696", "-0.0000033333333333333333"},
	{"43143ff3c1cb0959", "1424953923781206.2"},
}

func TestRFC8785Numbers(t *testing.T) {
	for _, tc := range rfcNumbers {
		t.Run(tc.bits, func(t *testing.T) {
			u, err := strconv.ParseUint(tc.bits, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			f := math.Float64frombits(u)
			got, err := Canonicalize(f)
			if tc.want == "" {
				if !errors.Is(err, ErrNumber) {
					t.Errorf("%s: want ErrNumber, got %q, %v", tc.bits, got, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("%s: got %q, %v; want %q", tc.bits, got, err, tc.want)
			}
			// The canonical text must read back as the same double, and as a
			// json.Number it must canonicalize to itself.
			if back, _ := strconv.ParseFloat(tc.want, 64); back != f && !(f == 0 && back == 0) {
				t.Errorf("%s: %q does not round-trip", tc.bits, tc.want)
			}
			if again, err := Canonicalize(json.Number(tc.want)); err != nil || string(again) != tc.want {
				t.Errorf("%s: json.Number(%q) -> %q, %v", tc.bits, tc.want, again, err)
			}
		})
	}
}

func TestNumberForms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1", "1"},
		{"-0", "0"},
		{"1.0", "1"},
		{"4.50", "4.5"},
		{"2e-3", "0.002"},
		{"1E30", "1e+30"},
		{"1e21", "1e+21"},
		{"1e20", "100000000000000000000"},
		{"123e-20", "1.23e-18"},
		{"0.000001", "0.000001"},
		{"0.0000001", "1e-7"},
		{"9007199254740993", "9007199254740992"},
		{"1775606300", "1775606300"},
		{"1e-400", "0"}, // underflow rounds to zero, as an ECMAScript parser would
	} {
		t.Run("form/"+tc.in, func(t *testing.T) {
			got, err := Canonicalize(json.Number(tc.in))
			if err != nil || string(got) != tc.want {
				t.Errorf("%s: got %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"1e400", "-1e309", "NaN", "Inf", "0x10", "+1", "01", "1.", ".5", "1e", "1_0", ""} {
		name := bad
		if name == "" {
			name = "empty"
		}
		t.Run("bad/"+name, func(t *testing.T) {
			if got, err := Canonicalize(json.Number(bad)); !errors.Is(err, ErrNumber) {
				t.Errorf("%q: want ErrNumber, got %q, %v", bad, got, err)
			}
		})
	}
	for _, v := range []any{int(-7), int64(1) << 53, int32(5), uint64(10), uint32(3), float32(0.5)} {
		t.Run(fmt.Sprintf("go/%T", v), func(t *testing.T) {
			got, err := Canonicalize(v)
			if err != nil {
				t.Errorf("%T %v: %v", v, v, err)
				return
			}
			if f, _ := strconv.ParseFloat(string(got), 64); f != toFloat(v) {
				t.Errorf("%T %v -> %q", v, v, got)
			}
		})
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case uint32:
		return float64(x)
	case float32:
		return float64(x)
	}
	return math.NaN()
}

// RFC 8785 §3.2.2 worked example.
func TestRFC8785Example(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := Canonicalize(decode(t, in))
	if err != nil || string(got) != want {
		t.Fatalf("got %s, %v\nwant %s", got, err, want)
	}
}

// RFC 8785 §3.2.3 sorting example: UTF-16 code-unit order puts the emoji
// (surrogates D83D DE00) before U+FB33, although its UTF-8 bytes sort after.
func TestRFC8785Sorting(t *testing.T) {
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	got, err := Canonicalize(decode(t, in))
	if err != nil {
		t.Fatal(err)
	}
	want := "{" + strings.Join([]string{
		`"\r":"Carriage Return"`,
		`"1":"One"`,
		"\"\u0080\":\"Control\"",
		"\"\u00f6\":\"Latin Small Letter O With Diaeresis\"",
		"\"\u20ac\":\"Euro Sign\"",
		"\"\U0001F600\":\"Emoji: Grinning Face\"",
		"\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"",
	}, ",") + "}"
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestStringEscaping(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "plain", `"plain"`},
		{"controls", "\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"short-escapes", "\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"quote-backslash", `"\`, `"\"\\"`},
		{"html-verbatim", "/<>&", `"/<>&"`},
		{"separators-del-verbatim", "\u2028\u2029\u007f", "\"\u2028\u2029\u007f\""},
		{"non-ascii", "é😀", "\"é😀\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err != nil || string(got) != tc.want {
				t.Errorf("%q: got %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
	if _, err := Canonicalize("bad \xff"); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8 value: %v", err)
	}
	if _, err := Canonicalize(map[string]any{"\xed\xa0\x80": 1}); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8 name (encoded surrogate): %v", err)
	}
}

func TestStructure(t *testing.T) {
	v := decode(t, ` { "b" : [ 1 , { "d" : null , "c" : true } , [] , {} ] , "a" : "x" } `)
	got, err := Canonicalize(v)
	if want := `{"a":"x","b":[1,{"c":true,"d":null},[],{}]}`; err != nil || string(got) != want {
		t.Fatalf("got %s, %v; want %s", got, err, want)
	}
	if _, err := Canonicalize(map[string]any{"a": []any{struct{}{}}}); !errors.Is(err, ErrType) || !strings.Contains(err.Error(), `"/a/0"`) {
		t.Errorf("unsupported type: %v", err)
	}
	deep := any(nil)
	for range maxDepth + 2 {
		deep = []any{deep}
	}
	if _, err := Canonicalize(deep); !errors.Is(err, ErrDepth) {
		t.Errorf("deep value: %v", err)
	}
}

// Canonical output is a fixed point, and agrees with encoding/json on the
// value it denotes.
func checkFixedPoint(t *testing.T, in []byte) {
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return
	}
	out, err := Canonicalize(v)
	if err != nil {
		return // NaN-free JSON can still hold out-of-range numbers
	}
	d2 := json.NewDecoder(bytes.NewReader(out))
	d2.UseNumber()
	var v2 any
	if err := d2.Decode(&v2); err != nil {
		t.Fatalf("canonical output is not JSON: %q: %v", out, err)
	}
	again, err := Canonicalize(v2)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("not a fixed point:\n%q\n%q (%v)", out, again, err)
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null]}`,
		`[1e30, 4.50, 0.000000000000000000000000001, -0, 5e-324]`,
		`{"\u20ac":1,"\ud83d\ude00":2,"\ufb33":3}`,
		`"\u0000\u2028 esc \" \\ \/"`,
		`{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFixedPoint)
}

func BenchmarkCanonicalizeEnvelope(b *testing.B) {
	v := decode(b, goldenGreet)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(v); err != nil {
			b.Fatal(err)
		}
	}
}

const goldenGreet = `{
  "protocol": "agh-network/v0", "id": "msg_ed25519_jcs_01", "workspace_id": "ws_alpha",
  "kind": "greet", "channel": "builders", "from": "patch-worker@56475aa75463474c0285df5dbf2bcab7",
  "to": null, "reply_to": null, "trace_id": "trace_ed25519_jcs_01", "causation_id": null,
  "ts": 1775606300, "expires_at": null,
  "body": {"peer_card": {"peer_id": "patch-worker@56475aa75463474c0285df5dbf2bcab7",
    "display_name": "Patch Worker", "profiles_supported": ["agh-network/v0", "agh-network.trust.ed25519-jcs/v1"],
    "capabilities": ["test.run"], "artifacts_supported": ["capability"], "trust_modes_supported": ["verified"]}},
  "proof": {"profile": "agh-network.trust.ed25519-jcs/v1", "alg": "Ed25519",
    "key_id": "sha256:56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c",
    "pubkey": "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg"},
  "ext": {}
}`

func TestTransform(t *testing.T) {
	got, err := Transform([]byte(" {\"z\": 1.50, \"a\": [\"\\u00e9\", null]}\n"))
	if want := `{"a":["é",null],"z":1.5}`; err != nil || string(got) != want {
		t.Fatalf("got %s, %v; want %s", got, err, want)
	}
	for name, in := range map[string]string{
		"duplicate name": `{"a":1,"a":2}`,
		"syntax":         `{"a":`,
		"invalid UTF-8":  "\"\xff\"",
		"number range":   `[1e400]`,
		"two values":     `{} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			if got, err := Transform([]byte(in)); err == nil {
				t.Errorf("accepted as %q", got)
			}
		})
	}
}

// FuzzTransform: whatever the strict decoder accepts canonicalizes to a
// fixed point of Transform itself.
func FuzzTransform(f *testing.F) {
	f.Add([]byte(goldenGreet))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte("[1e400, \"\\ud800\"]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Transform(in)
		if err != nil {
			return
		}
		again, err := Transform(out)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("%q -> %q -> %q, %v", in, out, again, err)
		}
	})
}

func BenchmarkTransformEnvelope(b *testing.B) {
	raw := []byte(goldenGreet)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Transform(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// compareUTF16 takes a shortcut for names without characters above U+FFFF;
// it must order every pair as the UTF-16 code units do.
func TestCompareUTF16(t *testing.T) {
	names := []string{"", "a", "b", "ab", "é", "\u00ff", "\u0100", "\ue000", "\uffff", "\U00010000", "\U0001F600", "a\U0001F600", "a\uffff", "\u20ac", "€a", "z"}
	for _, a := range names {
		for _, c := range names {
			want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(c)))
			if got := compareUTF16(a, c); got != want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", a, c, got, want)
			}
		}
	}
}

// An error names the value by its JSON pointer, names escaped.
func TestErrorPointer(t *testing.T) {
	v := map[string]any{"a/b": []any{json.Number("1"), map[string]any{"~k": struct{}{}}}}
	if _, err := Canonicalize(v); !errors.Is(err, ErrType) || !strings.Contains(err.Error(), `"/a~1b/1/~0k"`) {
		t.Errorf("error = %v", err)
	}
}

// writeString, which validates UTF-8 only when a byte is not ASCII, says
// what the plain reading of RFC 8785 §3.2.2.2 says of every string: every
// control byte, quote, backslash and invalid UTF-8 sequence included.
func FuzzWriteString(f *testing.F) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain", string(all), "a\"b\\c\x00\x1f\x7f", "\xff", "é\xc3", "\xed\xa0\x80", "\U0001F600\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		err := writeString(&b, s)
		want, wantErr := plainString(s)
		if (err != nil) != (wantErr != nil) || err == nil && b.String() != want {
			t.Fatalf("writeString(%q) = %q, %v; want %q, %v", s, b.String(), err, want, wantErr)
		}
	})
}

// plainString is RFC 8785 §3.2.2.2 written out rune by rune.
func plainString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrInvalidUTF8
	}
	short := map[rune]string{'"': `\"`, '\\': `\\`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	out := `"`
	for _, r := range s {
		switch e, ok := short[r]; {
		case ok:
			out += e
		case r < 0x20:
			out += fmt.Sprintf(`\u%04x`, r)
		default:
			out += string(r)
		}
	}
	return out + `"`, nil
}

// An object's members come out in the order of their names' UTF-16 code
// units, whether a name holds a character above U+FFFF or not (only then
// are the units compared one by one).
func FuzzMemberOrder(f *testing.F) {
	f.Add("b a ab é \ue000 \U0001F600 z")
	f.Add("a\uffff a\U00010000 \u20ac")
	f.Add("x y")
	f.Fuzz(func(t *testing.T, names string) {
		m := map[string]any{}
		for _, n := range strings.Fields(names) {
			if utf8.ValidString(n) {
				m[n] = 1
			}
		}
		keys := slices.Collect(maps.Keys(m))
		slices.SortFunc(keys, func(a, c string) int {
			return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(c)))
		})
		var want bytes.Buffer
		want.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				want.WriteByte(',')
			}
			s, _ := plainString(k)
			want.WriteString(s + ":1")
		}
		want.WriteByte('}')
		got, err := Canonicalize(m)
		if err != nil || string(got) != want.String() {
			t.Fatalf("%q: %s (%v), want %s", names, got, err, want.String())
		}
	})
}
