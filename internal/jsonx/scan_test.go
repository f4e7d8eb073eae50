package jsonx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"reflect"
	"strings"
	"testing"
)

// build reads one value with the Scanner into what Decode builds (numbers
// as their literal text), so the two can be compared.
func build(s *Scanner) any {
	switch c := s.Peek(); {
	case c == '{':
		m := map[string]any{}
		s.Object()
		for i := 0; ; i++ {
			k, more := s.Member(i)
			if !more {
				break
			}
			m[string(k)] = build(s)
		}
		return m
	case c == '[':
		a := []any{}
		s.Array()
		for i := 0; s.Element(i); i++ {
			a = append(a, build(s))
		}
		return a
	case c == '"':
		t, _ := s.String()
		return string(t)
	case c == 'n':
		s.Null()
		return nil
	case c == '-' || isDigit(c):
		from := s.Pos()
		s.Skip()
		return json.Number(s.Span(from, s.Pos()))
	default:
		from := s.Pos()
		s.Skip()
		return string(s.Span(from, s.Pos())) == "true"
	}
}

// checkScanner holds the Scanner to its promise: what it reads without
// failing, Decode takes without a finding and to the same value; what it
// refuses, Decode refuses or reports, unless a member name has an escape.
func checkScanner(t *testing.T, data []byte) {
	t.Helper()
	var s Scanner
	s.Reset(data)
	skipped := s.Skip() && s.End()
	s.Reset(data)
	got := build(&s)
	built := !s.Failed() && s.End()
	if skipped != built {
		t.Fatalf("Skip says %v, reading says %v: %q", skipped, built, data)
	}
	want, fs, ok := Decode(data)
	clean := ok && len(fs) == 0
	if skipped && !clean {
		t.Fatalf("Scanner accepts what Decode reports (%v): %q", fs, data)
	}
	if clean && !skipped && !bytes.Contains(data, []byte(`\`)) {
		t.Fatalf("Scanner refuses a clean text: %q", data)
	}
	if skipped && !reflect.DeepEqual(got, want) {
		t.Fatalf("Scanner reads %#v, Decode %#v: %q", got, want, data)
	}
}

func TestScannerMatchesDecode(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	okDeep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	docs := append([]string{
		`{}`, `[]`, ` {"a":1,"b":[true,false,null],"c":"x"} `, `"\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r"`,
		`-0.5e+10`, `"héllo"`, `1e308`, `1e400`, `[-1e400]`, strings.Repeat("9", 301), strings.Repeat("9", 300),
		`{"a":1`, `{"a":"xy`, "  ", `{} x`, `[1,]`, `[,1]`, `{,}`, `{"a":1,}`, `{'a':1}`, `tru`, `nul`, `01`, `-`, `1.`, `1e`, `1e+`,
		`"\x"`, `"\u12"`, "\"a\x01\"", "{\"a\":\"\xff\"}", "\xfe{}", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"",
		`{"s":"\ud800"}`, `{"s":"\udc00\ud800"}`, `{"s":"\ud800\u0041"}`, `{"s":"\ud83d\ude00"}`,
		`{"a":{"b":1,"b":2}}`, `{"a":1,"a":1}`, `{"a":{"b":1},"b":{"a":1}}`, `[{"a":1},{"a":1}]`,
		`{"a\u0062":1}`, deep, okDeep, "\x00", `[1 2]`, `{"a" 1}`, `{"a":}`, `[1,2,]`, "[\n1\r,\t2 ]",
	}, sampleDocs...)
	// Many names, so that their one-bit summaries collide: distinct, and
	// with one repeated far from its first use.
	var many []string
	for i := range 200 {
		many = append(many, fmt.Sprintf(`"k%d":%d`, i, i))
	}
	docs = append(docs, "{"+strings.Join(many, ",")+"}", "{"+strings.Join(many, ",")+`,"k37":0}`,
		`{"ab":1,"ba":2,"a":{"ab":1},"ab ":3}`)
	for _, d := range docs {
		t.Run(docName(d), func(t *testing.T) {
			checkScanner(t, []byte(d))
		})
	}
}

// special8's lowest flag must be the first byte that is not plain, in
// every word of two bytes placed among plain ones.
func TestSpecial8(t *testing.T) {
	for c := 0; c < 256; c++ {
		for d := 0; d < 256; d++ {
			for at := 0; at < 7; at++ {
				w := bytes.Repeat([]byte{'a'}, 8)
				w[at], w[at+1] = byte(c), byte(d)
				want := -1
				for i, b := range w {
					if strByte[b] != 0 {
						want = i
						break
					}
				}
				m := special8(binary.LittleEndian.Uint64(w))
				got := -1
				if m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != want {
					t.Fatalf("special8(%q): first flag at %d, want %d", w, got, want)
				}
			}
		}
	}
}

func TestScannerUint(t *testing.T) {
	for in, want := range map[string]int64{`0`: 0, `-0`: 0, `1776366000`: 1776366000, `9223372036854775807`: 1<<63 - 1} {
		t.Run(in, func(t *testing.T) {
			var s Scanner
			s.Reset([]byte(in))
			if n, ok := s.Uint(); !ok || n != want || !s.End() {
				t.Errorf("Uint(%s) = %d, %v", in, n, ok)
			}
		})
	}
	for _, in := range []string{`-1`, `1.0`, `1e3`, `9223372036854775808`, `"1"`, `null`, `-0.0`} {
		t.Run(in, func(t *testing.T) {
			var s Scanner
			s.Reset([]byte(in))
			if n, ok := s.Uint(); ok {
				t.Errorf("Uint(%s) = %d, want not ok", in, n)
			}
		})
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range sampleDocs {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":1,"a":2}`, `[1e999]`, "\"\xff\"", `"\ud800\udc00"`, `"\udc00"`, `{"a":[`, `-0.0e-0`, `{"a\"":{"b":"\n"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanner(t, data)
	})
}

// BenchmarkScan is the Scanner reading a document through; compare with
// BenchmarkDecode and BenchmarkStdlibValid.
func BenchmarkScan(b *testing.B) {
	data := []byte(sampleDocs[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var s Scanner
	for b.Loop() {
		s.Reset(data)
		if !s.Skip() || !s.End() {
			b.Fatal("failed")
		}
	}
}

func BenchmarkStdlibValid(b *testing.B) {
	data := []byte(sampleDocs[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(data) {
			b.Fatal("invalid")
		}
	}
}

// An ObjectOwnNames object leaves its names to the caller (a repeated one
// reads on), while the objects inside it are still held to distinct names.
func TestObjectOwnNames(t *testing.T) {
	read := func(doc string) (names []string, ok bool) {
		var s Scanner
		s.Reset([]byte(doc))
		if !s.ObjectOwnNames() {
			return nil, false
		}
		for i := 0; ; i++ {
			name, more := s.Member(i)
			if !more {
				break
			}
			names = append(names, string(name))
			s.Skip()
		}
		return names, !s.Failed() && s.End()
	}
	if names, ok := read(`{"a":1,"b":{"c":1,"d":2},"a":2}`); !ok || strings.Join(names, ",") != "a,b,a" {
		t.Errorf("own names: %v %v, want a,b,a read", names, ok)
	}
	if _, ok := read(`{"a":1,"b":{"c":1,"c":2}}`); ok {
		t.Error("a repeated name inside an ObjectOwnNames object was not refused")
	}
	if _, ok := read(`{"a":{"c":1},"b":{"c":2}}`); !ok {
		t.Error("the same name in two sibling objects was refused")
	}
}
