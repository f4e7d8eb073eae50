package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A test is listed when it reaches golden (directly, through a helper or
// a package variable) or an update flag of its package, and gets that
// flag; one that reaches neither is not.
func TestList(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, "pkg", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a_test.go", `package pkg

import (
	"flag"
	"testing"

	g "github.com/aghcheck/aghcheck/internal/golden"
)

var refresh = flag.Bool("update-things", false, "")

func TestDirect(t *testing.T) { g.Check(t, "x", nil) }
func TestViaHelper(t *testing.T) { helper(t) }
func TestFlag(t *testing.T) { _ = *refresh }
func TestPlain(t *testing.T) {}
`)
	write("b_test.go", `package pkg

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
)

var gens = map[string]func(){"x": viaVar}

func helper(t *testing.T) { golden.Check(t, "y", nil) }
func viaVar()             { _ = golden.Updating() }
func TestViaVar(t *testing.T) { _ = gens }
`)
	t.Chdir(dir)
	lines, err := list(".")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"./pkg ^(TestDirect|TestFlag|TestViaHelper|TestViaVar)$ -update -update-things"}
	if !slices.Equal(lines, want) {
		t.Errorf("list = %q, want %q", lines, want)
	}
}
