package reporter

import (
	"os"
	"regexp"
	"testing"

	"github.com/aghcheck/aghcheck/internal/pkgdoc"
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
	surface, err := pkgdoc.Read(".", "github.com/aghcheck/aghcheck/reporter")
	if err != nil {
		t.Fatal(err)
	}
	for id, kind := range surface.Names {
		if !regexp.MustCompile(`\b` + id + `\b`).Match(comment) {
			t.Errorf("reporter exports %s (%s), which doc.go's list of public names does not give", id, kind)
		}
	}
	if surface.ShortLines > 15 {
		t.Errorf("go doc -short lists %d lines, want at most 15: reporter exports formats, not helpers", surface.ShortLines)
	}
}
