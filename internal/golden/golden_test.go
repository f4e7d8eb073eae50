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
	if Updating() {
		t.Skip("under -update Check writes instead of comparing")
	}
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

// A failure names the command that rewrites the file: make regen, and the
// go test line for this package and test alone.
func TestCheckNamesTheCommand(t *testing.T) {
	if Updating() {
		t.Skip("under -update Check writes instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("b\n"))
	want := "run `make regen` (or: go test ./internal/golden -run '^TestCheckNamesTheCommand$' -update)"
	if got := Command(t); got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
	if len(r.msgs) != 1 || !strings.Contains(r.msgs[0], "to rewrite it") {
		t.Errorf("the failure %q does not say what rewrites the file", r.msgs)
	}
}

// Write replaces a file whole, and when it cannot (here: the path is a
// directory that is not empty) it leaves what was there and no temporary
// file behind.
func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "doc.md")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("after Write the file holds %q", b)
	}
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(busy, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(busy, []byte("x")); err == nil {
		t.Errorf("Write over a directory that is not empty succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("a failed Write left %d entries in the directory, want 2 (doc.md, busy)", len(entries))
	}
}
