package reporter

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPublicNames checks that every exported name of the package is given
// in its package comment (doc.go), and that the surface stays small: a
// helper that only the package uses is not exported, and one that another
// part of aghcheck needs lives in an internal package named for it.
func TestPublicNames(t *testing.T) {
	comment, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg := pkgs["reporter"]
	if pkg == nil {
		t.Fatal("no package reporter here")
	}
	for name, f := range pkg.Files {
		for id, obj := range f.Scope.Objects {
			if ast.IsExported(id) && !regexp.MustCompile(`\b`+id+`\b`).Match(comment) {
				t.Errorf("reporter exports %s (%s, %s), which doc.go's list of public names does not give", id, obj.Kind, name)
			}
		}
	}
	// What `go doc -short` lists: a line per declaration group of
	// values, per function and per type with its constructors.
	d := doc.New(pkg, "github.com/aghcheck/aghcheck/reporter", 0)
	lines := len(d.Consts) + len(d.Vars) + len(d.Funcs)
	for _, typ := range d.Types {
		lines += 1 + len(typ.Funcs) + len(typ.Consts) + len(typ.Vars)
	}
	if lines > 15 {
		t.Errorf("go doc -short lists %d lines, want at most 15: reporter exports formats, not helpers", lines)
	}
}
