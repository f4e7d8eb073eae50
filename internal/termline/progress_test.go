package termline

import (
	"bytes"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		name  string
		p     ValidateProgress
		width int
		want  string
	}{
		{"MB", ValidateProgress{File: 3, Files: 10, Documents: 100000, Bytes: 43_800_000, Elapsed: 2 * time.Second}, 120,
			"  2.0s file 3/10, 100000 documents, 43.8 MB (21.9 MB/s, 50000 documents/s)"},
		{"bytes", ValidateProgress{File: 1, Files: 1, Documents: 2, Bytes: 900, Elapsed: time.Second}, 120,
			"  1.0s file 1/1, 2 documents, 900 B (900 B/s, 2 documents/s)"},
		{"GB", ValidateProgress{File: 1, Files: 1, Documents: 5, Bytes: 2_500_000_000, Elapsed: 500 * time.Millisecond}, 120,
			"  0.5s file 1/1, 5 documents, 2.50 GB (5.00 GB/s, 10 documents/s)"},
		// Never wider than the terminal: a redrawn line must not wrap.
		{"narrow", ValidateProgress{File: 3, Files: 10, Documents: 100000, Bytes: 43_800_000, Elapsed: 2 * time.Second}, 30,
			"  2.0s file 3/10, 100000 doc…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ProgressLine(c.p, c.width); got != c.want {
				t.Errorf("ProgressLine(%+v, %d)\n got %q\nwant %q", c.p, c.width, got, c.want)
			}
		})
	}
}

// A shorter line blanks what the longer one left; Clear erases it all.
func TestLine(t *testing.T) {
	var b bytes.Buffer
	l := New(&b)
	l.Show("abcdef")
	l.Show("xy")
	l.Clear()
	l.Clear()
	if want := "\rabcdef\rxy    \r      \r"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
