package harness

import (
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// The concurrency scenarios publish at once (at_once steps, sends with
// copies): the correct peer passes each, and the run reports how it
// answered under that load; a peer whose dedupe races works a copy of an
// opening twice.
func TestConcurrencyScenariosPublishAtOnce(t *testing.T) {
	t.Parallel()
	var scs []*scenario.Scenario
	want := 0 // messages the at_once steps publish, copies counted
	bursts := map[string]bool{}
	for _, sc := range loadSuites(t) {
		if !strings.HasPrefix(sc.ID, "concurrency.") {
			continue
		}
		scs = append(scs, sc)
		for i := range sc.Steps {
			if st := &sc.Steps[i]; st.Concurrent() {
				bursts[sc.ID] = true
				for _, s := range st.Published() {
					want += max(s.Copies, 1)
				}
			}
		}
	}
	if len(scs) < 8 {
		t.Fatalf("%d concurrency scenarios, want at least 8", len(scs))
	}
	rep := runAgainst(t, "peer", config{Scenarios: scs})
	for _, sc := range rep.Scenarios {
		if sc.Outcome != report.Pass {
			t.Errorf("%s: %s %s", sc.ID, sc.Outcome, sc.Message)
		}
		if bursts[sc.ID] != (sc.Load != nil && sc.Load.Answers > 0) {
			t.Errorf("%s: load figure %+v, published at once: %v", sc.ID, sc.Load, bursts[sc.ID])
		}
	}
	l := rep.Summary.Load
	if l == nil || l.Messages != want || l.Answers < want || l.PerSecond <= 0 || l.Latency == nil {
		t.Fatalf("run load %+v, want %d messages published at once, each answered", l, want)
	}

	racy := runAgainst(t, "peer:racy-dedupe", config{Scenarios: scs})
	for _, sc := range racy.Scenarios {
		if sc.ID == "concurrency.opening-copies-at-once" && sc.Outcome != report.Fail {
			t.Errorf("racy-dedupe: %s %s %s, want a fail (the copy worked on again)", sc.ID, sc.Outcome, sc.Message)
		}
	}
}

// Copies published at once through JetStream are not held back by each
// other's acknowledgement: the stream delivers them together, and the
// correct peer works on one and answers the others duplicate.
func TestCopiesAtOnceThroughJetStream(t *testing.T) {
	t.Parallel()
	const yaml = `
scenarios:
  - id: test.jetstream-copies
    title: copies through the stream
    requirements: [DELIV-DEDUPE]
    level: SHOULD
    claim: jetstream
    requires: {jetstream: true}
    steps:
      - send:
          to: iut
          jetstream: true
          copies: 3
          envelope: {kind: say, id: "{{id.open}}", surface: thread, thread_id: "{{thread.t}}", work_id: "{{work.w}}", body: {text: "thrice"}}
      - {expect: {on: any, match: {kind: trace, work_id: "{{work.w}}", body: {state: completed}}}, checks: listening}
      - {expect: {on: any, match: {kind: receipt, body: {for_id: "{{id.open}}", status: duplicate}}}, checks: DELIV-DEDUPE}
      - {expect: {on: any, match: {kind: receipt, body: {for_id: "{{id.open}}", status: duplicate}}}, checks: DELIV-DEDUPE}
`
	rep := runAgainst(t, "peer", config{Scenarios: inline(t, yaml)})
	sc := rep.Scenarios[0]
	if sc.Outcome != report.Pass || sc.Load == nil || sc.Load.Messages != 3 {
		t.Fatalf("%s %s, load %+v; want a pass with 3 messages published at once", sc.Outcome, sc.Message, sc.Load)
	}
}
