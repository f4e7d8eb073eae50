package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// rules --coverage prints every clause in each format; docs/coverage.md is
// its markdown form and must match what the binary prints.
func TestRulesCoverage(t *testing.T) {
	code, md, errOut := runCLI(t, "", "rules", "--coverage", "--format", "md")
	if code != 0 || errOut != "" {
		t.Fatalf("markdown: exit %d, %q", code, errOut)
	}
	code, js, _ := runCLI(t, "", "rules", "--coverage", "--format", "json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(js), &list) != nil || len(list) == 0 {
		t.Fatalf("json: exit %d, %q", code, js)
	}
	code, text, _ := runCLI(t, "", "rules", "--coverage")
	if code != 0 {
		t.Fatalf("text: exit %d", code)
	}
	for _, e := range list {
		id, _ := e["id"].(string)
		if e["status"] == "" || !strings.Contains(md, "| `"+id+"` |") || !strings.Contains(text, " "+id+"\n") {
			t.Errorf("clause %s: status %v, or missing from markdown or text", id, e["status"])
		}
	}
	if code, _, errOut := runCLI(t, "", "rules", "--coverage", "--profile", "agh"); code != 2 || errOut == "" {
		t.Errorf("--coverage --profile: exit %d, %q", code, errOut)
	}
	doc, err := os.ReadFile("../../docs/coverage.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != md {
		t.Error("docs/coverage.md is out of date with the clause inventory: run `make regen` (or: make docs)")
	}
}
