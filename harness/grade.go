package harness

import (
	"fmt"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"slices"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Scenario claim ids and the conformance claims built from them.
var claimOrder = []string{senderClaim, "core-receiver", "trust", "nats", "jetstream"}

// senderClaim is the scenario claim a defect in what the IUT sends is
// charged to, wherever it was sent.
const senderClaim = "core-sender"

// grade fills the summary, the requirement table and the claims. A claim is
// earned only when nothing in it failed and every MUST requirement it cites
// was actually exercised by a passing scenario: an untested requirement is
// never counted as passed.
func grade(rep *report.Report, cfg config, target string) {
	rep.Summary = summarize(rep.Scenarios, target)
	rep.Requirements = requirementTable(rep)
	rep.Claims = claims(rep, cfg)
	s := &rep.Summary
	s.Claim = bestClaim(rep.Claims)
	for _, c := range rep.Claims {
		if c.Name == target {
			s.Passed = c.Earned
		}
	}
	if rep.Selection != "" {
		// A narrowed run cannot earn a claim (its passive verdict saw only
		// part of the IUT's traffic); it passes when what ran passed.
		s.Passed = s.Fail == 0 && s.Error == 0 && rep.Passive.Outcome != report.Fail && s.Pass+s.Warn > 0
		withhold(rep, "a run narrowed by --run earns no claim")
	}
	if s.Incomplete {
		// What was not played was not judged: no claim rests on it.
		s.Passed = false
		withhold(rep, "the run is incomplete: some scenarios could not be played ("+strings.Join(s.Unplayed, "; ")+")")
	}
	if rep.Error != "" {
		// A run that could not be carried out earns nothing.
		s.Passed = false
		withhold(rep, "the run was not carried out: "+rep.Error)
	}
}

// summarize counts the scenario outcomes.
func summarize(scs []*report.ScenarioResult, target string) report.Summary {
	s := report.Summary{Target: target}
	for _, sc := range scs {
		switch sc.Outcome {
		case report.Pass:
			s.Pass++
		case report.Fail:
			s.Fail++
		case report.Warn:
			s.Warn++
		case report.Skip:
			s.Skip++
		case report.Error:
			s.Error++
		}
		s.ScenarioTime += sc.Duration
		s.Incomplete = s.Incomplete || sc.Unplayed
		if why, ok := strings.CutPrefix(sc.Message, "not played: "); sc.Unplayed && ok && !slices.Contains(s.Unplayed, why) {
			s.Unplayed = append(s.Unplayed, why)
		}
	}
	s.Latency = runLatency(scs)
	s.Load = runLoad(scs)
	return s
}

// claimVerdict is what the scenarios of one scenario claim add up to.
type claimVerdict struct {
	earned      bool
	why         []string // why not earned
	unexercised []string // MUST requirements only control-gated scenarios reach
	uninitiated []string // MUST requirements only initiator scenarios reach, for an IUT that takes no orders
	unobserved  []string // MUST requirements only unheard silences checked
	verdicts    map[string]verdict
}

// judgeClaim grades one scenario claim (core-sender, trust, ...): every
// MUST requirement its scenarios cite must have been judged by a step.
func judgeClaim(rep *report.Report, claim string, inLevel bool, controlOnly, initiatorOnly map[string]bool) claimVerdict {
	var v claimVerdict
	verdicts := map[string]verdict{}
	failed := map[string]bool{} // cited by a failing scenario: named as failing, never as untested
	played := false
	for _, sc := range rep.Scenarios {
		if sc.Claim != claim {
			continue
		}
		switch sc.Outcome {
		case report.Fail, report.Error:
			v.why = append(v.why, fmt.Sprintf("%s: %s", sc.ID, sc.Outcome))
			for _, id := range sc.Requirements {
				failed[id] = sc.Outcome == report.Fail || failed[id]
			}
		case report.Pass, report.Warn:
			played = true
		}
		for id, sv := range scenarioVerdicts(sc) {
			verdicts[id] = verdicts[id].join(sv)
		}
	}
	var untested []string
	for id, rv := range verdicts {
		if r, ok := catalogue.Lookup(id); !ok || r.Severity != rules.Error || rv.outcome != report.Skip {
			continue
		}
		switch {
		case initiatorOnly[claim+"/"+id]:
			v.uninitiated = append(v.uninitiated, id)
		case controlOnly[claim+"/"+id]:
			v.unexercised = append(v.unexercised, id)
		case rv.unheard:
			v.unobserved = append(v.unobserved, id)
		case !failed[id]:
			untested = append(untested, id)
		}
	}
	sort.Strings(untested)
	sort.Strings(v.unexercised)
	sort.Strings(v.uninitiated)
	sort.Strings(v.unobserved)
	for _, id := range untested {
		v.why = append(v.why, "untested: "+id)
	}
	if claim == senderClaim {
		switch rep.Passive.Outcome {
		case report.Fail:
			v.why = append(v.why, passiveWhy(rep.Passive))
		case report.Skip, "":
			v.why = append(v.why, "passive validation: the IUT published nothing")
		}
	}
	switch {
	case !inLevel:
		v.why = append([]string{"not part of level " + rep.Level}, v.why...)
	case !played:
		v.why = append(v.why, "no scenario passed")
	}
	v.earned = inLevel && played && len(v.why) == 0
	v.verdicts = verdicts
	return v
}

// passiveWhy says what failed the passive verdict: the rules the invalid
// envelopes broke, and the run-wide findings (a flood, an oversized
// publish) that fail it with no invalid envelope at all.
func passiveWhy(p report.PassiveResult) string {
	var envelope, runWide []string
	for _, f := range p.Findings {
		if f.RunWide {
			runWide = append(runWide, f.Rule)
		} else if f.Level == "MUST" {
			envelope = append(envelope, f.Rule)
		}
	}
	var parts []string
	if p.Invalid > 0 {
		s := fmt.Sprintf("%d of %d IUT envelopes invalid", p.Invalid, p.Envelopes)
		if len(envelope) > 0 {
			s += " (" + strings.Join(envelope, ", ") + ")"
		}
		parts = append(parts, s)
	}
	parts = append(parts, runWide...)
	if len(parts) == 0 {
		parts = append(parts, "failed")
	}
	return "passive validation: " + strings.Join(parts, "; ")
}

// verdict is what a run says about one requirement.
type verdict struct {
	outcome report.Outcome // the worst verdict of a step on it; skip when none judged it
	unheard bool           // a silence checked it, but nothing showed the IUT listened
	judged  bool           // a step or a played scenario judged it (pass, warn or fail)
	// why says, when nothing judged it, why not (distinct reasons).
	why []string
}

var outcomeRank = map[report.Outcome]int{report.Skip: 0, report.Pass: 1, report.Warn: 2, report.Fail: 3, report.Error: 4}

func (v verdict) join(w verdict) verdict {
	if v.outcome == "" || outcomeRank[w.outcome] > outcomeRank[v.outcome] {
		v.outcome = w.outcome
	}
	v.unheard = v.unheard || w.unheard
	v.judged = v.judged || w.judged
	for _, y := range w.why {
		if !slices.Contains(v.why, y) {
			v.why = append(v.why, y)
		}
	}
	return v
}

// judgedAs is the verdict of one step or scenario with outcome o; why is
// the reason when o judged nothing (skip or error).
func judgedAs(o report.Outcome, why string) verdict {
	v := verdict{outcome: o, judged: o == report.Pass || o == report.Warn || o == report.Fail}
	if !v.judged && why != "" {
		v.why = []string{why}
	}
	return v
}

// Why a requirement went unjudged, in the words of the per-claim report.
const (
	whyUnheard    = "only silences checked it, and nothing showed the IUT listening"
	whyNotOffered = "optional behaviour not offered"
	whyNotReached = "its scenario stopped at an earlier step"
	whyOtherStep  = "its scenario failed on another step"
	whyError      = "its scenario ended in a harness error"
)

// skipWhy says why a skipped scenario was not played, shorter than its
// message where a gate names what the IUT did not advertise.
func skipWhy(sc *report.ScenarioResult) string {
	switch {
	case sc.Outcome == report.Error:
		return whyError
	case strings.HasPrefix(sc.Message, "the IUT does not advertise profile "):
		return "needs " + strings.TrimPrefix(sc.Message, "the IUT does not advertise profile ")
	case strings.HasPrefix(sc.Message, "the IUT does not advertise trust mode "):
		return "trust mode " + strings.TrimPrefix(sc.Message, "the IUT does not advertise trust mode ") + " not advertised"
	case sc.Message == "":
		return "not played"
	}
	return sc.Message
}

// scenarioVerdicts grades each requirement a scenario cites from the steps
// that check it, not from the scenario's outcome: a failed step says
// nothing about the requirements other steps check. A requirement no step
// checks (an envelope rule the scenario's envelopes are validated against)
// is exercised when the scenario passed or warned; passive validation
// names it when it is what broke.
func scenarioVerdicts(sc *report.ScenarioResult) map[string]verdict {
	out := make(map[string]verdict, len(sc.Requirements))
	for _, st := range sc.Steps {
		for _, id := range st.Checks {
			why := whyNotOffered
			switch {
			case st.Outcome == report.Error:
				why = whyError
			case st.Message == unheard:
				why = whyUnheard
			}
			sv := judgedAs(st.Outcome, why)
			sv.unheard = st.Outcome == report.Skip && st.Message == unheard
			out[id] = out[id].join(sv)
		}
	}
	for _, id := range sc.Requirements {
		if sc.Checked[id] {
			why := "" // a step on it says why
			switch {
			case sc.Outcome == report.Skip || sc.Outcome == report.Error:
				why = skipWhy(sc)
			case out[id].outcome == "":
				why = whyNotReached
			}
			out[id] = out[id].join(judgedAs(report.Skip, why))
			continue
		}
		o, why := sc.Outcome, skipWhy(sc)
		if sc.Checked != nil && o == report.Warn {
			o = report. // the warning is another step's
					Pass
		}
		if sc.Checked != nil && o == report.Fail {
			o, why = report.Skip, whyOtherStep // the failure is another step's, or passive validation names it
		}
		out[id] = judgedAs(o, why)
	}
	return out
}

// claims builds the conformance claims from the scenario claims: Core Peer
// from Core Sender and Core Receiver, Trust and NATS Peer on top of Core
// Peer, Full Peer from both. A claim inherits the caveats of the claims it
// is built on.
func claims(rep *report.Report, cfg config) []report.ClaimResult {
	controlOnly := controlOnlyRequirements(rep, cfg)
	initiatorOnly := initiatorOnlyRequirements(rep, cfg)
	v := map[string]claimVerdict{}
	for _, c := range claimOrder {
		v[c] = judgeClaim(rep, c, slices.Contains(levels[rep.Level].Claims, c), controlOnly, initiatorOnly)
	}
	var out []report.ClaimResult
	passive := map[string]bool{}
	for _, f := range rep.Passive.Findings {
		passive[f.Rule] = true
	}
	add := func(name string, earned bool, why []string, parts ...string) {
		rc := report.ClaimResult{Name: name, Earned: earned}
		if !earned {
			rc.Why = why
		}
		joined := map[string]verdict{}
		for _, c := range parts {
			rc.Unexercised = append(rc.Unexercised, v[c].unexercised...)
			rc.UnexercisedInitiator = append(rc.UnexercisedInitiator, v[c].uninitiated...)
			rc.Unobserved = append(rc.Unobserved, v[c].unobserved...)
			for id, rv := range v[c].verdicts {
				joined[id] = joined[id].join(rv)
			}
		}
		// A requirement one part left to a test-only gate but another
		// exercised (a concurrency scenario behind the control extension
		// citing what an ungated core scenario judged) is exercised.
		judged := func(id string) bool { return joined[id].judged }
		rc.Unexercised = slices.Compact(slices.DeleteFunc(slices.Sorted(slices.Values(rc.Unexercised)), judged))
		rc.UnexercisedInitiator = slices.Compact(slices.DeleteFunc(slices.Sorted(slices.Values(rc.UnexercisedInitiator)), judged))
		sort.Strings(rc.Unobserved)
		rc.Exercised, rc.NotExercised = exercised(joined, passive)
		out = append(out, rc)
	}
	core := v["core-sender"].earned && v["core-receiver"].earned
	onCore := func(c string) []string {
		why := slices.Clone(v[c].why)
		if !core {
			why = append(why, "needs Core Peer")
		}
		return why
	}
	trustPeer := core && v["trust"].earned
	natsPeer := core && v["nats"].earned
	add("Core Sender", v["core-sender"].earned, v["core-sender"].why, "core-sender")
	add("Core Receiver", v["core-receiver"].earned, v["core-receiver"].why, "core-receiver")
	add("Core Peer", core, needs("Core Sender", v["core-sender"].earned, "Core Receiver", v["core-receiver"].earned), "core-sender", "core-receiver")
	add("Trust Peer", trustPeer, onCore("trust"), "core-sender", "core-receiver", "trust")
	add("NATS Peer", natsPeer, onCore("nats"), "core-sender", "core-receiver", "nats")
	add("Full Peer", trustPeer && natsPeer, needs("Trust Peer", trustPeer, "NATS Peer", natsPeer), "core-sender", "core-receiver", "trust", "nats")
	add("JetStream (optional)", v["jetstream"].earned, v["jetstream"].why, "jetstream")
	return out
}

// needs says which of the two claims a claim is built on were not earned:
// only those, so that it never contradicts a claim printed as earned.
func needs(a string, aEarned bool, b string, bEarned bool) []string {
	switch {
	case !aEarned && !bEarned:
		return []string{"needs " + a + " and " + b}
	case !aEarned:
		return []string{"needs " + a}
	case !bEarned:
		return []string{"needs " + b}
	}
	return nil
}

// exercised splits a claim's requirements into those the run judged and
// those it did not, with why. A rule passive validation found broken was
// judged, whatever became of the scenarios citing it.
func exercised(verdicts map[string]verdict, passive map[string]bool) ([]string, []report.RequirementGap) {
	done, gaps := []string{}, []report.RequirementGap{}
	for id, rv := range verdicts {
		if rv.judged || passive[id] {
			done = append(done, id)
			continue
		}
		g := report.RequirementGap{ID: id, Level: "MUST", Reason: strings.Join(rv.why, "; ")}
		if r, ok := catalogue.Lookup(id); ok {
			g.Level = r.Severity.Level()
		}
		if g.Reason == "" {
			g.Reason = "not played"
		}
		gaps = append(gaps, g)
	}
	sort.Strings(done)
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].ID < gaps[j].ID })
	return done, gaps
}

// claimRank is the order in which an earned claim is the best one.
var claimRank = []string{"Full Peer", "Trust Peer", "NATS Peer", "Core Peer", "Core Receiver", "Core Sender"}

// bestClaim names the highest claim earned ("none" when none).
func bestClaim(cs []report.ClaimResult) string {
	for _, name := range claimRank {
		for _, c := range cs {
			if c.Name == name && c.Earned {
				return name
			}
		}
	}
	return "none"
}

// withhold takes back every claim earned, saying why.
func withhold(rep *report.Report, why string) {
	rep.Summary.Claim = "none"
	for i := range rep.Claims {
		if rep.Claims[i].Earned {
			rep.Claims[i].Earned = false
			rep.Claims[i].Why = []string{why}
		}
	}
}

// requirementTable grades every requirement of the run from the steps
// that check it, plus the passive findings on it.
func requirementTable(rep *report.Report) []report.RequirementResult {
	byID := map[string]*report.RequirementResult{}
	get := func(id, level string) *report.RequirementResult {
		rr := byID[id]
		if rr == nil {
			rr = &report.RequirementResult{ID: id, Level: level, Outcome: report.Skip}
			if r, ok := catalogue.Lookup(id); ok {
				rr.Level = r.Severity.Level()
			}
			byID[id] = rr
		}
		return rr
	}
	worst := func(rr *report.RequirementResult, o report.Outcome) {
		if outcomeRank[o] > outcomeRank[rr.Outcome] {
			rr.Outcome = o
		}
	}
	for _, sc := range rep.Scenarios {
		verdicts := scenarioVerdicts(sc)
		for _, id := range sc.Requirements {
			rr := get(id, "")
			rr.Scenarios = append(rr.Scenarios, sc.ID)
			worst(rr, verdicts[id].outcome)
		}
	}
	for _, pf := range rep.Passive.Findings {
		rr := get(pf.Rule, pf.Level)
		rr.Scenarios = append(rr.Scenarios, "passive")
		o := report.Fail
		if pf.Level != "MUST" {
			o = report.Warn
		}
		worst(rr, o)
	}
	out := make([]report.RequirementResult, 0, len(byID))
	for _, rr := range byID {
		out = append(out, *rr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// controlOnlyRequirements are the requirements that only scenarios skipped
// for lack of the aghcheck.control/v1 advertisement cite in this run: a
// third-party peer cannot be driven into those states by protocol messages
// alone, so it must not be failed for lacking a test-only extension.
func controlOnlyRequirements(rep *report.Report, cfg config) map[string]bool {
	return behindGate(rep, cfg, testGates(rep), 0)
}

// initiatorOnlyRequirements are the requirements that only initiator
// scenarios cite, for an IUT that takes no initiation orders: a peer that
// cannot be asked to open work shows nothing of its initiator's half, and
// must not be failed for lacking a test-only interface.
func initiatorOnlyRequirements(rep *report.Report, cfg config) map[string]bool {
	return behindGate(rep, cfg, testGates(rep), 1)
}

// testGate is one of the test-only interfaces a scenario may need: whether
// the IUT offers it, and whether a scenario needs it.
type testGate struct {
	open  bool
	needs func(*scenario.Scenario) bool
}

// testGates are the control extension (0) and initiation orders (1).
func testGates(rep *report.Report) [2]testGate {
	return [2]testGate{
		{advertises(rep.IUT.Card, "profiles_supported", control.Name), func(sc *scenario.Scenario) bool { return sc.Requires.Profile == control.Name }},
		{rep.IUT.Initiation != "", (*scenario.Scenario).Initiates},
	}
}

// behindGate is onlyReachedBy for gate i of gates: nil when the IUT offers
// it; the scenarios skipped behind the other closed gate are neutral.
func behindGate(rep *report.Report, cfg config, gates [2]testGate, i int) map[string]bool {
	if gates[i].open {
		return nil
	}
	other := gates[1-i]
	gated, neutral := map[string]bool{}, map[string]bool{}
	for _, sc := range cfg.Scenarios {
		switch {
		case gates[i].needs(sc):
			gated[sc.ID] = true
		case !other.open && other.needs(sc):
			neutral[sc.ID] = true
		}
	}
	return onlyReachedBy(rep, gated, neutral)
}

// onlyReachedBy are the requirements that only the gated scenarios, skipped
// in rep, cite, besides the neutral ones (skipped behind the other
// test-only gate, which names its own requirements).
func onlyReachedBy(rep *report.Report, gated, neutral map[string]bool) map[string]bool {
	// Keyed claim/id: a requirement another claim's scenarios reached is
	// still unreached for this claim.
	only, reached := map[string]bool{}, map[string]bool{}
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Skip && neutral[sc.ID] {
			continue
		}
		gatedSkip := sc.Outcome == report.Skip && gated[sc.ID]
		for _, id := range sc.Requirements {
			if gatedSkip {
				only[sc.Claim+"/"+id] = true
			} else {
				reached[sc.Claim+"/"+id] = true
			}
		}
	}
	for key := range reached {
		delete(only, key)
	}
	return only
}
