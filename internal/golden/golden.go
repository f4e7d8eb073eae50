// Package golden compares test output with golden files, where output is the
// product (findings people read, report formats). Run a package's tests with
// -update to rewrite its golden files, then review the diff.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Check compares got with the file at path, or rewrites the file under
// -update. A difference is reported at its first differing line, so a long
// golden file still gives a readable failure.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
		return
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if !bytes.Equal(gl[i], wl[i]) {
			t.Errorf("output differs from %s at line %d:\n got: %s\nwant: %s\n(-update rewrites it; review the diff)", path, i+1, gl[i], wl[i])
			return
		}
	}
	t.Errorf("output differs from %s: %d lines, want %d (-update rewrites it; review the diff)", path, len(gl), len(wl))
}

// Updating reports whether the tests run with -update: a test that
// rewrites a generated part of a hand-written file asks it, and so does one
// whose golden file records a measurement that may vary at its edges.
func Updating() bool { return *update }
