package harness

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
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
	res := playedAtOnce(t, "bare-completed", "lifecycle.progress-detail")
	if res.Outcome != report.Warn {
		t.Fatalf("%s (%s); want a warning on the bare completed trace", res.Outcome, res.Message)
	}
	if !quotes(res, "", "answered with trace(completed)") {
		t.Errorf("no step quotes the completed trace that ruled the match out: %+v", res.Steps)
	}
}

// playedAtOnce plays scenario id against the built-in peer with fault,
// under a one minute ceiling, and fails the test when a step waited it
// out: the answers these tests are about end their waits at once.
func playedAtOnce(t *testing.T, fault, id string) *report.ScenarioResult {
	t.Helper()
	rep := runAgainst(t, "peer:"+fault, config{Scenarios: loadSuites(t), Select: regexp.MustCompile("^" + regexp.QuoteMeta(id) + "$"),
		Target: Target{StepTimeout: time.Minute}})
	res := scenarioResult(t, rep, id)
	if waited := ceilingEnded(&report.Report{Scenarios: []*report.ScenarioResult{res}}); len(waited) > 0 {
		t.Fatalf("%s (%s): steps that waited out the ceiling %v", res.Outcome, res.Message, waited)
	}
	return res
}

// quotes reports whether a step of res (of outcome o, any when "") says
// text and quotes the one envelope it is about.
func quotes(res *report.ScenarioResult, o report.Outcome, text string) bool {
	return slices.ContainsFunc(res.Steps, func(sr report.StepResult) bool {
		return (o == "" || sr.Outcome == o) && strings.Contains(sr.Message, text) && len(sr.Arrived) == 1
	})
}

// The initiator's refusal of the needs_input trace a scenario sent rules
// out the continuation that would answer it, at once; its acceptance, a
// refusal of some other message of the work, or of an earlier question
// (a later one may still be answered: a non-target's question refused,
// then the target's), does not.
func TestRefusedQuestionRulesOutTheAnswer(t *testing.T) {
	t.Parallel()
	say := []map[string]any{{"kind": "say", "from": "iut", "work_id": "w1"}}
	receipt := func(forID, status string) map[string]any {
		return map[string]any{"kind": "receipt", "work_id": "w1", "body": map[string]any{"for_id": forID, "status": status}}
	}
	for _, tc := range []struct {
		name   string
		answer map[string]any
		pats   []map[string]any
		out    bool
	}{
		{"question refused", receipt("q1", "rejected"), say, true},
		{"question accepted", receipt("q1", "accepted"), say, false},
		{"other message refused", receipt("m1", "rejected"), say, false},
		{"question of other work", receipt("q1", "rejected"), []map[string]any{{"kind": "say", "work_id": "w2"}}, false},
		{"continuation of any work", receipt("q1", "rejected"), []map[string]any{{"kind": "say"}}, false},
		{"earlier question refused", receipt("q0", "rejected"), say, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, in: in}
			w.noteSend([]string{"q0", "w1"}, 1)
			w.noteQuestion("q0", "w1")
			w.noteSend([]string{"m1", "w1"}, 1)
			w.noteSend([]string{"q1", "w1"}, 1)
			w.noteQuestion("q1", "w1")
			in.add(&message{seq: 1, env: tc.answer}, false)
			if got := w.ruledOut(tc.pats, anywhere) != nil; got != tc.out {
				t.Errorf("ruled out %v, want %v", got, tc.out)
			}
		})
	}
}

// The scenarios' needs_input traces are the questions the harness notes:
// initiator.continues-on-target-subject sends one, and its other sends
// are none.
func TestQuestionsAreTheNeedsInputTraces(t *testing.T) {
	t.Parallel()
	all := loadSuites(t)
	i := slices.IndexFunc(all, func(sc *scenario.Scenario) bool { return sc.ID == "initiator.continues-on-target-subject" })
	if i < 0 {
		t.Fatal("no scenario initiator.continues-on-target-subject")
	}
	sc := all[i]
	var asks []bool
	for _, st := range sc.Steps {
		if st.Send != nil {
			asks = append(asks, asksForInput(st.Send))
		}
	}
	if !slices.Equal(asks, []bool{false, true}) {
		t.Fatalf("send steps asking for input %v, want [false true] (the receipt, then the needs_input trace)", asks)
	}
}

// A receipt is one per publication: once each publication of the awaited
// message has had one, a receipt the pattern does not take rules the match
// out, whether its status differs or only its reason_code; until then, or
// for another message, it does not.
func TestReceiptOfAnotherReasonRulesOut(t *testing.T) {
	t.Parallel()
	pats := []map[string]any{{"kind": "receipt", "body": map[string]any{
		"for_id": "m1", "status": "rejected", "reason_code": "verification_failed"}}}
	receipt := func(forID, status, reason string) map[string]any {
		body := map[string]any{"for_id": forID, "status": status}
		if reason != "" {
			body["reason_code"] = reason
		}
		return map[string]any{"kind": "receipt", "body": body}
	}
	for _, tc := range []struct {
		name   string
		times  int
		answer map[string]any
		out    bool
	}{
		{"refused for another reason", 1, receipt("m1", "rejected", "malformed"), true},
		{"accepted", 1, receipt("m1", "accepted", ""), true},
		{"one of two publications answered", 2, receipt("m1", "rejected", "malformed"), false},
		{"another message's receipt", 1, receipt("m2", "rejected", "malformed"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, in: in}
			w.noteSend([]string{"m1"}, tc.times)
			w.noteSend([]string{"m2"}, 1)
			in.add(&message{seq: 1, env: tc.answer}, false)
			if got := w.ruledOut(pats, anywhere) != nil; got != tc.out {
				t.Errorf("ruled out %v, want %v", got, tc.out)
			}
		})
	}
}

// A peer that refuses every bad digest as malformed, not as the
// verification_failed CAP-DIGEST asks for, fails at once, the refusal
// quoted: its receipt is its last word on that capability.
func TestWrongReasonEndsTheWait(t *testing.T) {
	t.Parallel()
	res := playedAtOnce(t, "one-failure-class", "kinds.capability-digest")
	if res.Outcome != report.Fail {
		t.Fatalf("%s (%s); want a failure with no step on the ceiling", res.Outcome, res.Message)
	}
	if !quotes(res, "", "answered with receipt(rejected malformed)") {
		t.Errorf("no step quotes the refusal that ruled the match out: %+v", res.Steps)
	}
}

// A SHOULD expect that goes on without its match captured nothing: the
// step that needs its capture, and those after it, are not played, and
// the scenario keeps the warning (the IUT answered, otherwise than the
// step hoped) instead of an error about a template. The accepted receipt
// rules the awaited refusal out at once.
func TestUncapturedStepsNotPlayed(t *testing.T) {
	t.Parallel()
	const yaml = `
scenarios:
  - id: test.uncaptured
    title: a SHOULD expect that captures nothing
    requirements: [DELIV-DEDUPE]
    level: SHOULD
    claim: core-receiver
    steps:
      - send: {to: iut, envelope: {kind: say, id: "{{id.open}}", surface: thread, thread_id: "{{thread.t}}", work_id: "{{work.w}}", body: {text: "hello"}}}
      - expect: {on: any, match: {kind: receipt, body: {for_id: "{{id.open}}", status: rejected}}, capture: {r: /id}}
      - send: {to: iut, envelope: {kind: say, surface: thread, thread_id: "{{thread.t}}", work_id: "{{work.w}}", body: {text: "again"}}}
      - expect_silence: {on: any, any_of: [{kind: receipt, id: "{{capture.r}}"}]}
      - send: {to: iut, envelope: {kind: say, id: "{{id.probe}}", surface: thread, thread_id: "{{thread.p}}", work_id: "{{work.p}}", body: {text: "probe"}}}
      - {expect: {on: any, match: {kind: receipt, body: {for_id: "{{id.probe}}", status: accepted}}}, checks: listening}
`
	rep := runAgainst(t, "peer", config{Scenarios: inline(t, yaml), Target: Target{StepTimeout: time.Minute}})
	res := scenarioResult(t, rep, "test.uncaptured")
	notPlayed := slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, `steps 4-6 not played: step 4 needs "r", which step 2 did not capture`)
	})
	if res.Outcome != report.Warn || len(res.Steps) != 3 || !notPlayed {
		t.Fatalf("%s (%s), %d steps, notes %q; want a warning, three steps played and a note naming the missing capture", res.Outcome, res.Message, len(res.Steps), res.Notes)
	}

	// The same name captured by a later expect that matched: every step
	// is played.
	again := strings.Replace(yaml, "      - send: {to: iut, envelope: {kind: say, surface: thread, thread_id: \"{{thread.t}}\"",
		"      - {expect: {on: any, match: {kind: receipt, body: {for_id: \"{{id.open}}\", status: accepted}}, capture: {r: /id}}, checks: listening}\n"+
			"      - send: {to: iut, envelope: {kind: say, surface: thread, thread_id: \"{{thread.t}}\"", 1)
	rep = runAgainst(t, "peer", config{Scenarios: inline(t, again), Target: Target{StepTimeout: time.Minute}})
	res = scenarioResult(t, rep, "test.uncaptured")
	if res.Outcome != report.Warn || len(res.Steps) != 7 {
		t.Fatalf("captured again: %s (%s), %d steps, notes %q; want a warning and all seven steps played", res.Outcome, res.Message, len(res.Steps), res.Notes)
	}
}

func anywhere(*message) bool { return true }

// The IUT opens work once per order: once every order to a target has had
// its opening there, an opening that matches no pattern rules out the
// opening a step waits for; a continuation on work it opened, an opening
// on another target's subject, a pattern for a known work, or a second
// order still unanswered, does not.
func TestOpeningRulesOutTheOpening(t *testing.T) {
	t.Parallel()
	const iut, alice, bob = "iut.1", "peer.alice", "peer.bob"
	opening := []map[string]any{{"kind": "say", "from": iut, "to": "alice.1", "work_id": map[string]any{"$type": "string"}}}
	say := func(subject, work string, to any) *message {
		return &message{subject: subject, env: map[string]any{"kind": "say", "from": iut, "to": to, "work_id": work}}
	}
	for _, tc := range []struct {
		name   string
		orders []string // subjects of say orders
		msgs   []*message
		pats   []map[string]any
		out    bool
	}{
		{"undirected opening", []string{alice}, []*message{say(alice, "work_a", nil)}, opening, true},
		{"opening on another target's subject", []string{alice, bob}, []*message{say(bob, "work_b", nil)}, opening, false},
		{"one of two orders answered", []string{alice, alice}, []*message{say(alice, "work_a", nil)}, opening, false},
		{"the other target's opening counts not", []string{alice, alice, bob}, []*message{say(bob, "work_b", nil), say(alice, "work_a", nil)}, opening, false},
		{"no order", nil, []*message{say(alice, "work_a", nil)}, opening, false},
		{"pattern of a known work", []string{alice}, []*message{say(alice, "work_a", nil)},
			[]map[string]any{{"kind": "say", "from": iut, "work_id": "work_a", "to": "alice.1"}}, false},
		{"a capability order", nil, []*message{say(alice, "work_a", nil)}, opening, false},
		{"a later say of the work", []string{alice}, []*message{say(alice, "work_a", "alice.1"), say(alice, "work_a", nil)}, opening, false},
		{"work the scenario sent", []string{alice}, []*message{say(alice, "work_sent", nil)}, opening, false},
		{"work the scenario answered on", []string{alice}, []*message{say(alice, "work_later", nil)}, opening, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, in: in, tctx: &scenario.Context{IUT: iut}}
			w.noteSend([]string{"m1", "work_sent"}, 1)
			w.mark = 1 // after the first message came: an answer on its work
			w.noteSend([]string{"m2", "work_later"}, 1)
			for _, s := range tc.orders {
				w.noteOrder(s, control.Order{Kind: "say"})
			}
			if tc.name == "a capability order" {
				w.noteOrder(alice, control.Order{Kind: "capability"})
			}
			for i, m := range tc.msgs {
				m.seq = i + 1
				in.add(m, false)
			}
			if len(tc.msgs) > 1 {
				in.consumed[1] = true // the opening matched an earlier step
			}
			onAlice := func(m *message) bool { return m.subject == alice }
			if got := w.ruledOut(tc.pats, onAlice) != nil; got != tc.out {
				t.Errorf("ruled out %v, want %v", got, tc.out)
			}
		})
	}
}

// What the IUT as initiator sends ends the wait for it at once, instead of
// the ceiling: an opening sent to nobody (to null) fails the step waiting
// for the opening, quoted; an opening under a work_id that breaks its
// grammar leaves the steps that report on that work not observable
// (nothing valid can be sent back); a cancel sent as a canceled trace
// fails the step waiting for the canceled receipt.
func TestInitiatorAnswersEndTheWait(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault, id string
		want      report.Outcome
		says      string
	}{
		{"init-undirected", "initiator.opens-say-direct-lower", report.Fail, "answered with say"},
		{"init-bad-work-id", "initiator.continues-in-thread", report.Skip, "not observable: the IUT opened the work under a work_id that breaks its grammar"},
		{"init-bad-work-id", "initiator.continues-on-target-subject", report.Skip, "not observable"},
		{"init-cancel-as-trace", "initiator.silent-after-own-cancel", report.Fail, "answered with trace(canceled)"},
	} {
		t.Run(tc.fault+"/"+tc.id, func(t *testing.T) {
			t.Parallel()
			res := playedAtOnce(t, tc.fault, tc.id)
			// The scenario itself also fails on the passive check of the
			// opening (ENV-WORK-ID-GRAMMAR) when its work_id is broken.
			if !quotes(res, tc.want, tc.says) {
				t.Errorf("%s (%s): no %s step says %q, quoting the opening: %+v", res.Outcome, res.Message, tc.want, tc.says, res.Steps)
			}
		})
	}
}

// Terminal work is final: a terminal trace of the work a message carried,
// where the step looks, rules out that message's acceptance, and any trace
// of it rules out its refusal (of a message sent once: a copy may still be
// refused as a duplicate); a trace that is not terminal, or one on another
// subject, does not rule out the acceptance.
func TestTerminalTraceRulesOutTheAcceptance(t *testing.T) {
	t.Parallel()
	accepted := []map[string]any{{"kind": "receipt", "body": map[string]any{"for_id": "m1", "status": "accepted"}}}
	either := []map[string]any{{"kind": "receipt", "body": map[string]any{"for_id": "m1", "status": map[string]any{"$in": []any{"accepted", "rejected"}}}}}
	anyStatus := []map[string]any{{"kind": "receipt", "body": map[string]any{"for_id": "m1"}}}
	trace := func(subject, state string) *message {
		return &message{subject: subject, env: map[string]any{"kind": "trace", "work_id": "w1", "body": map[string]any{"state": state}}}
	}
	for _, tc := range []struct {
		name  string
		times int
		m     *message
		pats  []map[string]any
		out   bool
	}{
		{"completed", 1, trace("here", "completed"), accepted, true},
		{"failed, either status", 1, trace("here", "failed"), either, true},
		{"working", 1, trace("here", "working"), accepted, false},
		{"working, either status", 1, trace("here", "working"), either, false},
		{"completed elsewhere", 1, trace("there", "completed"), accepted, false},
		{"sent twice", 2, trace("here", "completed"), accepted, true},
		{"sent twice, either status", 2, trace("here", "completed"), either, false},
		{"any status", 1, trace("here", "completed"), anyStatus, true},
		{"any status, working", 1, trace("here", "working"), anyStatus, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, in: in}
			w.noteSend([]string{"m1", "w1"}, tc.times)
			tc.m.seq = 1
			in.add(tc.m, false)
			if got := w.ruledOut(tc.pats, func(m *message) bool { return m.subject == "here" }) != nil; got != tc.out {
				t.Errorf("ruled out %v, want %v", got, tc.out)
			}
		})
	}
}

// A peer that never acknowledges work with an accepted receipt (a SHOULD)
// gets its warning as soon as the work completes, not after the ceiling.
func TestUnacknowledgedWorkWarnsOnCompletion(t *testing.T) {
	t.Parallel()
	res := playedAtOnce(t, "no-accepted-receipt", "lifecycle.work-completes")
	if res.Outcome != report.Warn {
		t.Fatalf("%s (%s); want a warning at once", res.Outcome, res.Message)
	}
	if !quotes(res, "", "answered with trace(completed)") {
		t.Errorf("no step quotes the completed trace: %+v", res.Steps)
	}
}

// Work whose opening was refused is never worked on: a trace of it is ruled
// out once the opening, sent once, was refused, or once every copy of it
// was answered and each answer was a refusal (one at least not a
// duplicate); not while a copy is unanswered or one was accepted.
func TestRefusedCopiesRuleOutTheWork(t *testing.T) {
	t.Parallel()
	pats := []map[string]any{{"kind": "trace", "work_id": "w1", "body": map[string]any{"state": "completed"}}}
	receipt := func(status string) map[string]any {
		return map[string]any{"kind": "receipt", "work_id": "w1", "body": map[string]any{"for_id": "m1", "status": status}}
	}
	for _, tc := range []struct {
		name     string
		times    int
		receipts []string
		out      bool
	}{
		{"sent once, refused", 1, []string{"rejected"}, true},
		{"three copies, each refused", 3, []string{"rejected", "rejected", "rejected"}, true},
		{"refused, then duplicates", 3, []string{"rejected", "duplicate", "duplicate"}, true},
		{"only duplicates", 2, []string{"duplicate", "duplicate"}, false},
		{"one copy unanswered", 3, []string{"rejected", "rejected"}, false},
		{"one copy accepted", 2, []string{"rejected", "accepted"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, in: in}
			w.noteSend([]string{"m1", "w1"}, tc.times)
			for i, st := range tc.receipts {
				in.add(&message{seq: i + 1, env: receipt(st)}, false)
			}
			if got := w.ruledOut(pats, anywhere) != nil; got != tc.out {
				t.Errorf("ruled out %v, want %v", got, tc.out)
			}
		})
	}
}

// The IUT cancels work it opened once: a canceled trace it sent on that
// work (the target's kind of message) was its cancel, and rules out the
// canceled receipt a step waits for; a canceled trace on work it did not
// open, another state, or a pattern that takes another status, does not.
func TestCancelSentAsTraceRulesOutTheReceipt(t *testing.T) {
	t.Parallel()
	const iut, alice = "iut.1", "peer.alice"
	cancel := []map[string]any{{"kind": "receipt", "from": iut, "work_id": "work_a", "body": map[string]any{"status": "canceled"}}}
	trace := func(work, state string) *message {
		return &message{subject: alice, env: map[string]any{"kind": "trace", "from": iut, "work_id": work, "body": map[string]any{"state": state}}}
	}
	opening := &message{subject: alice, env: map[string]any{"kind": "say", "from": iut, "work_id": "work_a"}}
	for _, tc := range []struct {
		name string
		m    *message
		pats []map[string]any
		out  bool
	}{
		{"canceled trace", trace("work_a", "canceled"), cancel, true},
		{"another state", trace("work_a", "completed"), cancel, false},
		{"work it did not open", trace("work_b", "canceled"), []map[string]any{{"kind": "receipt", "from": iut, "work_id": "work_b", "body": map[string]any{"status": "canceled"}}}, false},
		{"a pattern taking another status", trace("work_a", "canceled"), []map[string]any{{"kind": "receipt", "from": iut, "work_id": "work_a", "body": map[string]any{"status": map[string]any{"$in": []any{"canceled", "rejected"}}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, in: in, tctx: &scenario.Context{IUT: iut}}
			w.noteOrder(alice, control.Order{Kind: "say"})
			in.add(&message{seq: 1, subject: opening.subject, env: opening.env}, false)
			in.consumed[1] = true // matched the step that waited for the opening
			w.mark = 1
			w.noteSend([]string{"m1", "work_a"}, 1) // the scenario's answer on the IUT's work
			tc.m.seq = 2
			in.add(tc.m, false)
			if got := w.ruledOut(tc.pats, anywhere) != nil; got != tc.out {
				t.Errorf("ruled out %v, want %v", got, tc.out)
			}
		})
	}
}
