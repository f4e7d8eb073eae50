package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Graded is what one step checks and the level its failure has: a step is
// graded at the level of the requirements it checks, never above it.
type Graded struct {
	Checks    []string // requirement ids (none for send, wait and listening steps)
	Level     string   // MUST, SHOULD or MAY; "" for send and wait steps
	Listening bool     // the step shows the IUT still serves the scenario
}

// Grading says, for each step, what it checks and at which level. A step
// that names requirements in checks checks those, at their catalogue
// level. An expect or expect_silence step without checks checks the
// scenario's other requirements (those no step names), at the scenario's
// level; lint-suite makes sure those have that level.
func (sc *Scenario) Grading() []Graded {
	named := sc.named()
	var rest []string
	for _, id := range sc.Requirements {
		if !named[id] {
			rest = append(rest, id)
		}
	}
	out := make([]Graded, len(sc.Steps))
	for i, st := range sc.Steps {
		if st.Expect == nil && st.ExpectSilence == nil {
			continue
		}
		switch {
		case slices.Contains(st.Checks, Listening):
			out[i] = Graded{Level: sc.Level, Listening: true}
		case len(st.Checks) > 0:
			out[i] = Graded{Checks: st.Checks, Level: levelOf(st.Checks[0])}
		default:
			out[i] = Graded{Checks: rest, Level: sc.Level}
		}
	}
	return out
}

// named is the set of requirement ids some step names in checks.
func (sc *Scenario) named() map[string]bool {
	named := map[string]bool{}
	for _, st := range sc.Steps {
		for _, id := range st.Checks {
			named[id] = true
		}
	}
	return named
}

// HeardFrom is where the proof that the IUT heard step i (a silence) may
// come from: any expect step after the latest send before i, ahead of the
// silence (an answer to that very send) or after it (valid work served
// afterwards).
func (sc *Scenario) HeardFrom(i int) int {
	for j := i - 1; j >= 0; j-- {
		if sc.Steps[j].Sends() {
			return j + 1
		}
	}
	return 0
}

func (sc *Scenario) heardAfter(i int) bool {
	for j := sc.HeardFrom(i); j < len(sc.Steps); j++ {
		if j != i && sc.Steps[j].Expect != nil {
			return true
		}
	}
	return false
}

// levelOf is a requirement's level in the catalogue ("" when unknown). A
// scenario plays at a receiver, so a rule a receiver may tolerate (the
// sender's MUST: rules.Rule.Tolerable) is advice there.
func levelOf(id string) string {
	r, ok := catalogue.Lookup(id)
	switch {
	case !ok:
		return ""
	case r.Tolerable != "" && r.Severity == rules.Error:
		return rules.Warning.Level()
	}
	return r.Severity.Level()
}

// checkLevels finds steps graded at another level than the requirement
// they check, and silences nothing shows were heard.
func (sc *Scenario) checkLevels() []issue {
	var out []issue
	cited := map[string]bool{}
	for _, id := range sc.Requirements {
		cited[id] = true
	}
	named := sc.named()
	for j, id := range sc.Requirements {
		if lv := levelOf(id); lv != "" && !named[id] && lv != sc.Level {
			out = append(out, issue{"/requirements/" + strconv.Itoa(j), fmt.Sprintf(
				"requirement %s is a %s, but the scenario is %s and no step names it in checks: the step that checks it says checks: %s (or the scenario's level is wrong)",
				id, lv, sc.Level, id)})
		}
	}
	grading := sc.Grading()
	for i, st := range sc.Steps {
		at := "/steps/" + strconv.Itoa(i)
		bad := func(format string, a ...any) {
			out = append(out, issue{at, fmt.Sprintf("step %d: ", i+1) + fmt.Sprintf(format, a...)})
		}
		checking := st.Expect != nil || st.ExpectSilence != nil
		if len(st.Checks) > 0 && !checking {
			bad("only expect and expect_silence steps check requirements")
			continue
		}
		if st.ExpectSilence != nil && !sc.heardAfter(i) {
			bad("a silence earns credit only when an expect step after the send it follows shows the IUT was listening: add one (checks: %s)", Listening)
		}
		if slices.Contains(st.Checks, Listening) {
			if len(st.Checks) > 1 || st.ExpectSilence != nil {
				bad("%s goes alone, on an expect step", Listening)
			}
			continue
		}
		levels := map[string][]string{}
		for _, id := range st.Checks {
			if !cited[id] {
				bad("checks %s, which the scenario does not cite in requirements", id)
			}
			if lv := levelOf(id); lv != "" {
				levels[lv] = append(levels[lv], id)
			}
		}
		if len(levels) > 1 {
			bad("checks requirements of different levels (MUST: %s; SHOULD: %s): give each level its own step",
				strings.Join(levels["MUST"], ", "), strings.Join(levels["SHOULD"], ", "))
			continue
		}
		if st.Level == "" || !checking || st.Level == grading[i].Level {
			continue
		}
		if len(st.Checks) > 0 {
			bad("level %s, but it checks %s, a %s requirement", st.Level, strings.Join(st.Checks, ", "), grading[i].Level)
		} else {
			bad("level %s, but without checks it is graded at the scenario's level %s: name the %s requirement it checks in checks", st.Level, sc.Level, st.Level)
		}
	}
	return out
}
