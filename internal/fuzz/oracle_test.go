package fuzz

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/report"
)

// The oracle asks a receiver for its duties only: a time the schema
// types as an integer (1e+30 is one) or a ts ahead of the receiver's
// clock may be taken or refused (its replay-age policy is its own), and
// a broken receipt or trace is refused in silence or not, never owed a
// refusal receipt.
func TestOracleAsksOnlyDuties(t *testing.T) {
	fam, seeds := familySeeds(t, false)
	o := &oracle{fam: fam, now: time.Now, trust: false}
	seedNamed := func(name string) *seed {
		i := slices.IndexFunc(seeds, func(s seed) bool { return s.name == name })
		if i < 0 {
			t.Fatalf("no seed %s", name)
		}
		return &seeds[i]
	}
	for _, tc := range []struct {
		seed, member string
		value        any
		shape        string
		answered     bool
	}{
		{"say-work-correlated", "ts", 1e30, shapeSurvive, false},
		{"say-work-correlated", "expires_at", 1e30, shapeSurvive, false},
		{"say-work-correlated", "ts", "{{now+86400}}", shapeSurvive, false},
		{"say-work-correlated", "ts", "{{now+5}}", shapeAccept, false},
		{"say-work-correlated", "ts", 1.5, shapeRefuse, true},
		{"trace-working", "ts", 1.5, shapeRefuse, false},
		{"receipt-canceled-no-reason", "ts", 1.5, shapeRefuse, false},
	} {
		s := seedNamed(tc.seed)
		d := &draft{seed: s, send: s.send, ops: []string{"set " + tc.member}, keys: []string{"set@/" + tc.member}}
		d.send.Envelope = jsonx.Copy(s.send.Envelope).(map[string]any)
		d.send.Envelope[tc.member] = tc.value
		c, why, err := o.build(d, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			t.Errorf("%s with %s %v: not played (%s), want %s", tc.seed, tc.member, tc.value, why, tc.shape)
			continue
		}
		if c.Shape != tc.shape || c.Verdict.Answered != tc.answered {
			t.Errorf("%s with %s %v: %s (answered %t, breaks %s), want %s (answered %t)", tc.seed, tc.member, tc.value, c.Shape, c.Verdict.Answered, c.Input(), tc.shape, tc.answered)
		}
	}
}

// A peer that offers no capability and refuses all capability work with
// not_found, as a peer may: its capability seeds, played unmutated first,
// show that refusal once, their mutants' behaviour is not judged, and the
// run has no finding.
func TestCapabilityRefusingPeerNoFinding(t *testing.T) {
	t.Parallel()
	rep := run(t, Config{Seed: 1, Cases: 300, Target: harness.Target{StepTimeout: 10 * time.Second}}, "no-capability-work")
	if len(rep.Findings) > 0 || rep.Failed() {
		t.Fatalf("%d findings:%s", len(rep.Findings), describe(rep))
	}
	refused := 0
	for _, sr := range rep.Seeds {
		if strings.HasPrefix(sr.Seed, "capability") {
			if sr.Met || !strings.Contains(sr.Says, "refused as a peer may") {
				t.Errorf("seed %s: %+v", sr.Seed, sr)
			}
			refused++
		} else if !sr.Met {
			t.Errorf("seed %s not met: %s", sr.Seed, sr.Says)
		}
	}
	if refused == 0 || rep.Unjudged == 0 {
		t.Errorf("%d capability seeds refused, %d mutants unjudged: want some of each", refused, rep.Unjudged)
	}
}

// A message that breaks two rules of the validation order's step 2
// ("Validate required envelope fields, protocol, ..."), a protocol the
// receiver does not take and a ts that is no integer, may be refused as
// unsupported_profile or as malformed: the step names no order. The
// oracle accepts both, and still asks for a refusal in one of them.
func TestOracleAcceptsEveryClassOfTheStep(t *testing.T) {
	fam, seeds := familySeeds(t, false)
	o := &oracle{fam: fam, now: time.Now, trust: false}
	i := slices.IndexFunc(seeds, func(s seed) bool { return s.name == "say-work-correlated" })
	if i < 0 {
		t.Fatal("no seed say-work-correlated")
	}
	s := &seeds[i]
	d := &draft{seed: s, send: s.send, ops: []string{"set protocol", "set ts"}, keys: []string{"set@/protocol", "set@/ts"}}
	d.send.Envelope = jsonx.Copy(s.send.Envelope).(map[string]any)
	d.send.Envelope["protocol"], d.send.Envelope["ts"] = "agh-network/v1", 1.5
	c, why, err := o.build(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Fatalf("not played: %s", why)
	}
	if c.Shape != shapeRefuse || !slices.Equal(c.Classes, []string{"malformed", "unsupported_profile"}) || !slices.Contains(c.Classes, c.Verdict.Reason) {
		t.Fatalf("%s, reason %s, classes %v: want refuse, either class", c.Shape, c.Verdict.Reason, c.Classes)
	}
	class := slices.Index(roles(c.Scenario), "class")
	if class < 0 {
		t.Fatal("the case checks no failure class")
	}
	refusedAs := func(reason string) *report.ScenarioResult {
		return &report.ScenarioResult{
			Steps: []report.StepResult{{Index: class + 1, Kind: "expect_silence", Outcome: report.Warn, Level: "SHOULD", Message: "a refusal in another class"}},
			Exchanged: []*report.ExchangedEntry{{Direction: "received", Envelope: json.RawMessage(
				`{"kind":"receipt","body":{"for_id":"x","status":"rejected","reason_code":"` + reason + `"}}`)}},
		}
	}
	other := "malformed"
	if c.Verdict.Reason == other {
		other = "unsupported_profile"
	}
	if fs := behaviour(c, refusedAs(other)); len(fs) > 0 {
		t.Errorf("refused as %s, which step 2 allows: %+v", other, fs)
	}
	if fs := behaviour(c, refusedAs("expired")); len(fs) != 1 || fs[0].Kind != KindWrongReason {
		t.Errorf("refused as expired: %+v, want one wrong-reason finding", fs)
	}
	// One rule, one class: nothing else is allowed.
	d.send.Envelope["protocol"] = "agh-network/v0"
	if c, _, _ := o.build(d, 2); c == nil || c.Classes != nil {
		t.Errorf("one class fits a message that breaks ENV-TS only: %+v", c)
	}
}
