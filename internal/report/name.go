package report

import "cmp"

// Unknown is the implementation name or version a report gives when
// nothing names it.
const Unknown = "unknown"

// NameImplementation sets what the report says was certified: name and
// version as given (--implementation, --implementation-version), else the
// IUT's Peer Card (display_name, version), else its peer id and Unknown.
// The version is what tells two runs of one implementation apart, so every
// report format prints it beside aghcheck's own.
func (r *Report) NameImplementation(name, version string) {
	card := func(key string) string { s, _ := r.IUT.Card[key].(string); return s }
	r.IUT.Implementation = cmp.Or(name, card("display_name"), r.IUT.PeerID, Unknown)
	r.IUT.ImplementationVersion = cmp.Or(version, card("version"), Unknown)
}

// Actual is the outcome the scenario had on its own: before a baseline
// rewrote it (expected-fail), and without --strict, which makes a warning a
// failure. Baselines and run comparisons judge this, so that one baseline
// file or one old report serves runs with and without --strict.
func (sc *ScenarioResult) Actual() Outcome {
	o := sc.Outcome
	if o == ExpectedFail && sc.Baseline != nil {
		o = sc.Baseline.Actual
	}
	if o == Fail && sc.StrictFail {
		return Warn
	}
	return o
}

// Judged is sr with its verdict.
func (sr StepResult) Judged(o Outcome, msg string) StepResult {
	sr.Outcome, sr.Message = o, msg
	return sr
}
