package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/suites"
)

// The shipped suites grade every step at the level of the requirement it
// checks, and lint rejects any of them where that breaks: a step that names
// the only SHOULD step of a requirement, once it no longer says so, would be
// graded at its MUST scenario's level.
func TestEmbeddedSuitesGradeStepsAtTheirRequirementLevel(t *testing.T) {
	set := LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	mutants := 0
	for _, sc := range set.Scenarios {
		for i, g := range sc.Grading() {
			if g.Level == "" || g.Listening {
				continue
			}
			for _, id := range g.Checks {
				if levelOf(id) != g.Level {
					t.Errorf("%s step %d checks %s (%s) at %s", sc.ID, i+1, id, levelOf(id), g.Level)
				}
			}
			if g.Level != "SHOULD" || sc.Level != "MUST" {
				continue
			}
			mutant := *sc
			mutant.Steps = slices.Clone(sc.Steps)
			mutant.Steps[i].Checks = nil
			if mutant.named()[g.Checks[0]] {
				continue // another step still names it
			}
			mutants++
			if len(mutant.checkLevels()) == 0 {
				t.Errorf("%s: without checks on step %d lint finds nothing", sc.ID, i+1)
			}
		}
	}
	if mutants < 5 {
		t.Errorf("only %d SHOULD steps in MUST scenarios to mutate", mutants)
	}
}

func TestChecksAcceptsOneIDOrAList(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"one-id", "checks: LIFE-CORRELATION"},
		{"list", "checks: [LIFE-CORRELATION]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			scs, probs := Parse("t.yaml", []byte(`scenarios:
  - id: t.one
    title: t
    requirements: [LIFE-CORRELATION]
    level: MUST
    claim: core-receiver
    steps:
      - expect: {match: {kind: trace}}
        `+src+`
`), "t")
			if len(probs) > 0 || len(scs) != 1 || strings.Join(scs[0].Steps[0].Checks, ",") != "LIFE-CORRELATION" {
				t.Errorf("%v %v", probs, scs)
			}
		})
	}
}
