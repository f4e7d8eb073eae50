package jsonx

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLocate(t *testing.T) {
	doc := []byte("{\n  \"kind\": \"say\",\n  \"body\": {\n    \"text\": \"é\",\n    \"a/b\": [1, {\"x\": null}]\n  }\n}")
	for _, tc := range []struct {
		ptr       string
		line, col int
	}{
		{"", 1, 1},
		{"/kind", 2, 11},
		{"/body", 3, 11},
		{"/body/text", 4, 13},
		{"/body/a~1b/1/x", 5, 22},
		{"/body/missing", 3, 11}, // the object that lacks it
		{"/body/a~1b/7", 5, 12},  // no such element: the array
		{"/kind/deeper", 2, 11},  // not a container
	} {
		name := strings.TrimPrefix(tc.ptr, "/")
		if name == "" {
			name = "root"
		}
		t.Run(name, func(t *testing.T) {
			line, col := Position(doc, Locate(doc, tc.ptr), 1, 1)
			if line != tc.line || col != tc.col {
				t.Errorf("Locate(%q) at %d:%d, want %d:%d", tc.ptr, line, col, tc.line, tc.col)
			}
		})
	}
	// A document that starts mid-line (an array element) counts from there;
	// a character outside the BMP is two UTF-16 units.
	if line, col := Position([]byte(`{"t":"😀","k":1}`), 14, 3, 5); line != 3 || col != 17 {
		t.Errorf("Position: %d:%d, want 3:17", line, col)
	}
}

// Position, which counts lines with bytes.Count and steps over ASCII a
// byte at a time, says what reading rune by rune says, on any bytes
// (newlines, CR, invalid UTF-8, characters above U+FFFF) and any offset.
func FuzzPosition(f *testing.F) {
	f.Add([]byte("{\"a\":\n \"é😀\xff\"}\r\n{}"), 9, 3, 4)
	f.Add([]byte("abc"), 10, 1, 1)
	f.Add([]byte("\n\n\xf0\x9f\x98"), 4, 1, 1)
	f.Fuzz(func(t *testing.T, data []byte, offset, line, col int) {
		wantLine, wantCol := line, col
		for i, n := 0, max(0, min(offset, len(data))); i < n; {
			r, size := utf8.DecodeRune(data[i:n])
			switch {
			case r == '\n':
				wantLine, wantCol = wantLine+1, 1
			case r >= 0x10000:
				wantCol += 2
			default:
				wantCol++
			}
			i += size
		}
		if l, c := Position(data, offset, line, col); l != wantLine || c != wantCol {
			t.Fatalf("Position(%q, %d) = %d:%d, want %d:%d", data, offset, l, c, wantLine, wantCol)
		}
	})
}
