package validate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// tinyProfile is a stand-in format for pipeline tests: objects with a "tiny"
// member are its documents, and they must have "ok": true.
type tinyProfile struct{ name, marker string }

var (
	tinyRules    = rules.Declarer{Profile: "test"}
	ruleTinyOK   = tinyRules.Declare(rules.Rule{ID: "TEST-TINY-OK", Clause: "A tiny document MUST have ok true."})
	ruleTinyHint = tinyRules.Declare(rules.Rule{ID: "TEST-TINY-HINT", Severity: rules.Warning, Clause: "A tiny document SHOULD NOT have a hint."})
)

func (p tinyProfile) Name() string                   { return p.name }
func (p tinyProfile) Detect(doc map[string]any) bool { _, ok := doc[p.marker]; return ok }
func (p tinyProfile) Check(raw []byte, v any) []rules.Finding {
	m := v.(map[string]any)
	var fs []rules.Finding
	if m["ok"] != true {
		fs = append(fs, rules.New(ruleTinyOK, "/ok", "true", fmt.Sprint(m["ok"])))
	}
	if _, ok := m["hint"]; ok {
		fs = append(fs, rules.New(ruleTinyHint, "/hint", "absent", "present"))
	}
	return fs
}

func newTestValidator(t testing.TB, o Options) *Validator {
	t.Helper()
	o.Profiles = []Profile{tinyProfile{"tiny", "tiny"}, tinyProfile{"other", "other"}}
	v, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// got is a compact rendering of a document for table tests.
func got(d *Document) string {
	var ids []string
	for _, f := range d.Findings {
		ids = append(ids, f.Rule.ID)
	}
	return fmt.Sprintf("%d#%d %s %v [%s]", d.Line, d.Index, d.Profile, d.Valid, strings.Join(ids, ","))
}

func runReader(t testing.TB, o Options, name string, r io.Reader) ([]string, Summary, error) {
	t.Helper()
	o.Stdin = r
	v := newTestValidator(t, o)
	var out []string
	in := Input{Stdin: true, Lines: isLinesFile(name)}
	sum, err := v.Run(context.Background(), []Input{in}, func(d *Document) error {
		out = append(out, got(d))
		return nil
	})
	return out, sum, err
}

func TestSplitForms(t *testing.T) {
	big := `{"tiny":1,"ok":true,"pad":"` + strings.Repeat("x", MaxDocument) + `"}`
	tests := []struct {
		name, file, in string
		want           []string
	}{
		{"single pretty", "a.json", "\n{\n  \"tiny\": 1,\n  \"ok\": true\n}\n", []string{"2#-1 tiny true []"}},
		{"array", "a.json", "[\n{\"tiny\":1,\"ok\":true},\n {\"other\":1,\"ok\":false}\n]", []string{"2#0 tiny true []", "3#1 other false [TEST-TINY-OK]"}},
		{"empty array members", "a.json", `[{"tiny":1,"ok":true} , {"tiny":2,"ok":true}]`, []string{"1#0 tiny true []", "1#1 tiny true []"}},
		{"ndjson by ext", "a.ndjson", "{\"tiny\":1,\"ok\":true}\n\n{\"tiny\":1\n{\"tiny\":1,\"hint\":0,\"ok\":true}\r\n", []string{"1#-1 tiny true []", "3#-1  false [INPUT-JSON-SYNTAX]", "4#-1 tiny true [TEST-TINY-HINT]"}},
		{"ndjson detected", "a.json", "{\"tiny\":1,\"ok\":true}\n{\"tiny\":1,\n{\"other\":1,\"ok\":true}", []string{"1#-1 tiny true []", "2#-1  false [INPUT-JSON-SYNTAX]", "3#-1 other true []"}},
		{"concatenated", "a.json", `{"tiny":1,"ok":true}{"tiny":1,"ok":true}`, []string{"1#-1 tiny true []", "1#-1 tiny true []"}},
		{"truncated single", "a.json", "{\n\"tiny\": [1,\n", []string{"1#-1  false [INPUT-JSON-SYNTAX]"}},
		{"unknown format", "a.json", `{"x":1}`, []string{"1#-1  false [INPUT-UNKNOWN-FORMAT]"}},
		{"not an object", "a.ndjson", "[1]\n\"s\"\n", []string{"1#-1  false [INPUT-NOT-OBJECT]", "2#-1  false [INPUT-NOT-OBJECT]"}},
		{"duplicate key still checked", "a.json", `{"tiny":1,"ok":false,"ok":true}`, []string{"1#-1 tiny false [INPUT-DUPLICATE-KEY]"}},
		{"junk start", "a.json", "{\"tiny\":1,\"ok\":true}   @@@ {}", []string{"1#-1 tiny true []", "1#-1  false [INPUT-JSON-SYNTAX]"}},
		{"junk after array", "a.json", "[{\"tiny\":1,\"ok\":true}] x", []string{"1#0 tiny true []", "1#-1  false [INPUT-JSON-SYNTAX]"}},
		{"bad array separator", "a.json", "[{\"tiny\":1,\"ok\":true} {\"tiny\":1}]", []string{"1#0 tiny true []", "1#-1  false [INPUT-JSON-SYNTAX]"}},
		{"unclosed array", "a.json", "[{\"tiny\":1,\"ok\":true},\n", []string{"1#0 tiny true []", "1#-1  false [INPUT-JSON-SYNTAX]"}},
		{"binary", "a.json", "\x7fELF\x00\x01\x02", []string{"1#-1  false [INPUT-JSON-SYNTAX]"}},
		{"invalid utf8", "a.ndjson", "{\"tiny\":\"\xff\"}\n{\"tiny\":1,\"ok\":true}\n", []string{"1#-1  false [INPUT-UTF8]", "2#-1 tiny true []"}},
		{"too large in array", "a.json", "[" + big + ",\n{\"tiny\":1,\"ok\":true}]", []string{"1#0  false [INPUT-SIZE]", "2#1 tiny true []"}},
		{"too large line", "a.ndjson", big + "\n{\"tiny\":1,\"ok\":true}\n", []string{"1#-1  false [INPUT-SIZE]", "2#-1 tiny true []"}},
		{"too large single", "a.json", big, []string{"1#-1  false [INPUT-SIZE]"}},
		{"escaped quotes", "a.json", `{"tiny":"a\"}\\","ok":true} {"tiny":"\\\\","ok":true}`, []string{"1#-1 tiny true []", "1#-1 tiny true []"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				if len(tc.in) > 1<<20 && r != nil {
					if _, one := r.(*strings.Reader); !one {
						continue // byte-at-a-time over a megabyte is just slow
					}
				}
				out, _, err := runReader(t, Options{Workers: 2}, tc.file, r)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(out, tc.want) {
					t.Fatalf("got\n%s\nwant\n%s", strings.Join(out, "\n"), strings.Join(tc.want, "\n"))
				}
			}
		})
	}
}

// TestPositionsInInput: the byte offset, line and column in a decoder
// message point into the input, also for documents that do not start a line
// (array elements, concatenated values) and after the read buffer has moved
// on (long lines with multi-byte characters).
func TestPositionsInInput(t *testing.T) {
	pad := `{"tiny":1,"ok":true,"pad":"` + strings.Repeat("é", 400<<10) + `"}`
	dup := `{"tiny":1,"ok":true,"ok":true}`
	for _, tc := range []struct{ name, in string }{
		{"single", dup},
		{"array-element", "[ " + dup + "]"},
		{"concatenated", `{"tiny":"é","ok":true} ` + dup},
		{"after-blank-lines", `{"tiny":1,"ok":true}` + "\n\n  " + dup},
		{"after-long-lines", "[" + pad + "," + pad + ",\n " + pad + ", " + dup + "]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			at := strings.LastIndex(in, dup) + len(dup) - 1 // the decoder notes a repeated member after its value
			line := 1 + strings.Count(in[:at], "\n")
			col := 1 + utf8.RuneCountInString(in[strings.LastIndex(in[:at], "\n")+1:at])
			want := fmt.Sprintf("at byte %d (line %d, column %d)", at, line, col)
			for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
				o := Options{Workers: 2, Stdin: r}
				v := newTestValidator(t, o)
				var msgs []string
				_, err := v.Run(context.Background(), []Input{{Stdin: true}}, func(d *Document) error {
					for _, f := range d.Findings {
						msgs = append(msgs, f.Message)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(msgs) != 1 || !strings.HasSuffix(msgs[0], want) {
					t.Errorf("input %.40q...: messages %q, want one ending %q", in, msgs, want)
				}
			}
		})
	}
}

// TestByteOrderMark: a BOM (Windows editors add one) is named as such, not
// as an unexplained byte 0xef.
func TestByteOrderMark(t *testing.T) {
	v := newTestValidator(t, Options{Stdin: strings.NewReader("\xef\xbb\xbf[{\"tiny\":1,\"ok\":true}]")})
	var fs []rules.Finding
	if _, err := v.Run(context.Background(), []Input{{Stdin: true}}, func(d *Document) error {
		fs = append(fs, d.Findings...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rule != rules.InputBOM || !strings.Contains(fs[0].Message, "byte order mark") || fs[0].Found != "byte order mark U+FEFF" {
		t.Errorf("findings %+v", fs)
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"empty", ""},
		{"blanks", "  \n\t"},
		{"empty-array", "[]"},
		{"spaced-empty-array", "[ ]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, sum, err := runReader(t, Options{}, "a.json", strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), "empty input") || sum.Documents != 0 {
				t.Errorf("%q: err=%v sum=%+v", tc.in, err, sum)
			}
		})
	}
}

func TestStrictAndSummary(t *testing.T) {
	in := "{\"tiny\":1,\"ok\":true,\"hint\":1}\n{\"tiny\":1}\n{\"tiny\":1,\"ok\":true}\n"
	_, sum, _ := runReader(t, Options{}, "a.ndjson", strings.NewReader(in))
	if want := (Summary{Documents: 3, Valid: 2, Invalid: 1, Errors: 1, Warnings: 1, Files: 1}); !reflect.DeepEqual(sum, want) {
		t.Errorf("summary = %+v, want %+v", sum, want)
	}
	_, sum, _ = runReader(t, Options{Strict: true}, "a.ndjson", strings.NewReader(in))
	if want := (Summary{Documents: 3, Valid: 1, Invalid: 2, Errors: 2, Warnings: 0, Files: 1}); !reflect.DeepEqual(sum, want) {
		t.Errorf("strict summary = %+v, want %+v", sum, want)
	}
}

func TestForceProfile(t *testing.T) {
	out, _, _ := runReader(t, Options{Force: "other"}, "a.json", strings.NewReader(`{"x":1,"ok":true}`))
	if want := []string{"1#-1 other true []"}; !reflect.DeepEqual(out, want) {
		t.Errorf("got %v", out)
	}
	if _, err := New(Options{Force: "nope", Profiles: []Profile{tinyProfile{"tiny", "tiny"}}}); err == nil || !strings.Contains(err.Error(), "tiny") {
		t.Errorf("unknown profile error = %v", err)
	}
	out, _, _ = runReader(t, Options{}, "a.json", strings.NewReader(`{"x":1}`))
	v := newTestValidator(t, Options{})
	d := v.CheckDocument([]byte(`{"x":1}`), 1)
	if !strings.Contains(d.Findings[0].Message, "--profile tiny|other") {
		t.Errorf("unknown-format message %q, out %v", d.Findings[0].Message, out)
	}
}

// TestOrderKept checks that many workers still emit in input order.
func TestOrderKept(t *testing.T) {
	var b bytes.Buffer
	const n = 5000
	for i := range n {
		fmt.Fprintf(&b, "{\"tiny\":%d,\"ok\":%v}\n", i, i%7 != 0)
	}
	v := newTestValidator(t, Options{Workers: 4, Stdin: &b})
	line := 0
	_, err := v.Run(context.Background(), []Input{{Stdin: true}}, func(d *Document) error {
		line++
		if d.Line != line || d.Valid != ((line-1)%7 != 0) {
			return fmt.Errorf("document %d: %s", line, got(d))
		}
		return nil
	})
	if err != nil || line != n {
		t.Fatalf("err=%v after %d documents", err, line)
	}
}

func TestEmitErrorStops(t *testing.T) {
	var b bytes.Buffer
	for range 2000 {
		b.WriteString("{\"tiny\":1,\"ok\":true}\n")
	}
	v := newTestValidator(t, Options{Workers: 2, Stdin: &b})
	stop := fmt.Errorf("stop")
	count := 0
	_, err := v.Run(context.Background(), []Input{{Stdin: true}}, func(d *Document) error {
		count++
		if count == 10 {
			return stop
		}
		return nil
	})
	if err != stop || count != 10 {
		t.Fatalf("err=%v count=%d", err, count)
	}
}

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.json", "{}")
	write("sub/a.ndjson", "{}")
	write("sub/c.jsonl", "{}")
	write("sub/skip.txt", "{}")
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)

	ins, err := Expand([]string{dir, filepath.Join(dir, "*.json"), "-"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range ins {
		names = append(names, strings.TrimPrefix(in.Name(), dir)+fmt.Sprint(in.Lines))
	}
	want := []string{"/b.jsonfalse", "/sub/a.ndjsontrue", "/sub/c.jsonltrue", "<stdin>false"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Expand = %v, want %v", names, want)
	}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no-arguments", nil, "no input"},
		{"missing-file", []string{filepath.Join(dir, "missing.json")}, "no such file"},
		{"pattern-matching-nothing", []string{filepath.Join(dir, "*.yaml")}, "matches no file"},
		{"empty-directory", []string{filepath.Join(dir, "empty")}, "no *.json"},
		{"stdin-twice", []string{"-", "-"}, "more than once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Expand(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Expand(%v) error = %v, want one line with %q", tc.args, err, tc.msg)
			}
		})
	}
	// A missing path or a pattern matching nothing costs only itself: the
	// other arguments' inputs come back with one error line per bad one.
	ins, err = Expand([]string{filepath.Join(dir, "*.yaml"), filepath.Join(dir, "b.json"), filepath.Join(dir, "gone.json")})
	if len(ins) != 1 || ins[0].Path != filepath.Join(dir, "b.json") {
		t.Errorf("Expand with bad arguments = %v, want b.json alone", ins)
	}
	if err == nil || strings.Count(err.Error(), "\n") != 1 || !strings.Contains(err.Error(), "matches no file") || !strings.Contains(err.Error(), "gone.json: no such file") {
		t.Errorf("Expand with bad arguments: error %q, want one line for each bad argument", err)
	}
}

func TestRunFilesAndErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(good, []byte(`{"tiny":1,"ok":true}`), 0o644)
	os.WriteFile(empty, nil, 0o644)
	v := newTestValidator(t, Options{})
	var srcs []string
	sum, err := v.Run(context.Background(), []Input{{Path: empty}, {Path: good}, {Path: filepath.Join(dir, "gone.json")}}, func(d *Document) error {
		srcs = append(srcs, d.Source)
		return nil
	})
	if sum.Documents != 1 || !reflect.DeepEqual(srcs, []string{good}) {
		t.Errorf("sum=%+v srcs=%v", sum, srcs)
	}
	if err == nil || !strings.Contains(err.Error(), "empty.json: empty input") || !strings.Contains(err.Error(), "gone.json: no such file") {
		t.Errorf("err = %v", err)
	}
}

// FuzzSplit feeds arbitrary bytes through the pipeline in one read and one
// byte at a time: it must never panic and both must agree.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"[{\"tiny\":1},{\"other\":2}]", "{\"tiny\":1}\n{\"tiny\"\n{}", `{"a":"\"}"}{"b":1}`, "[1,2", "\x00", "  x", "[] []"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, _, errA := runReader(t, Options{Workers: 2}, "a.json", strings.NewReader(s))
		b, _, errB := runReader(t, Options{Workers: 1}, "a.json", iotest.OneByteReader(strings.NewReader(s)))
		if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
			t.Fatalf("whole read %v (%v) != byte reads %v (%v)", a, errA, b, errB)
		}
	})
}

// Every document of an NDJSON input is reported on its own line, whatever
// the reads and the blank lines around it (the splitter counts a line's end
// without scanning the line again).
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"{\"tiny\":1}\n\n \t\r\n{\"tiny\"\n\r\n{}\r\n", "\n\n{}", "{}\n{}\n{}", " {}\n\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("a NUL byte makes the rest of the input one finding")
		}
		var want []int
		for i, line := range strings.Split(s, "\n") {
			if strings.Trim(line, " \t\r") != "" {
				want = append(want, i+1)
			}
		}
		for _, r := range []io.Reader{strings.NewReader(s), iotest.OneByteReader(strings.NewReader(s))} {
			docs, _, _ := runReader(t, Options{Workers: 2}, "a.ndjson", r)
			var lines []int
			for _, d := range docs {
				n, _ := strconv.Atoi(d[:strings.IndexByte(d, '#')])
				lines = append(lines, n)
			}
			if !slices.Equal(lines, want) {
				t.Fatalf("%q: documents on lines %v, want %v", s, lines, want)
			}
		}
	})
}
