package agh

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
)

// The findings for every invalid and seed fixture, with pointer, expected
// and found, are pinned in a golden file: they are what users read.
func TestFindingsGolden(t *testing.T) {
	c := mustChecker(t, Options{})
	var b strings.Builder
	for _, dir := range []string{"seed", "invalid"} {
		for _, f := range fixtureFiles(t, dir) {
			res := checkFile(t, c, f)
			b.WriteString(dir + "/" + filepath.Base(f) + " [" + RefusalReason(res.Findings) + "]\n")
			for _, fd := range res.Findings {
				b.WriteString("  " + fd.String() + "\n")
			}
		}
	}
	golden.Check(t, "testdata/findings.golden", []byte(b.String()))
}
