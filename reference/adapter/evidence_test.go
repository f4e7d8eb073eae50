package main

import (
	"os"
	"testing"

	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// The evidence scenarios docs/reference.md cites must stay playable beside
// the built-in suites (`--suite reference/evidence`).
func TestEvidenceSuiteLints(t *testing.T) {
	set := scenario.LoadFS(os.DirFS("../evidence"), ".", "reference/evidence/")
	if set.Files == 0 || len(set.Scenarios) == 0 {
		t.Fatalf("no evidence scenarios loaded (%d files)", set.Files)
	}
	set.Merge(scenario.LoadFS(suites.FS(), ".", "embedded:"))
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
}
