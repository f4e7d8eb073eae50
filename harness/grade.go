package harness

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/catalogue"
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
	explain(rep)
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

// explain gives every finding and requirement of rep what the catalogue
// says of its rule (catalogue.Text): its clause and source, and the errata
// readings that change its verdict, so that each report format can point
// a reader at them.
func explain(rep *report.Report) {
	for i := range rep.Requirements {
		rep.Requirements[i].RuleText = catalogue.Text(rep.Requirements[i].ID)
	}
	for i := range rep.Passive.Findings {
		rep.Passive.Findings[i].RuleText = catalogue.Text(rep.Passive.Findings[i].Rule)
	}
	for _, sc := range rep.Scenarios {
		for i := range sc.SenderFindings {
			sc.SenderFindings[i].RuleText = catalogue.Text(sc.SenderFindings[i].Rule)
		}
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

// claimVerdict is what the scenarios of one scenario claim add up to. What
// its requirements lack is kept apart (gaps): a conformance claim built on
// several scenario claims joins them, so that a requirement one of them
// exercised is never untested in a claim that includes it.
type claimVerdict struct {
	inLevel bool
	// failures are its failing scenarios; tail the other reasons it is not
	// earned (passive validation, no scenario passed).
	failures, tail []string
	verdicts       map[string]verdict
	// gaps are the MUST requirements its scenarios cite that none of its
	// steps judged, with why.
	gaps map[string]gap
}

// gap is why a scenario claim did not judge a MUST requirement its
// scenarios cite, the strongest first: a claim joining several takes the
// strongest any of them gives.
type gap int

const (
	gapUntested  gap = iota // held against the claim
	gapFailed               // cited by a failing scenario: named as failing, never as untested
	gapInitiator            // only initiator scenarios reach it, for an IUT that takes no orders
	gapControl              // only control-gated scenarios reach it
	gapUnheard              // only unheard silences checked it
)

// why is what a scenario claim that is not earned says first and last.
func (v claimVerdict) why(level string, untested []string) []string {
	var out []string
	if !v.inLevel {
		out = append(out, "not part of level "+level)
	}
	out = append(out, v.failures...)
	for _, id := range untested {
		out = append(out, report.UntestedPrefix+id)
	}
	return append(out, v.tail...)
}

// judgeClaim grades one scenario claim (core-sender, trust, ...): every
// MUST requirement its scenarios cite must have been judged by a step.
func judgeClaim(rep *report.Report, claim string, inLevel bool, controlOnly, initiatorOnly map[string]bool) claimVerdict {
	v := claimVerdict{inLevel: inLevel, verdicts: map[string]verdict{}, gaps: map[string]gap{}}
	failed := map[string]bool{}
	played := false
	for _, sc := range rep.Scenarios {
		if sc.Claim != claim {
			continue
		}
		switch sc.Outcome {
		case report.Fail, report.Error:
			v.failures = append(v.failures, fmt.Sprintf("%s: %s", sc.ID, sc.Outcome))
			for _, id := range sc.Requirements {
				failed[id] = sc.Outcome == report.Fail || failed[id]
			}
		case report.Pass, report.Warn:
			played = true
		}
		for id, sv := range scenarioVerdicts(sc) {
			v.verdicts[id] = v.verdicts[id].join(sv)
		}
	}
	for id, rv := range v.verdicts {
		if r, ok := catalogue.Lookup(id); !ok || r.Severity != rules.Error || rv.outcome != report.Skip {
			continue
		}
		switch {
		case initiatorOnly[claim+"/"+id]:
			v.gaps[id] = gapInitiator
		case controlOnly[claim+"/"+id]:
			v.gaps[id] = gapControl
		case rv.unheard:
			v.gaps[id] = gapUnheard
		case failed[id]:
			v.gaps[id] = gapFailed
		default:
			v.gaps[id] = gapUntested
		}
	}
	if claim == senderClaim {
		switch rep.Passive.Outcome {
		case report.Fail:
			v.tail = append(v.tail, passiveWhy(rep.Passive))
		case report.Skip, "":
			v.tail = append(v.tail, "passive validation: the IUT published nothing")
		}
	}
	if inLevel && !played {
		v.tail = append(v.tail, "no scenario passed")
	}
	return v
}

// joined is what a conformance claim's scenario claims add up to: every
// requirement with the verdict of all of them, and the MUST requirements
// none of them judged (nor passive validation found broken), by why.
type joined struct {
	verdicts                                       map[string]verdict
	untested, unexercised, uninitiated, unobserved []string
}

func join(v map[string]claimVerdict, passive map[string]bool, parts []string) joined {
	j := joined{verdicts: map[string]verdict{}}
	gaps := map[string]gap{}
	for _, c := range parts {
		for id, rv := range v[c].verdicts {
			j.verdicts[id] = j.verdicts[id].join(rv)
		}
		for id, g := range v[c].gaps {
			if old, ok := gaps[id]; !ok || g < old {
				gaps[id] = g
			}
		}
	}
	for id, g := range gaps {
		if j.verdicts[id].outcome != report.Skip || passive[id] {
			continue // another part judged it
		}
		switch g {
		case gapUntested:
			j.untested = append(j.untested, id)
		case gapInitiator:
			j.uninitiated = append(j.uninitiated, id)
		case gapControl:
			j.unexercised = append(j.unexercised, id)
		case gapUnheard:
			j.unobserved = append(j.unobserved, id)
		}
	}
	for _, l := range [][]string{j.untested, j.unexercised, j.uninitiated, j.unobserved} {
		sort.Strings(l)
	}
	return j
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

// conformanceClaim is one claim of the Conformance Levels page, built from
// scenario claims (its parts); on, when set, is the claim it is built on
// (Trust and NATS Peer on Core Peer), needs the two it takes together
// (Core Peer, Full Peer).
type conformanceClaim struct {
	name  string
	parts []string
	on    string
	needs [2]string
}

// conformanceClaims in report order. A claim's requirements are those its
// parts' scenarios cite, judged by all of them at once.
var conformanceClaims = []conformanceClaim{
	{name: "Core Sender", parts: []string{senderClaim}},
	{name: "Core Receiver", parts: []string{"core-receiver"}},
	{name: "Core Peer", parts: []string{senderClaim, "core-receiver"}, needs: [2]string{"Core Sender", "Core Receiver"}},
	{name: "Trust Peer", parts: []string{senderClaim, "core-receiver", "trust"}, on: "Core Peer"},
	{name: "NATS Peer", parts: []string{senderClaim, "core-receiver", "nats"}, on: "Core Peer"},
	{name: "Full Peer", parts: []string{senderClaim, "core-receiver", "trust", "nats"}, needs: [2]string{"Trust Peer", "NATS Peer"}},
	{name: "JetStream (optional)", parts: []string{"jetstream"}},
}

// claims builds the conformance claims from the scenario claims: Core Peer
// from Core Sender and Core Receiver, Trust and NATS Peer on top of Core
// Peer, Full Peer from both. Every section of the report answers from this
// one model: a claim's untested requirements, its caveats and what it
// exercised are all taken from its parts joined, so a requirement one
// claim exercised is never untested in a claim that includes it.
func claims(rep *report.Report, cfg config) []report.ClaimResult {
	controlOnly := controlOnlyRequirements(rep, cfg)
	initiatorOnly := initiatorOnlyRequirements(rep, cfg)
	v := map[string]claimVerdict{}
	for _, c := range claimOrder {
		v[c] = judgeClaim(rep, c, slices.Contains(levels[rep.Level].Claims, c), controlOnly, initiatorOnly)
	}
	passive := map[string]bool{}
	for _, f := range rep.Passive.Findings {
		passive[f.Rule] = true
	}
	earned, untested := map[string]bool{}, map[string][]string{}
	var out []report.ClaimResult
	for _, cc := range conformanceClaims {
		j := join(v, passive, cc.parts)
		untested[cc.name] = j.untested
		var why []string
		switch {
		case cc.needs[0] != "":
			why = needs(cc.needs[0], earned[cc.needs[0]], cc.needs[1], earned[cc.needs[1]])
		case cc.on != "":
			// The part of its own: what it adds to the claim it is built
			// on, whose untested requirements that claim names.
			own := v[cc.parts[len(cc.parts)-1]]
			why = own.why(rep.Level, slices.DeleteFunc(slices.Clone(j.untested), func(id string) bool { return slices.Contains(untested[cc.on], id) }))
			if !earned[cc.on] {
				why = append(why, "needs "+cc.on)
			}
		default:
			why = v[cc.parts[0]].why(rep.Level, j.untested)
		}
		earned[cc.name] = len(why) == 0
		rc := report.ClaimResult{Name: cc.name, Earned: earned[cc.name], Unexercised: j.unexercised, UnexercisedInitiator: j.uninitiated, Unobserved: j.unobserved}
		if !rc.Earned {
			rc.Why = why
		}
		rc.Exercised, rc.NotExercised = exercised(j.verdicts, passive)
		out = append(out, rc)
	}
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
