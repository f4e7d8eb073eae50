// Package golden compares test output with golden files, where output is the
// product (findings people read, report formats, generated docs). Run a
// package's tests with -update to rewrite its golden files, then review the
// diff; `make regen` does that for every package at once. Every difference
// is reported with the command that rewrites it (Command).
package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Check compares got with the file at path, or rewrites the file under
// -update. A difference is reported at its first differing line, so a long
// golden file still gives a readable failure.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := Write(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; %s to create it", err, Command(t))
		return
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if !bytes.Equal(gl[i], wl[i]) {
			t.Errorf("output differs from %s at line %d:\n got: %s\nwant: %s\n%s to rewrite it, then review the diff", path, i+1, gl[i], wl[i], Command(t))
			return
		}
	}
	t.Errorf("output differs from %s: %d lines, want %d; %s to rewrite it, then review the diff", path, len(gl), len(wl), Command(t))
}

// Updating reports whether the tests run with -update: a test that
// rewrites a generated part of a hand-written file asks it, and so does one
// whose golden file records a measurement that may vary at its edges.
func Updating() bool { return *update }

// Command is what rewrites the golden files of the running test, for a
// failure message: "run `make regen` (or: go test ./PKG -run '^TestX$'
// -update)". The package is the test's working directory (go test runs a
// package's tests in its directory) relative to the module root.
func Command(t testing.TB) string {
	return "run `make regen` (or: " + Direct(t, "-update") + ")"
}

// Direct is the go test command that reruns the running test's top-level
// test with flags, e.g. "go test ./internal/agh -run '^TestFindingsGolden$'
// -update".
func Direct(t testing.TB, flags string) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("go test %s -run '^%s$' %s", pkgDir(), name, flags)
}

// pkgDir is the running test's package as a go test argument ("./reporter"),
// or "." when the module root is not found above it.
func pkgDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for root := wd; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		up := filepath.Dir(root)
		if up == root {
			return "."
		}
		root = up
	}
}

// Write replaces the file at path with data as one step: it writes a
// temporary file beside it and renames it into place, so a failure leaves
// the old file whole, never an empty or half-written one.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
