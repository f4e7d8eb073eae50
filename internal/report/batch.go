package report

import "github.com/aghcheck/aghcheck/internal/rules"

// Batch is what one harness Session.Play judged (aghcheck fuzz plays its
// cases in batches).
type Batch struct {
	// Results are the scenarios' verdicts, in the order they were given:
	// pass, fail, warn, skip (a gate the IUT does not meet) or error
	// (could not be played: the IUT did not come back).
	Results []*ScenarioResult
	// Events are the IUT's liveness events during the batch; Killers the
	// scenarios that killed it when played alone.
	Events  []LifeEvent
	Killers []Killer
	// Published are the envelopes the IUT published during the batch that
	// break a rule, each with the scenario whose test peer it was for.
	Published []Published
	// Flooded says the IUT published more than Target.FloodLimit messages,
	// or Target.FloodBytes bytes, during the batch: what came after was not
	// judged, nor were the scenarios still in flight. Flood says which
	// limit it passed, and when.
	Flooded bool
	Flood   string
}

// Published is one envelope the IUT published that breaks a rule.
type Published struct {
	// Scenario is the index in the batch of the scenario whose test peer
	// it was for (addressed to it, or on its peer subject); -1 for none.
	Scenario int
	At       Millis // since the session started
	Subject  string
	// Size is how many bytes the IUT published; Kept is what the session
	// kept of them once judged: all of them up to 64 KiB, else the first
	// 512.
	Size     int
	Kept     []byte
	Findings []rules.Finding // stateless rules, the subject rule and the work-unit tracker
}
