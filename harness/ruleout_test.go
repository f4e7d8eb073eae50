package harness

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
)

// The IUT's one answer to the awaited message, on a subject other than the
// one the step looks at, ends the step at once: a whois response broadcast
// to the whole channel (to null, so it matches no pattern naming the
// requester) is named with the subject it came on, long before the one
// minute ceiling would run out.
func TestAnswerElsewhereRulesOut(t *testing.T) {
	t.Parallel()
	sel := regexp.MustCompile(`^kinds\.whois-(directed-answered|broadcast-matching)$`)
	rep := runAgainst(t, "peer:whois-response-on-broadcast", config{Scenarios: loadSuites(t), Select: sel,
		Target: Target{StepTimeout: time.Minute}})
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	for _, id := range []string{"kinds.whois-directed-answered", "kinds.whois-broadcast-matching"} {
		res := scenarioResult(t, rep, id)
		if waited := ceilingEnded(&report.Report{Scenarios: []*report.ScenarioResult{res}}); len(waited) > 0 {
			t.Errorf("%s: steps that waited out the ceiling %v; want the answer on the broadcast subject to end them", id, waited)
		}
		broadcast := "answered on " + agh.BroadcastSubject(rep.Broker.Workspace, rep.Broker.Channel) + ", not on "
		named := slices.ContainsFunc(res.Steps, func(sr report.StepResult) bool {
			return sr.Outcome == report.Warn && strings.Contains(sr.Message, broadcast) && len(sr.Arrived) == 1
		})
		if res.Outcome != report.Warn || !named {
			dump(t, rep)
			t.Errorf("%s: %s; want a warning whose step names the broadcast subject the response came on (%q)", id, res.Outcome, broadcast)
		}
	}
}

// A terminal trace is final: one that is the trace a step waits for in all
// but its body (a completed trace without the detail asked for) rules the
// match out at once, quoting it, long before the one minute ceiling.
func TestEndedWithoutDetailRulesOut(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "peer:bare-completed", config{Scenarios: loadSuites(t), Select: regexp.MustCompile(`^lifecycle\.progress-detail$`),
		Target: Target{StepTimeout: time.Minute}})
	res := scenarioResult(t, rep, "lifecycle.progress-detail")
	if waited := ceilingEnded(&report.Report{Scenarios: []*report.ScenarioResult{res}}); res.Outcome != report.Warn || len(waited) > 0 {
		t.Fatalf("%s (%s), steps that waited out the ceiling %v; want a warning on the bare completed trace", res.Outcome, res.Message, waited)
	}
	quoted := slices.ContainsFunc(res.Steps, func(sr report.StepResult) bool {
		return strings.Contains(sr.Message, "answered with trace(completed)") && len(sr.Arrived) == 1
	})
	if !quoted {
		t.Errorf("no step quotes the completed trace that ruled the match out: %+v", res.Steps)
	}
}
