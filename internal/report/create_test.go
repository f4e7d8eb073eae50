//go:build unix

package report

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A report is 0644 at most, whatever the umask, and an existing wider file
// is narrowed.
func TestCreateMode(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.json")
	if err := os.WriteFile(wide, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "new.json"), wide} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Create(p)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", st.Mode().Perm())
			}
		})
	}
}
