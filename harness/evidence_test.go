package harness

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// inline loads scenarios written in the test.
func inline(t *testing.T, yaml string) []*scenario.Scenario {
	t.Helper()
	set := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(yaml)}}, ".", "test:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	return set.Scenarios
}

func scenarioResult(t *testing.T, rep *report.Report, id string) *report.ScenarioResult {
	t.Helper()
	i := slices.IndexFunc(rep.Scenarios, func(sc *report.ScenarioResult) bool { return sc.ID == id })
	if i < 0 {
		t.Fatalf("no result for %s", id)
	}
	return rep.Scenarios[i]
}

// A silence is judged until the run ends: what breaks it after its
// scenario ended fails it then, and so do two answers to one message that
// contradict each other, in either order.
func TestLateAnswersJudged(t *testing.T) {
	env := func(kind string, members map[string]any) *message {
		e := map[string]any{"kind": kind}
		for k, v := range members {
			e[k] = v
		}
		return &message{env: e}
	}
	receipt := func(forID, status string) *message {
		return env("receipt", map[string]any{"to": "alice.t1", "body": map[string]any{"for_id": forID, "status": status}})
	}
	trace := func(work, state string) *message {
		return env("trace", map[string]any{"to": "alice.t1", "work_id": work, "body": map[string]any{"state": state}})
	}
	for _, tc := range []struct {
		name  string
		late  []*message
		fail  string // in the scenario's message; "" when it passes
		watch bool   // a silence on acceptance is being watched
	}{
		{"late acceptance breaks the silence", []*message{receipt("m1", "accepted")}, "after the scenario ended", true},
		{"late refusal keeps it", []*message{receipt("m1", "expired")}, "", true},
		{"acceptance then refusal", []*message{trace("w1", "working"), receipt("m1", "rejected")}, "both took and refused m1", false},
		{"refusal then acceptance", []*message{receipt("m1", "expired"), receipt("m1", "accepted")}, "both took and refused m1", false},
		{"an answer to another message", []*message{receipt("m9", "accepted"), receipt("m1", "expired")}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{start: time.Now()}
			in := newInbox()
			peers := newPeerSet()
			peers.add("alice.t1")
			res := &report.ScenarioResult{ID: "s", Outcome: report.Pass, Steps: []report.StepResult{
				{Index: 1, Kind: "send", Outcome: report.Pass}, {Index: 2, Kind: "expect_silence", Outcome: report.Pass}}}
			p := &player{r: r, sc: &scenario.Scenario{ID: "s", Claim: "core-receiver"}, res: res, in: in, peers: peers, log: &transcript{}}
			p.wait = &waiter{r: r, in: in, peers: peers}
			p.wait.noteSend([]string{"m1", "w1"}, 1)
			if tc.watch {
				p.wait.watches = []*watch{{step: 1, sends: 1, onOK: peers.addressed, pats: []map[string]any{
					{"kind": "receipt", "body": map[string]any{"for_id": "m1", "status": "accepted"}}}}}
			}
			p.endedAt = time.Second
			for i, m := range tc.late {
				m.seq, m.at = i+1, 2*time.Second
				in.add(m, false)
			}
			p.late()
			switch {
			case tc.fail == "" && res.Outcome != report.Pass:
				t.Errorf("%s: %s; want pass", res.Outcome, res.Message)
			case tc.fail != "" && (res.Outcome != report.Fail || !strings.Contains(res.Message, tc.fail)):
				t.Errorf("%s: %s; want a failure saying %q", res.Outcome, res.Message, tc.fail)
			}
		})
	}
}

// An expect step ends as soon as the IUT's own answer rules its match out,
// quoting that answer, long before the ceiling.
func TestFailFast(t *testing.T) {
	scs := loadSuites(t)
	for _, tc := range []struct{ fault, scenario, answer string }{
		{"accept-expired", "delivery.expired-refused", "receipt(accepted)"},
		{"reopen-terminal", "lifecycle.terminal-is-final", "receipt(accepted)"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, "peer:"+tc.fault, config{Scenarios: scs, Select: regexp.MustCompile("^" + regexp.QuoteMeta(tc.scenario) + "$"),
				Target: Target{StepTimeout: time.Minute}})
			res := scenarioResult(t, rep, tc.scenario)
			if waited := ceilingEnded(&report.Report{Scenarios: []*report.ScenarioResult{res}}); res.Outcome != report.Fail || len(waited) > 0 {
				t.Fatalf("%s: %s, steps that waited out a ceiling %v; want a failure on the answer, not on the 1m ceiling", tc.scenario, res.Outcome, waited)
			}
			quoted := slices.ContainsFunc(res.Steps, func(sr report.StepResult) bool {
				return strings.Contains(sr.Message, "answered with "+tc.answer) && len(sr.Arrived) == 1
			})
			if !quoted {
				t.Errorf("no step quotes the %s that ruled the match out: %+v", tc.answer, res.Steps)
			}
		})
	}
}

// A peer that refuses every broken message rightly but whose refusal
// receipts are broken breaks a sender duty: it earns Core Receiver and
// fails Core Sender, and each defect is counted once: in the passive
// verdict, naming the scenario whose exchange caused it, never in that
// scenario's receiver verdict. So whether the rule engine sees the defect
// in the receipt alone (refusal-copies-broken: the refused message's
// broken ext copied) or the work-unit tracker sees it across envelopes
// (refusal-in-other-channel: LIFE-CORRELATION, a receipt outside the
// channel of the message it refuses).
func TestSenderDefectChargedOnce(t *testing.T) {
	for _, tc := range []struct{ fault, rule string }{
		{"refusal-copies-broken", "ENV-EXT-OBJECT"},
		{"refusal-in-other-channel", "LIFE-CORRELATION"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, "peer:"+tc.fault, config{Level: "core"})
			claimsAgree(t, rep)
			claims := map[string]report.ClaimResult{}
			for _, c := range rep.Claims {
				claims[c.Name] = c
			}
			if !claims["Core Receiver"].Earned || claims["Core Sender"].Earned {
				t.Fatalf("Core Receiver %v (%v), Core Sender %v (%v); want Receiver earned, Sender not", claims["Core Receiver"].Earned,
					claims["Core Receiver"].Why, claims["Core Sender"].Earned, claims["Core Sender"].Why)
			}
			scenarios, charged := 0, 0
			for _, sc := range rep.Scenarios {
				if sc.Claim == "core-receiver" && (sc.Outcome == report.Fail || strings.Contains(sc.Message, tc.rule)) {
					t.Errorf("%s %s for what the IUT sent: %s", sc.ID, sc.Outcome, sc.Message)
				}
				for _, n := range sc.Notes {
					if strings.Contains(n, tc.rule) && !strings.HasPrefix(n, "charged to Core Sender: ") && sc.Claim != senderClaim {
						t.Errorf("%s judges %s itself: %s", sc.ID, tc.rule, n)
					}
				}
				if j := slices.IndexFunc(sc.SenderFindings, func(f report.PassiveFinding) bool { return f.Rule == tc.rule }); j >= 0 {
					scenarios, charged = scenarios+1, charged+sc.SenderFindings[j].Count
				}
			}
			i := slices.IndexFunc(rep.Passive.Findings, func(f report.PassiveFinding) bool { return f.Rule == tc.rule })
			if i < 0 || len(rep.Passive.Findings[i].Scenarios) == 0 || rep.Passive.Outcome != report.Fail {
				t.Fatalf("passive: %s, findings %+v; want %s there, naming the scenarios that caused it", rep.Passive.Outcome, rep.Passive.Findings, tc.rule)
			}
			if got := rep.Passive.Findings[i]; got.Count != charged || len(got.Scenarios) != scenarios {
				t.Errorf("passive counts %s %d times in %d scenarios; %d scenarios carry it %d times as a sender finding", tc.rule, got.Count, len(got.Scenarios), scenarios, charged)
			}
		})
	}
}
