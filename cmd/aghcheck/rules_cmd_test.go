package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/catalogue"
)

func TestRulesCommand(t *testing.T) {
	all := catalogue.All()
	code, out, errOut := runCLI(t, "", "rules")
	if code != 0 || errOut != "" {
		t.Fatalf("rules: exit %d, %q", code, errOut)
	}
	for _, r := range all {
		if !strings.Contains(out, r.ID+"  [") {
			t.Errorf("text catalogue lacks %s", r.ID)
		}
	}

	code, out, _ = runCLI(t, "", "rules", "--format", "json", "--profile", "agh")
	var list []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) == 0 {
		t.Fatalf("json: exit %d, %q", code, out)
	}
	for _, r := range list {
		if r["profile"] != "agh" || r["id"] == "" || r["clause"] == "" || (r["severity"] != "error" && r["severity"] != "warning") {
			t.Errorf("json rule %v", r)
		}
	}
	if list[0]["id"] == "" || !strings.Contains(out, `"reason_code": "malformed"`) {
		t.Error("json lacks reason codes")
	}

	for _, bad := range []struct {
		name string
		args []string
	}{
		{"format-yaml", []string{"rules", "--format", "yaml"}},
		{"profile-nope", []string{"rules", "--profile", "nope"}},
		{"extra-argument", []string{"rules", "extra"}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			if code, _, errOut := runCLI(t, "", bad.args...); code != 2 || errOut == "" {
				t.Errorf("%v: exit %d, %q", bad.args, code, errOut)
			}
		})
	}
}

// docs/rules.md is the markdown catalogue; it must match what the binary prints.
func TestRulesDocUpToDate(t *testing.T) {
	code, out, _ := runCLI(t, "", "rules", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, r := range catalogue.All() {
		if !strings.Contains(out, "| `"+r.ID+"` |") {
			t.Errorf("markdown lacks %s", r.ID)
		}
	}
	doc, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(doc) != out {
		t.Error("docs/rules.md is out of date with the rule catalogue: run `make regen` (or: make docs)")
	}
}
