package harness

import (
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// The test-only interfaces a scenario may need (the control extension,
// initiation orders): what only scenarios behind a closed one reach is
// named on a claim as a caveat, never held against it.

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
