package harness

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/pkgdoc"
)

// TestDocMap checks that every function doc.go's map names is declared in
// the file it names, and that every file it names exists: a rename that
// forgets the map fails here.
func TestDocMap(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{} // "Recv.Name" or "Name" → file
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				key := fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) == 1 {
					typ := fd.Recv.List[0].Type
					if st, ok := typ.(*ast.StarExpr); ok {
						typ = st.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						key = id.Name + "." + key
					}
				}
				declared[key] = name
			}
		}
	}
	steps := regexp.MustCompile(`(?m)^//\s+\d\. (\S+) \((\S+\.go)\)`).FindAllStringSubmatch(string(doc), -1)
	if len(steps) < 5 {
		t.Fatalf("doc.go's map names %d steps, want the path from YAML to verdict", len(steps))
	}
	for _, s := range steps {
		if got, ok := declared[s[1]]; !ok || got != s[2] {
			t.Errorf("doc.go names %s in %s; it is declared in %q", s[1], s[2], got)
		}
	}
	for _, f := range regexp.MustCompile(`\b([a-z_]+\.go)\b`).FindAllStringSubmatch(string(doc), -1) {
		if _, err := os.Stat(f[1]); err != nil {
			t.Errorf("doc.go names %s: %v", f[1], err)
		}
	}
	// Every exported name is stated in the package comment.
	surface, err := pkgdoc.Read(".", "github.com/aghcheck/aghcheck/harness")
	if err != nil {
		t.Fatal(err)
	}
	for name, kind := range surface.Names {
		if !strings.Contains(string(doc), name) && !strings.HasPrefix(name, "Default") && !strings.HasPrefix(name, "EnvNATS") {
			t.Errorf("harness exports %s (%s), which doc.go's list of public names does not give", name, kind)
		}
	}
	if surface.ShortLines > 15 {
		t.Errorf("go doc -short lists %d lines, want at most 15: harness exports what cmd, aghtest and fuzz need", surface.ShortLines)
	}
	for _, m := range regexp.MustCompile(`\(([a-zA-Z]+\.[a-zA-Z]+), ([a-z_]+\.go)\)`).FindAllStringSubmatch(string(doc), -1) {
		if got := declared[m[1]]; got != m[2] {
			t.Errorf("doc.go names %s in %s; it is declared in %q", m[1], m[2], got)
		}
	}
}
