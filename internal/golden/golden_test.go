package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder captures what Check reports instead of failing the real test.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Errorf(format string, args ...any) { r.msgs = append(r.msgs, format) }
func (r *recorder) Fatalf(format string, args ...any) { r.msgs = append(r.msgs, format) }
func (r *recorder) Fatal(args ...any)                 { r.msgs = append(r.msgs, "fatal") }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got string
		fails     bool
		mentions  string
	}{
		{"equal", "a\nb\nc\n", false, ""},
		{"changed line", "a\nB\nc\n", true, "at line"},
		{"shorter", "a\nb\n", true, "at line"},
		{"extra blank line", "a\nb\nc\n\n", true, "lines, want"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, path, []byte(tc.got))
			if (len(r.msgs) > 0) != tc.fails {
				t.Errorf("reports %q", r.msgs)
			}
			if tc.fails && !strings.Contains(r.msgs[0], tc.mentions) {
				t.Errorf("report %q lacks %q", r.msgs[0], tc.mentions)
			}
		})
	}
	r := &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing.golden"), []byte("x"))
	if len(r.msgs) != 1 {
		t.Errorf("a missing golden file must fail once, got %q", r.msgs)
	}
}
