package agh

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/findings.golden")

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
	const path = "testdata/findings.golden"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./agh -run TestFindingsGolden -update)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("findings differ from %s at line %d:\n got: %s\nwant: %s\n(-update rewrites it)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("findings differ from %s in length (-update rewrites it)", path)
	}
}
