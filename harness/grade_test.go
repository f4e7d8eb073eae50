package harness

import (
	"strings"
	"testing"
)

func gradeFixture(outcomes map[string]Outcome) *Report {
	rep := &Report{Level: "core", Passive: PassiveResult{Outcome: Pass, Envelopes: 3}}
	add := func(id, claim, level string, reqs ...string) {
		rep.Scenarios = append(rep.Scenarios, &ScenarioResult{ID: id, Claim: claim, Level: level,
			Requirements: reqs, Outcome: outcomes[id]})
	}
	add("s.greet", "core-sender", "MUST", "DISC-GREET-ON-JOIN", "CARD-PEER-ID-MATCH")
	add("r.terminal", "core-receiver", "MUST", "LIFE-TERMINAL-FINAL")
	add("r.cancel", "core-receiver", "MUST", "LIFE-CANCEL-IDEMPOTENT")
	add("r.dedupe", "core-receiver", "SHOULD", "DELIV-DEDUPE")
	return rep
}

func claim(rep *Report, name string) ClaimResult {
	for _, c := range rep.Claims {
		if c.Name == name {
			return c
		}
	}
	return ClaimResult{}
}

func TestGradeAllPassedEarnsCorePeer(t *testing.T) {
	rep := gradeFixture(map[string]Outcome{"s.greet": Pass, "r.terminal": Pass, "r.cancel": Pass, "r.dedupe": Warn})
	grade(rep, Config{}, "Core Peer")
	if rep.Summary.Claim != "Core Peer" || !rep.Summary.Passed {
		t.Fatalf("summary %+v claims %+v", rep.Summary, rep.Claims)
	}
}

// A MUST requirement whose only scenario was skipped is untested: never
// counted as passed, so the claim citing it is not earned.
func TestGradeUntestedRequirementBlocksClaim(t *testing.T) {
	rep := gradeFixture(map[string]Outcome{"s.greet": Pass, "r.terminal": Pass, "r.cancel": Skip, "r.dedupe": Pass})
	grade(rep, Config{}, "Core Peer")
	c := claim(rep, "Core Receiver")
	if c.Earned || !strings.Contains(strings.Join(c.Why, ";"), "untested: LIFE-CANCEL-IDEMPOTENT") {
		t.Errorf("Core Receiver %+v, want not earned for the untested requirement", c)
	}
	if rep.Summary.Passed || rep.Summary.Claim != "Core Sender" {
		t.Errorf("summary %+v", rep.Summary)
	}
	for _, rr := range rep.Requirements {
		if rr.ID == "LIFE-CANCEL-IDEMPOTENT" && rr.Outcome != Skip {
			t.Errorf("requirement %+v, want skip (untested)", rr)
		}
	}
}

// An error (harness fault) is not a pass either: the claim is withheld.
func TestGradeErrorBlocksClaim(t *testing.T) {
	rep := gradeFixture(map[string]Outcome{"s.greet": Pass, "r.terminal": Pass, "r.cancel": Error, "r.dedupe": Pass})
	grade(rep, Config{}, "Core Peer")
	if claim(rep, "Core Receiver").Earned || rep.Summary.Passed {
		t.Errorf("claims %+v summary %+v", rep.Claims, rep.Summary)
	}
}

// A run narrowed by --run earns no claim (docs/harness.md): it passes
// when what ran passed.
func TestGradeNarrowedRunEarnsNoClaim(t *testing.T) {
	rep := gradeFixture(map[string]Outcome{"s.greet": Pass, "r.terminal": Skip, "r.cancel": Skip, "r.dedupe": Skip})
	rep.Selection = "^s\\."
	grade(rep, Config{}, "Core Peer")
	if rep.Summary.Claim != "none" {
		t.Errorf("claim %q, want none for a narrowed run", rep.Summary.Claim)
	}
	for _, c := range rep.Claims {
		if c.Earned {
			t.Errorf("%s earned by a narrowed run", c.Name)
		}
	}
	if !rep.Summary.Passed {
		t.Errorf("summary %+v: what ran passed", rep.Summary)
	}
}
