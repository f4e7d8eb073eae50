// Command goldentests lists the tests that rewrite generated files, for make
// regen (scripts/regen.sh): one line per package,
//
//	./PKG ^(TestA|TestB)$ -update [-update-scripts]
//
// A test rewrites files when it reaches, directly or through the package's
// own functions and variables, internal/golden (Check, Updating, Write) or a
// flag of its package named update-something (flag.Bool("update-scripts",
// ...)), which it then gets on the command line. The list is read from the
// test sources, so a new golden test is regenerated without naming it
// anywhere. It runs from the module root.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

const goldenPath = "github.com/aghcheck/aghcheck/internal/golden"

func main() {
	lines, err := list(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "goldentests:", err)
		os.Exit(1)
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}

// list walks the module under root and returns one line per package with
// tests that rewrite files.
func list(root string) ([]string, error) {
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for dir, files := range dirs {
		if filepath.ToSlash(dir) == "internal/golden" {
			continue // its tests are of Check itself, not of a golden file
		}
		tests, flags, err := rewriters(files)
		if err != nil {
			return nil, err
		}
		if len(tests) == 0 {
			continue
		}
		pkg := "./" + filepath.ToSlash(dir)
		out = append(out, fmt.Sprintf("%s ^(%s)$ %s", pkg, strings.Join(tests, "|"), strings.Join(flags, " ")))
	}
	sort.Strings(out)
	return out, nil
}

// node is a package-level function or variable: what it refers to.
type node struct {
	refs  map[string]bool // package-level names it mentions
	flags map[string]bool // the rewrite flags it reaches directly
}

// rewriters returns the Test functions of one package's test files that
// reach a rewrite, and the flags they need.
func rewriters(files []string) (tests, flags []string, err error) {
	fset := token.NewFileSet()
	nodes := map[string]*node{}
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		golden := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == goldenPath {
				golden = "golden"
				if im.Name != nil {
					golden = im.Name.Name
				}
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					name = "method." + name // reached by any mention of its name
				}
				nodes[name] = scan(d, golden)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					vs, ok := spec.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, id := range vs.Names {
						n := scan(vs, golden)
						if i < len(vs.Values) {
							if fl := updateFlag(vs.Values[i]); fl != "" {
								n.flags["-"+fl] = true
							}
						}
						nodes[id.Name] = n
					}
				}
			}
		}
	}
	// reach is the set of flags a node reaches through the names it mentions.
	memo := map[string]map[string]bool{}
	var reach func(name string, seen map[string]bool) map[string]bool
	reach = func(name string, seen map[string]bool) map[string]bool {
		if r, ok := memo[name]; ok {
			return r
		}
		n := nodes[name]
		if n == nil || seen[name] {
			return nil
		}
		seen[name] = true
		out := map[string]bool{}
		for f := range n.flags {
			out[f] = true
		}
		for ref := range n.refs {
			for _, target := range []string{ref, "method." + ref} {
				for f := range reach(target, seen) {
					out[f] = true
				}
			}
		}
		memo[name] = out
		return out
	}
	all := map[string]bool{}
	for name := range nodes {
		if !strings.HasPrefix(name, "Test") || name == "TestMain" {
			continue
		}
		fs := reach(name, map[string]bool{})
		if len(fs) == 0 {
			continue
		}
		tests = append(tests, name)
		for f := range fs {
			all[f] = true
		}
	}
	sort.Strings(tests)
	return tests, slices.Sorted(maps.Keys(all)), nil
}

// scan collects the names n mentions and whether it uses package golden
// (which means -update).
func scan(n ast.Node, golden string) *node {
	out := &node{refs: map[string]bool{}, flags: map[string]bool{}}
	ast.Inspect(n, func(x ast.Node) bool {
		switch e := x.(type) {
		case *ast.SelectorExpr:
			if id, ok := e.X.(*ast.Ident); ok && golden != "" && id.Name == golden {
				out.flags["-update"] = true
			}
			out.refs[e.Sel.Name] = true // a method by its name
		case *ast.Ident:
			out.refs[e.Name] = true
		}
		return true
	})
	return out
}

// updateFlag is NAME when v is flag.Bool("NAME", ...) and NAME starts with
// "update" (a test's own rewrite flag).
func updateFlag(v ast.Expr) string {
	call, ok := v.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Bool" {
		return ""
	}
	if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "flag" {
		return ""
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok {
		return ""
	}
	name, _ := strconv.Unquote(lit.Value)
	if !strings.HasPrefix(name, "update") {
		return ""
	}
	return name
}
