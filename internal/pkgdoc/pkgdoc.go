// Package pkgdoc reads a Go package's exported surface from its sources,
// for the tests that keep a package comment's list of public names true
// (harness, reporter).
package pkgdoc

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
)

// Surface is what a package exports: each top-level exported name with its
// kind, and how many lines `go doc -short` lists for it (a line per group
// of values, per function, per type and per constructor of a type).
type Surface struct {
	Names      map[string]string // name → "type", "func", "const" or "var"
	ShortLines int
}

// Read parses the non-test files of the package in dir.
func Read(dir, importPath string) (Surface, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		return Surface{}, err
	}
	if len(pkgs) != 1 {
		return Surface{}, fmt.Errorf("%s: %d packages, want one", dir, len(pkgs))
	}
	s := Surface{Names: map[string]string{}}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for name, obj := range f.Scope.Objects {
				if ast.IsExported(name) {
					s.Names[name] = obj.Kind.String()
				}
			}
		}
		d := doc.New(pkg, importPath, 0)
		s.ShortLines = len(d.Consts) + len(d.Vars) + len(d.Funcs)
		for _, typ := range d.Types {
			s.ShortLines += 1 + len(typ.Funcs) + len(typ.Consts) + len(typ.Vars)
		}
	}
	return s, nil
}
