package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShow(t *testing.T) {
	code, out, _ := runCLI(t, "", "show", "lifecycle.work-completes", "receiver.SAY-TEXT.blank")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"# embedded:core/lifecycle/lifecycle.yaml:", "id: lifecycle.work-completes\n", "steps:\n",
		"---\n# embedded:core/message-kinds/receiver.yaml (suite core/message-kinds)\nid: receiver.SAY-TEXT.blank\n",
		"Fixture agh/invalid/SAY-TEXT__blank.json",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "show", "--format", "json", "kinds.greet-announces-card")
	var sc struct {
		ID    string `json:"id"`
		Steps []any  `json:"steps"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &sc) != nil || sc.ID != "kinds.greet-announces-card" || len(sc.Steps) == 0 {
		t.Errorf("show --format json: exit %d, %q", code, out)
	}
	code, _, errOut := runCLI(t, "", "show", "work-completes")
	if code != exitUsageErr || !strings.Contains(errOut, "did you mean lifecycle.work-completes") {
		t.Errorf("unknown id: exit %d, %q", code, errOut)
	}
}

func TestListJSON(t *testing.T) {
	code, out, _ := runCLI(t, "", "list", "--format", "json", "--level", "core")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var l struct {
		Level     string      `json:"level"`
		Played    int         `json:"played"`
		Scenarios []listEntry `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	played := 0
	for _, e := range l.Scenarios {
		if e.Plan == "play" {
			played++
		}
		if e.ID == "lifecycle.needs-input-resumes" && e.Requires.Profile != "aghcheck.control/v1" {
			t.Errorf("%s: requires %+v", e.ID, e.Requires)
		}
	}
	if l.Level != "core" || played != l.Played || played < 100 || len(l.Scenarios) <= played {
		t.Errorf("level %s, %d of %d played (%d said)", l.Level, played, len(l.Scenarios), l.Played)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		width int
		want  string
	}{
		{"short", "short\n", 80, "short\n"},
		{"clipped", "abcdefghij\n", 5, "abcd…\n"},
		{"no-width", "abcdefghij", 0, "abcdefghij"},
		{"multibyte", "ééééé\n", 5, "ééééé\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cut(tc.in, tc.width); got != tc.want {
				t.Errorf("cut(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

// TestScenarioDocExampleLints: the complete scenario of docs/scenarios.md,
// copied into a file as the page says, passes lint-suite.
func TestScenarioDocExampleLints(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 || !strings.HasPrefix(example, "# my-suites/extra.yaml\n") {
		t.Fatalf("docs/scenarios.md: the first yaml block is not the my-suites/extra.yaml example")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "extra.yaml"), []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "", "lint-suite", dir); code != 0 {
		t.Errorf("lint-suite on the documented example: exit %d\n%s%s", code, out, errOut)
	}
}
