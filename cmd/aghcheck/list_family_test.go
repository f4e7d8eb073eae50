package main

import (
	"encoding/json"
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

// list --format json names what each built-in scenario's pass would have
// caught: the faults of aghcheck peer that fail it. The initiator's half
// is listed and proven like the rest.
func TestListNamesProvenBy(t *testing.T) {
	out, code := runAghcheck(t, "list", "--format", "json")
	if code != 0 {
		t.Fatalf("list exit %d:\n%s", code, out)
	}
	var got struct {
		Scenarios []struct {
			ID       string   `json:"id"`
			ProvenBy []string `json:"proven_by"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	initiators := 0
	for _, sc := range got.Scenarios {
		if len(sc.ProvenBy) == 0 {
			t.Errorf("%s: no proven_by", sc.ID)
		}
		if strings.HasPrefix(sc.ID, "initiator.") {
			initiators++
		}
	}
	if initiators < 15 {
		t.Errorf("%d initiator scenarios listed, want at least 15", initiators)
	}
}
