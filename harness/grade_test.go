package harness

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

func gradeFixture(outcomes map[string]report.Outcome) *report.Report {
	rep := &report.Report{Level: "core", Passive: report.PassiveResult{Outcome: report.Pass, Envelopes: 3}}
	add := func(id, claim, level string, reqs ...string) {
		rep.Scenarios = append(rep.Scenarios, &report.ScenarioResult{ID: id, Claim: claim, Level: level,
			Requirements: reqs, Outcome: outcomes[id]})
	}
	add("s.greet", "core-sender", "MUST", "DISC-GREET-ON-JOIN", "CARD-PEER-ID-MATCH")
	add("r.terminal", "core-receiver", "MUST", "LIFE-TERMINAL-FINAL")
	add("r.input", "core-receiver", "MUST", "LIFE-NEEDS-INPUT-RESUME")
	add("r.dedupe", "core-receiver", "SHOULD", "DELIV-DEDUPE")
	return rep
}

func claim(rep *report.Report, name string) report.ClaimResult {
	for _, c := range rep.Claims {
		if c.Name == name {
			return c
		}
	}
	return report.ClaimResult{}
}

func requirement(rep *report.Report, id string) report.RequirementResult {
	for _, rr := range rep.Requirements {
		if rr.ID == id {
			return rr
		}
	}
	return report.RequirementResult{}
}

func TestGradeAllPassedEarnsCorePeer(t *testing.T) {
	rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Pass, "r.input": report.Pass, "r.dedupe": report.Warn})
	grade(rep, config{}, "Core Peer")
	if rep.Summary.Claim != "Core Peer" || !rep.Summary.Passed {
		t.Fatalf("summary %+v claims %+v", rep.Summary, rep.Claims)
	}
}

// A MUST requirement whose only scenario was skipped is untested: never
// counted as passed, so the claim citing it is not earned.
func TestGradeUntestedRequirementBlocksClaim(t *testing.T) {
	rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Pass, "r.input": report.Skip, "r.dedupe": report.Pass})
	grade(rep, config{}, "Core Peer")
	c := claim(rep, "Core Receiver")
	if c.Earned || !strings.Contains(strings.Join(c.Why, ";"), "untested: LIFE-NEEDS-INPUT-RESUME") {
		t.Errorf("Core Receiver %+v, want not earned for the untested requirement", c)
	}
	if rep.Summary.Passed || rep.Summary.Claim != "Core Sender" {
		t.Errorf("summary %+v", rep.Summary)
	}
	if rr := requirement(rep, "LIFE-NEEDS-INPUT-RESUME"); rr.Outcome != report.Skip {
		t.Errorf("requirement %+v, want skip (untested)", rr)
	}
}

// An error (harness fault) is not a pass either: the claim is withheld.
func TestGradeErrorBlocksClaim(t *testing.T) {
	rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Pass, "r.input": report.Error, "r.dedupe": report.Pass})
	grade(rep, config{}, "Core Peer")
	if claim(rep, "Core Receiver").Earned || rep.Summary.Passed {
		t.Errorf("claims %+v summary %+v", rep.Claims, rep.Summary)
	}
}

// A run narrowed by --run earns no claim (docs/harness.md): it passes
// when what ran passed.
func TestGradeNarrowedRunEarnsNoClaim(t *testing.T) {
	rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Skip, "r.input": report.Skip, "r.dedupe": report.Skip})
	rep.Selection = "^s\\."
	grade(rep, config{}, "Core Peer")
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

// A requirement that only control-extension scenarios reach is not held
// against a peer that does not advertise the extension (issue: third-party
// peers are never failed for lacking it), and it is not counted as passed
// either: the claim lists it as unexercised.
func TestGradeControlOnlyRequirementIsACaveat(t *testing.T) {
	gated := &scenario.Scenario{ID: "r.input", Requires: scenario.Requires{Profile: control.Name}}
	cfg := config{Scenarios: []*scenario.Scenario{gated}}
	outcomes := map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Pass, "r.input": report.Skip, "r.dedupe": report.Pass}

	rep := gradeFixture(outcomes)
	grade(rep, cfg, "Core Peer")
	c := claim(rep, "Core Receiver")
	if !c.Earned || len(c.Unexercised) != 1 || c.Unexercised[0] != "LIFE-NEEDS-INPUT-RESUME" {
		t.Fatalf("Core Receiver %+v, want earned with LIFE-NEEDS-INPUT-RESUME unexercised", c)
	}
	if p := claim(rep, "Core Peer"); !p.Earned || len(p.Unexercised) != 1 {
		t.Errorf("Core Peer %+v, want the caveat inherited", p)
	}
	if s := claim(rep, "Core Sender"); len(s.Unexercised) != 0 {
		t.Errorf("Core Sender %+v carries a receiver caveat", s)
	}
	if rr := requirement(rep, "LIFE-NEEDS-INPUT-RESUME"); rr.Outcome == report.Pass {
		t.Errorf("requirement %+v counted as passed", rr)
	}

	// A peer that advertises the extension but whose gated scenario was
	// skipped anyway (here: not selected) gets no such allowance.
	rep = gradeFixture(outcomes)
	rep.IUT.Card = map[string]any{"profiles_supported": []any{control.Name}}
	grade(rep, cfg, "Core Peer")
	if c := claim(rep, "Core Receiver"); c.Earned {
		t.Errorf("Core Receiver %+v earned though the advertised extension went untested", c)
	}

	// Nor does a requirement that an ungated scenario also cites.
	rep = gradeFixture(outcomes)
	rep.Scenarios = append(rep.Scenarios, &report.ScenarioResult{ID: "r.input2", Claim: "core-receiver", Level: "MUST",
		Requirements: []string{"LIFE-NEEDS-INPUT-RESUME"}, Outcome: report.Skip})
	grade(rep, cfg, "Core Peer")
	if c := claim(rep, "Core Receiver"); c.Earned {
		t.Errorf("Core Receiver %+v earned though an ungated scenario left the requirement untested", c)
	}
}

// End to end: a correct peer without the control extension (as a
// third-party peer would be) is not failed for lacking it. The scenarios
// that need it are skipped, their requirements are listed as unexercised,
// and every claim is still earned.
func TestPeerWithoutControlExtensionEarnsClaims(t *testing.T) {
	// Not parallel: many scenarios against one peer, under step ceilings
	// that the other tests' load would decide.
	rep := runAgainst(t, "plain-peer", config{})
	dump(t, rep)
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	claimsAgree(t, rep)
	s := rep.Summary
	if s.Fail+s.Error+s.Warn > 0 || s.Skip == 0 || !s.Passed || s.Claim != "Full Peer" {
		t.Fatalf("summary %+v, want a passing Full Peer with the gated scenarios skipped", s)
	}
	full := claim(rep, "Full Peer")
	if len(full.Unexercised) == 0 {
		t.Fatalf("Full Peer %+v names no unexercised requirement", full)
	}
	gaps := map[string]string{}
	for _, g := range full.NotExercised {
		gaps[g.ID] = g.Reason
	}
	for _, id := range full.Unexercised {
		if requirement(rep, id).Outcome == report.Pass {
			t.Errorf("unexercised %s counted as passed", id)
		}
		// The per-claim report says why, in the gate's words.
		if !strings.Contains(gaps[id], "needs "+control.Name) {
			t.Errorf("%s not exercised because %q, want it to say it needs %s", id, gaps[id], control.Name)
		}
	}
	if len(full.Exercised) < 100 {
		t.Errorf("Full Peer exercised only %d requirements", len(full.Exercised))
	}
}

// A peer started without control plays the initiator through its start-up
// orders; one that takes no orders at all has the initiator scenarios
// skipped, and its claims name what rests on them as not exercised, never
// as passed and never held against it.
func TestInitiationForms(t *testing.T) {
	t.Parallel()
	only := regexp.MustCompile(`^(initiator|lifecycle)\.`)
	t.Run("start-up", func(t *testing.T) {
		t.Parallel()
		rep := runAgainst(t, "plain-peer", config{Select: only})
		if rep.IUT.Initiation != formStartUp {
			t.Fatalf("initiation %q, want %q", rep.IUT.Initiation, formStartUp)
		}
		for _, sc := range rep.Scenarios {
			if strings.HasPrefix(sc.ID, "initiator.") && sc.Outcome != report.Pass {
				t.Errorf("%s: %s %s", sc.ID, sc.Outcome, sc.Message)
			}
		}
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		rep := runAgainst(t, "orderless-peer", config{})
		if rep.IUT.Initiation != "" {
			t.Fatalf("initiation %q, want none", rep.IUT.Initiation)
		}
		for _, sc := range rep.Scenarios {
			if strings.HasPrefix(sc.ID, "initiator.") && (sc.Outcome != report.Skip || !strings.Contains(sc.Message, "takes no initiation orders")) {
				t.Errorf("%s: %s %q, want skipped for taking no orders", sc.ID, sc.Outcome, sc.Message)
			}
		}
		for _, name := range []string{"Core Sender", "Core Receiver"} {
			c := claim(rep, name)
			if !c.Earned || len(c.UnexercisedInitiator) == 0 {
				t.Errorf("%s %+v: want earned, with its initiator duties named as not exercised", name, c)
			}
		}
		// Only initiator scenarios cite it: not passed, not failed.
		if o := requirement(rep, "SEND-LIFECYCLE-FIELDS").Outcome; o != report.Skip {
			t.Errorf("SEND-LIFECYCLE-FIELDS is %s for a peer that takes no orders, want skip", o)
		}
		if !slices.Contains(claim(rep, "Core Sender").UnexercisedInitiator, "SEND-LIFECYCLE-FIELDS") {
			t.Errorf("Core Sender does not name SEND-LIFECYCLE-FIELDS as not exercised")
		}
	})
}

// A requirement whose scenario failed was tested: the claim names the
// failing scenario, never "untested" for it.
func TestGradeFailedIsNotUntested(t *testing.T) {
	rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Fail, "r.input": report.Pass, "r.dedupe": report.Pass})
	grade(rep, config{}, "Core Peer")
	why := strings.Join(claim(rep, "Core Receiver").Why, "; ")
	if why != "r.terminal: fail" {
		t.Errorf("Core Receiver why %q, want only the failing scenario", why)
	}
}

// The Core Sender reason names what failed the passive verdict: a flood
// with no invalid envelope is NATS-PUBLISH-RATE, not "0 invalid".
func TestGradePassiveReasonNamesTheRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		passive report.PassiveResult
		want    string
	}{
		{"flood", report.PassiveResult{Outcome: report.Fail, Envelopes: 2000, Flooded: true,
			Findings: []report.PassiveFinding{{Rule: "NATS-PUBLISH-RATE", Level: "MUST", RunWide: true}}}, "passive validation: NATS-PUBLISH-RATE"},
		{"invalid envelopes", report.PassiveResult{Outcome: report.Fail, Envelopes: 9, Invalid: 2,
			Findings: []report.PassiveFinding{{Rule: "ENV-ID", Level: "MUST"}, {Rule: "DELIV-DEDUPE", Level: "SHOULD"}}}, "passive validation: 2 of 9 IUT envelopes invalid (ENV-ID)"},
		{"both", report.PassiveResult{Outcome: report.Fail, Envelopes: 9, Invalid: 1,
			Findings: []report.PassiveFinding{{Rule: "ENV-ID", Level: "MUST"}, {Rule: "INPUT-SIZE", Level: "MUST", RunWide: true}}}, "passive validation: 1 of 9 IUT envelopes invalid (ENV-ID); INPUT-SIZE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Pass, "r.input": report.Pass, "r.dedupe": report.Pass})
			rep.Passive = tc.passive
			grade(rep, config{}, "Core Peer")
			if why := strings.Join(claim(rep, "Core Sender").Why, "; "); why != tc.want {
				t.Errorf("Core Sender why %q, want %q", why, tc.want)
			}
		})
	}
}

// A requirement is graded from the steps that check it: a failed MUST step
// on one requirement says nothing about another that no step reached, a
// warning on a SHOULD step stays on its SHOULD, and a silence nothing
// showed was heard is no pass.
func TestGradeRequirementsFromSteps(t *testing.T) {
	rep := &report.Report{Level: "core", Passive: report.PassiveResult{Outcome: report.Pass, Envelopes: 3}}
	rep.Scenarios = []*report.ScenarioResult{
		{ID: "r.work", Claim: "core-receiver", Level: "MUST", Outcome: report.Warn,
			Requirements: []string{"LIFE-RECEIPT-ON-OPEN", "LIFE-CORRELATION", "RECEIPT-REASON-ABSENT"},
			Checked:      map[string]bool{"LIFE-RECEIPT-ON-OPEN": true, "LIFE-CORRELATION": true},
			Steps: []report.StepResult{
				{Index: 2, Kind: "expect", Outcome: report.Warn, Level: "SHOULD", Checks: []string{"LIFE-RECEIPT-ON-OPEN"}},
				{Index: 3, Kind: "expect", Outcome: report.Pass, Level: "MUST", Checks: []string{"LIFE-CORRELATION"}},
			}},
		{ID: "r.closed", Claim: "core-receiver", Level: "MUST", Outcome: report.Fail,
			Requirements: []string{"LIFE-WORK-CLOSED", "LIFE-TERMINAL-FINAL"},
			Checked:      map[string]bool{"LIFE-WORK-CLOSED": true, "LIFE-TERMINAL-FINAL": true},
			Steps: []report.StepResult{
				{Index: 2, Kind: "expect", Outcome: report.Fail, Level: "MUST", Checks: []string{"LIFE-WORK-CLOSED"}},
			}},
		{ID: "r.catalog", Claim: "core-receiver", Level: "MUST", Outcome: report.Warn,
			Requirements: []string{"DISC-CAPABILITY-CATALOG", "DISC-WHOIS-DIRECTED"},
			Checked:      map[string]bool{"DISC-CAPABILITY-CATALOG": true, "DISC-WHOIS-DIRECTED": true},
			Steps: []report.StepResult{
				{Index: 2, Kind: "expect_silence", Outcome: report.Skip, Message: unheard, Level: "MUST", Checks: []string{"DISC-CAPABILITY-CATALOG"}},
				{Index: 3, Kind: "expect", Outcome: report.Warn, Level: "SHOULD", Checks: []string{"DISC-WHOIS-DIRECTED"}},
			}},
	}
	grade(rep, config{}, "Core Peer")
	want := map[string]report.Outcome{
		"LIFE-RECEIPT-ON-OPEN":    report.Warn,
		"LIFE-CORRELATION":        report.Pass,
		"RECEIPT-REASON-ABSENT":   report.Pass, // no step checks it: the scenario as a whole did
		"LIFE-WORK-CLOSED":        report.Fail,
		"LIFE-TERMINAL-FINAL":     report.Skip, // its step was never reached
		"DISC-CAPABILITY-CATALOG": report.Skip, // unheard silence
		"DISC-WHOIS-DIRECTED":     report.Warn,
	}
	for _, rr := range rep.Requirements {
		if w, ok := want[rr.ID]; ok && rr.Outcome != w {
			t.Errorf("%s: %s, want %s", rr.ID, rr.Outcome, w)
		}
	}
	c := claim(rep, "Core Receiver")
	why := strings.Join(c.Why, "; ")
	if c.Earned || why != "r.closed: fail" {
		t.Errorf("Core Receiver %+v: want the failing scenario as the only reason (its unreached requirement is not called untested, the unheard catalog silence is no reason)", c)
	}

	// Without the failing scenario, the claim is earned: the unheard
	// silence's requirement is a caveat, not a reason.
	rep.Scenarios = append(rep.Scenarios[:1], rep.Scenarios[2])
	grade(rep, config{}, "Core Peer")
	if c := claim(rep, "Core Receiver"); !c.Earned || len(c.Unobserved) != 1 || c.Unobserved[0] != "DISC-CAPABILITY-CATALOG" {
		t.Errorf("Core Receiver %+v, want earned with DISC-CAPABILITY-CATALOG unobserved", c)
	}
}

// Each claim lists the requirements its scenarios cite that the run
// exercised and those it did not, with why: a gate the IUT did not meet,
// an uncredited silence, a step never reached. A failed requirement was
// exercised; so was one passive validation found broken.
func TestGradeExercisedPerClaim(t *testing.T) {
	rep := &report.Report{Level: "full", Passive: report.PassiveResult{Outcome: report.Fail, Envelopes: 3,
		Findings: []report.PassiveFinding{{Rule: "DELIV-ID-UNIQUE", Level: "MUST"}}}}
	rep.Scenarios = []*report.ScenarioResult{
		{ID: "s.greet", Claim: "core-sender", Level: "MUST", Outcome: report.Pass, Requirements: []string{"DISC-GREET-ON-JOIN"}},
		{ID: "s.skipped", Claim: "core-sender", Level: "MUST", Outcome: report.Skip, Message: "not selected by --run",
			Requirements: []string{"DELIV-ID-UNIQUE"}},
		{ID: "r.cancel", Claim: "core-receiver", Level: "MUST", Outcome: report.Skip, Message: "the IUT does not advertise profile " + control.Name,
			Requirements: []string{"LIFE-NEEDS-INPUT-RESUME"}},
		{ID: "r.closed", Claim: "core-receiver", Level: "MUST", Outcome: report.Fail,
			Requirements: []string{"LIFE-WORK-CLOSED", "LIFE-TERMINAL-FINAL"},
			Checked:      map[string]bool{"LIFE-WORK-CLOSED": true, "LIFE-TERMINAL-FINAL": true},
			Steps:        []report.StepResult{{Index: 2, Kind: "expect", Outcome: report.Fail, Level: "MUST", Checks: []string{"LIFE-WORK-CLOSED"}}}},
		{ID: "r.catalog", Claim: "core-receiver", Level: "MUST", Outcome: report.Pass,
			Requirements: []string{"DISC-CAPABILITY-CATALOG"}, Checked: map[string]bool{"DISC-CAPABILITY-CATALOG": true},
			Steps: []report.StepResult{{Index: 2, Kind: "expect_silence", Outcome: report.Skip, Message: unheard, Level: "MUST", Checks: []string{"DISC-CAPABILITY-CATALOG"}}}},
		{ID: "t.signed", Claim: "trust", Level: "MUST", Outcome: report.Skip,
			Message: "the IUT does not advertise trust mode agh-network.trust.ed25519-jcs/v1", Requirements: []string{"TRUST-RX-ACCEPT-VERIFIED"}},
	}
	grade(rep, config{}, "Full Peer")
	gaps := func(c report.ClaimResult) string {
		var s []string
		for _, g := range c.NotExercised {
			s = append(s, g.ID+" "+g.Level+" ("+g.Reason+")")
		}
		return strings.Join(s, ", ")
	}
	for _, tc := range []struct{ claim, exercised, gaps string }{
		{"Core Sender", "DELIV-ID-UNIQUE DISC-GREET-ON-JOIN", ""},
		{"Core Receiver", "LIFE-WORK-CLOSED",
			"DISC-CAPABILITY-CATALOG MUST (" + whyUnheard + "), LIFE-NEEDS-INPUT-RESUME MUST (needs " + control.Name + "), LIFE-TERMINAL-FINAL MUST (" + whyNotReached + ")"},
		{"Trust Peer", "DELIV-ID-UNIQUE DISC-GREET-ON-JOIN LIFE-WORK-CLOSED",
			"DISC-CAPABILITY-CATALOG MUST (" + whyUnheard + "), LIFE-NEEDS-INPUT-RESUME MUST (needs " + control.Name + "), LIFE-TERMINAL-FINAL MUST (" + whyNotReached + "), " +
				"TRUST-RX-ACCEPT-VERIFIED MUST (trust mode agh-network.trust.ed25519-jcs/v1 not advertised)"},
		{"JetStream (optional)", "", ""},
	} {
		t.Run(tc.claim, func(t *testing.T) {
			c := claim(rep, tc.claim)
			if got := strings.Join(c.Exercised, " "); got != tc.exercised {
				t.Errorf("exercised %q, want %q", got, tc.exercised)
			}
			if got := gaps(c); got != tc.gaps {
				t.Errorf("not exercised %q,\nwant %q", got, tc.gaps)
			}
			if c.Exercised == nil || c.NotExercised == nil {
				t.Error("nil lists (the JSON fields are always present)")
			}
		})
	}
	// Scenario skipped by --run on a requirement nothing else judged.
	rep.Passive = report.PassiveResult{Outcome: report.Pass, Envelopes: 3}
	grade(rep, config{}, "Full Peer")
	if got := gaps(claim(rep, "Core Sender")); got != "DELIV-ID-UNIQUE MUST (not selected by --run)" {
		t.Errorf("Core Sender not exercised %q", got)
	}
}

// A claim not earned names only the claims below it that were not earned:
// "✔ NATS Peer" is never followed by "Full Peer needs ... NATS Peer".
func TestClaimNeedsOnlyWhatIsMissing(t *testing.T) {
	for _, tc := range []struct {
		a, b bool
		want string
	}{
		{false, false, "needs Trust Peer and NATS Peer"},
		{false, true, "needs Trust Peer"},
		{true, false, "needs NATS Peer"},
		{true, true, ""},
	} {
		got := strings.Join(needs("Trust Peer", tc.a, "NATS Peer", tc.b), "")
		if got != tc.want {
			t.Errorf("needs(trust %v, nats %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// claimsAgree holds every section of rep's claims to one model: a claim
// that includes another's scenario claims (Trust Peer includes Core
// Receiver's) never lists as untested, nor as not exercised, what the
// other exercised; and a claim's untested requirements are among those it
// lists as not exercised.
func claimsAgree(t *testing.T, rep *report.Report) {
	t.Helper()
	parts := map[string][]string{}
	for _, cc := range conformanceClaims {
		parts[cc.name] = cc.parts
	}
	untested := func(c report.ClaimResult) []string {
		var out []string
		for _, w := range c.Why {
			if id, ok := strings.CutPrefix(w, report.UntestedPrefix); ok {
				out = append(out, id)
			}
		}
		return out
	}
	gapIDs := func(c report.ClaimResult) []string {
		var out []string
		for _, g := range c.NotExercised {
			out = append(out, g.ID)
		}
		return out
	}
	for _, b := range rep.Claims {
		for _, id := range untested(b) {
			if !slices.Contains(gapIDs(b), id) {
				t.Errorf("%s: %s untested, but not among the requirements it did not exercise", b.Name, id)
			}
		}
		for _, a := range rep.Claims {
			includes := len(parts[a.Name]) > 0 && !slices.ContainsFunc(parts[a.Name], func(p string) bool { return !slices.Contains(parts[b.Name], p) })
			if !includes {
				continue
			}
			for _, id := range a.Exercised {
				if slices.Contains(untested(b), id) || slices.Contains(gapIDs(b), id) {
					t.Errorf("%s exercised %s, but %s, which includes it, lists it as untested or not exercised", a.Name, id, b.Name)
				}
			}
		}
	}
}

// One claim model answers every section of the report: a requirement Core
// Receiver exercised (DELIV-MALFORMED-REFUSED, by its own receiver cases)
// is no untested requirement of Trust Peer, whose trust cases citing it
// too were not played, whether the trust claim was left out by the level,
// or played and skipped for a trust mode the IUT does not advertise.
func TestClaimsAgreeAcrossSections(t *testing.T) {
	for _, level := range []string{"core", "full"} {
		t.Run(level, func(t *testing.T) {
			rep := &report.Report{Level: level, Passive: report.PassiveResult{Outcome: report.Pass, Envelopes: 3}}
			rep.Scenarios = []*report.ScenarioResult{
				{ID: "s.greet", Claim: "core-sender", Level: "MUST", Outcome: report.Pass, Requirements: []string{"DISC-GREET-ON-JOIN"}},
				{ID: "r.malformed", Claim: "core-receiver", Level: "MUST", Outcome: report.Pass, Requirements: []string{"ENV-BODY-OBJECT", "DELIV-MALFORMED-REFUSED"}},
				{ID: "t.malformed", Claim: "trust", Level: "MUST", Outcome: report.Skip, Message: "claim trust is not part of level core",
					Requirements: []string{"TRUST-PROOF-OBJECT", "DELIV-MALFORMED-REFUSED"}},
				{ID: "n.subject", Claim: "nats", Level: "MUST", Outcome: report.Pass, Requirements: []string{"NATS-PUBLISH-SUBJECT"}},
			}
			if level == "full" {
				rep.Scenarios[2].Message = "the IUT does not advertise trust mode agh-network.trust.ed25519-jcs/v1"
			}
			grade(rep, config{}, levels[level].Target)
			claimsAgree(t, rep)
			trust := claim(rep, "Trust Peer")
			why := strings.Join(trust.Why, "; ")
			if trust.Earned || !strings.Contains(why, "untested: TRUST-PROOF-OBJECT") {
				t.Errorf("Trust Peer %+v, want not earned for TRUST-PROOF-OBJECT", trust)
			}
			if !slices.Contains(claim(rep, "Core Receiver").Exercised, "DELIV-MALFORMED-REFUSED") {
				t.Errorf("Core Receiver %+v did not exercise DELIV-MALFORMED-REFUSED", claim(rep, "Core Receiver"))
			}
		})
	}
}

// Every finding and requirement of a run carries what the catalogue says
// of its rule: the clause, the source and the errata readings that change
// its verdict, for every report format to show.
func TestGradeExplainsFindings(t *testing.T) {
	rep := gradeFixture(map[string]report.Outcome{"s.greet": report.Pass, "r.terminal": report.Pass, "r.input": report.Pass, "r.dedupe": report.Pass})
	rep.Passive = report.PassiveResult{Outcome: report.Fail, Envelopes: 3, Invalid: 1,
		Findings: []report.PassiveFinding{{Rule: "ENV-NULL-OPTIONAL", Level: "MUST", Count: 1, Scenarios: []string{"r.terminal"}}}}
	rep.Scenarios[1].SenderFindings = []report.PassiveFinding{{Rule: "ENV-NULL-OPTIONAL", Level: "MUST", Count: 1}}
	grade(rep, config{}, "Core Peer")
	want := []report.ErratumReading{{Erratum: "erratum 3", Flag: "null-as-absent"}}
	for _, f := range []report.PassiveFinding{rep.Passive.Findings[0], rep.Scenarios[1].SenderFindings[0]} {
		if !strings.Contains(f.Clause, "omitted rather than null") || !slices.Equal(f.Errata, want) {
			t.Errorf("finding %+v: want its clause and erratum 3 (--errata null-as-absent)", f)
		}
	}
	if rr := requirement(rep, "LIFE-TERMINAL-FINAL"); rr.Clause == "" || rr.Source == "" {
		t.Errorf("requirement %+v: no clause", rr)
	}
}
