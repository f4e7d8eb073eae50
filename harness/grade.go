package harness

import (
	"fmt"
	"github.com/aghcheck/aghcheck/peer"
	"sort"

	"github.com/aghcheck/aghcheck/rules"
)

// Scenario claim ids and the conformance claims built from them.
var claimOrder = []string{"core-sender", "core-receiver", "trust", "nats", "jetstream"}

var claimNames = map[string]string{
	"core-sender": "Core Sender", "core-receiver": "Core Receiver",
	"trust": "Trust Peer", "nats": "NATS Peer", "jetstream": "JetStream (optional)",
}

// grade fills the summary, the requirement table and the claims. A claim is
// earned only when nothing in it failed and every MUST requirement it cites
// was actually exercised by a passing scenario: an untested requirement is
// never counted as passed.
func grade(rep *Report, cfg Config, target string) {
	s := &rep.Summary
	*s = Summary{Target: target}
	for _, sc := range rep.Scenarios {
		switch sc.Outcome {
		case Pass:
			s.Pass++
		case Fail:
			s.Fail++
		case Warn:
			s.Warn++
		case Skip:
			s.Skip++
		case Error:
			s.Error++
		}
		s.ScenarioTime += sc.Duration
	}
	rep.Requirements = requirementTable(rep)

	inLevel := map[string]bool{}
	for _, c := range Levels[rep.Level].Claims {
		inLevel[c] = true
	}
	earned := map[string]bool{}
	whyNot := map[string][]string{}
	caveats := map[string][]string{}
	controlOnly := controlOnlyRequirements(rep, cfg)
	for _, c := range claimOrder {
		var why []string
		tested := map[string]bool{}
		cited := map[string]bool{}
		any := false
		for _, sc := range rep.Scenarios {
			if sc.Claim != c {
				continue
			}
			switch sc.Outcome {
			case Fail, Error:
				why = append(why, fmt.Sprintf("%s: %s", sc.ID, sc.Outcome))
			case Pass, Warn:
				any = true
				for _, id := range sc.Requirements {
					tested[id] = true
				}
			}
			if sc.Level == "MUST" {
				for _, id := range sc.Requirements {
					cited[id] = true
				}
			}
		}
		var untested, unexercised []string
		for id := range cited {
			if r, ok := rules.Lookup(id); ok && r.Severity == rules.Error && !tested[id] {
				if controlOnly[id] {
					unexercised = append(unexercised, id)
				} else {
					untested = append(untested, id)
				}
			}
		}
		sort.Strings(untested)
		sort.Strings(unexercised)
		for _, id := range untested {
			why = append(why, "untested: "+id)
		}
		caveats[c] = unexercised
		if c == "core-sender" {
			switch rep.Passive.Outcome {
			case Fail:
				why = append(why, fmt.Sprintf("passive validation: %d invalid IUT envelopes", rep.Passive.Invalid))
			case Skip, "":
				why = append(why, "passive validation: the IUT published nothing")
			}
		}
		if !inLevel[c] {
			why = append([]string{"not part of level " + rep.Level}, why...)
		} else if !any {
			why = append(why, "no scenario passed")
		}
		earned[c] = inLevel[c] && any && len(why) == 0
		whyNot[c] = why
	}
	core := earned["core-sender"] && earned["core-receiver"]
	// A claim inherits the caveats of the claims it is built on.
	union := func(cs ...string) []string {
		var out []string
		for _, c := range cs {
			out = append(out, caveats[c]...)
		}
		sort.Strings(out)
		return out
	}
	unexercisedOf := map[string][]string{
		"Core Sender":          union("core-sender"),
		"Core Receiver":        union("core-receiver"),
		"Core Peer":            union("core-sender", "core-receiver"),
		"Trust Peer":           union("core-sender", "core-receiver", "trust"),
		"NATS Peer":            union("core-sender", "core-receiver", "nats"),
		"Full Peer":            union("core-sender", "core-receiver", "trust", "nats"),
		"JetStream (optional)": union("jetstream"),
	}
	add := func(name string, ok bool, why []string) {
		rc := ClaimResult{Name: name, Earned: ok}
		if !ok {
			rc.Why = why
		}
		rc.Unexercised = unexercisedOf[name]
		rep.Claims = append(rep.Claims, rc)
	}
	add("Core Sender", earned["core-sender"], whyNot["core-sender"])
	add("Core Receiver", earned["core-receiver"], whyNot["core-receiver"])
	corePrereq := func(c string) []string {
		why := append([]string(nil), whyNot[c]...)
		if !core {
			why = append(why, "needs Core Peer")
		}
		return why
	}
	add("Core Peer", core, []string{"needs Core Sender and Core Receiver"})
	trustPeer := core && earned["trust"]
	natsPeer := core && earned["nats"]
	add("Trust Peer", trustPeer, corePrereq("trust"))
	add("NATS Peer", natsPeer, corePrereq("nats"))
	full := trustPeer && natsPeer
	add("Full Peer", full, []string{"needs Trust Peer and NATS Peer"})
	add("JetStream (optional)", earned["jetstream"], whyNot["jetstream"])

	switch {
	case full:
		s.Claim = "Full Peer"
	case trustPeer:
		s.Claim = "Trust Peer"
	case natsPeer:
		s.Claim = "NATS Peer"
	case core:
		s.Claim = "Core Peer"
	case earned["core-receiver"]:
		s.Claim = "Core Receiver"
	case earned["core-sender"]:
		s.Claim = "Core Sender"
	default:
		s.Claim = "none"
	}
	for _, c := range rep.Claims {
		if c.Name == target {
			s.Passed = c.Earned
		}
	}
	withhold := func(why string) {
		s.Claim = "none"
		for i := range rep.Claims {
			if rep.Claims[i].Earned {
				rep.Claims[i].Earned = false
				rep.Claims[i].Why = []string{why}
			}
		}
	}
	if rep.Selection != "" {
		// A narrowed run cannot earn a claim (its passive verdict saw only
		// part of the IUT's traffic); it passes when what ran passed.
		s.Passed = s.Fail == 0 && s.Error == 0 && rep.Passive.Outcome != Fail && s.Pass+s.Warn > 0
		withhold("a run narrowed by --run earns no claim")
	}
	if rep.Error != "" {
		// A run that could not be carried out earns nothing.
		s.Passed = false
		withhold("the run was not carried out: " + rep.Error)
	}
}

func requirementTable(rep *Report) []RequirementResult {
	byID := map[string]*RequirementResult{}
	rank := map[Outcome]int{Skip: 0, Pass: 1, Warn: 2, Fail: 3, Error: 4}
	for _, sc := range rep.Scenarios {
		for _, id := range sc.Requirements {
			rr := byID[id]
			if rr == nil {
				rr = &RequirementResult{ID: id, Outcome: Skip}
				if r, ok := rules.Lookup(id); ok {
					rr.Level = r.Severity.Level()
				}
				byID[id] = rr
			}
			rr.Scenarios = append(rr.Scenarios, sc.ID)
			if rank[sc.Outcome] > rank[rr.Outcome] {
				rr.Outcome = sc.Outcome
			}
		}
	}
	for _, pf := range rep.Passive.Findings {
		rr := byID[pf.Rule]
		if rr == nil {
			rr = &RequirementResult{ID: pf.Rule, Level: pf.Level, Outcome: Skip}
			byID[pf.Rule] = rr
		}
		rr.Scenarios = append(rr.Scenarios, "passive")
		o := Fail
		if pf.Level != "MUST" {
			o = Warn
		}
		if rank[o] > rank[rr.Outcome] {
			rr.Outcome = o
		}
	}
	out := make([]RequirementResult, 0, len(byID))
	for _, rr := range byID {
		out = append(out, *rr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ControlProfile is the profile the reference peer advertises for its
// test-only control extension (docs/control-extension.md).
const ControlProfile = peer.ControlExt

// controlOnlyRequirements are the requirements that only scenarios skipped
// for lack of the aghcheck.control/v1 advertisement cite in this run: a
// third-party peer cannot be driven into those states by protocol messages
// alone, so it must not be failed for lacking a test-only extension.
func controlOnlyRequirements(rep *Report, cfg Config) map[string]bool {
	if advertises(rep.IUT.Card, "profiles_supported", ControlProfile) {
		return nil
	}
	gated := map[string]bool{}
	for _, sc := range cfg.Scenarios {
		if sc.Requires.Profile == ControlProfile {
			gated[sc.ID] = true
		}
	}
	only, reached := map[string]bool{}, map[string]bool{}
	for _, sc := range rep.Scenarios {
		controlSkip := sc.Outcome == Skip && gated[sc.ID]
		for _, id := range sc.Requirements {
			if controlSkip {
				only[id] = true
			} else {
				reached[id] = true
			}
		}
	}
	for id := range reached {
		delete(only, id)
	}
	return only
}
