package main

import (
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// aghcheck list shows the receiver family's generated cases like any
// scenario: every one, with its suite.
func TestListShowsGeneratedCases(t *testing.T) {
	out, code := runAghcheck(t, "list", "--run", `^receiver\.`)
	if code != 0 {
		t.Fatalf("list exit %d:\n%s", code, out)
	}
	n := 0
	for _, sc := range scenario.LoadFS(suites.FS(), ".", "embedded:").Scenarios {
		if !strings.HasPrefix(sc.ID, "receiver.") {
			continue
		}
		n++
		if !strings.Contains(out, "\n"+sc.ID+" ") {
			t.Errorf("list lacks %s", sc.ID)
		}
	}
	if n < 120 || !strings.Contains(out, "receiver.ENV-CONTAINER-EXCLUSIVE.both") {
		t.Errorf("%d generated cases listed:\n%s", n, out)
	}
}
