package fuzz

import (
	"slices"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/report"
)

// Defaults of a Config.
const (
	DefaultParallel = 256
	DefaultDuration = 30 * time.Second
	// DefaultStepTimeout is the ceiling of a case's expect steps: a
	// ceiling, never a reply deadline (a reply that comes later still
	// counts); only cases whose answer never comes wait that long.
	DefaultStepTimeout = 10 * time.Second
	// DefaultMaxRestarts is what aghcheck fuzz gives: a peer that dies on
	// some input costs about three restarts per input that kills it (see
	// harness rounds).
	DefaultMaxRestarts = 100
	// DefaultShrink is what aghcheck fuzz gives Config.Shrink.
	DefaultShrink = 12
	// DefaultBackTimeout is how long a peer whose connection closed has to
	// come back by itself before it is started again: short, since a
	// restart judges nothing and a peer that dies on some input dies again
	// and again while the fuzzer pins it on its case.
	DefaultBackTimeout = time.Second
)

// Config is one fuzzing run.
type Config struct {
	// Target is the broker and the IUT, as for aghcheck run: what is
	// played is the fuzzer's own. A zero StepTimeout or BackTimeout takes
	// the fuzzer's defaults (DefaultStepTimeout, DefaultBackTimeout).
	Target harness.Target
	Seed   uint64
	// Cases stops the run after so many cases played; Duration after so
	// long (the batch in flight ends first). With neither, DefaultDuration.
	Cases    int
	Duration time.Duration
	Parallel int    // cases in flight at once (default DefaultParallel)
	Batch    int    // cases per batch (default 4 × Parallel)
	ReproDir string // where each finding's reproducer is written ("" for none)
	// CorpusDir keeps interesting cases between runs: they are played
	// first, and the run adds the cases that found something or covered a
	// verdict no kept case covers.
	CorpusDir string
	// Shrink is how many live replays minimizing one finding may take
	// (0: do not minimize; aghcheck fuzz gives DefaultShrink).
	Shrink int
	// Progress, when set, hears how the run goes after each batch.
	Progress func(Progress)
	Version  string
	Now      func() time.Time
}

// Progress is how a run goes.
type Progress struct {
	Elapsed  time.Duration
	Cases    int     // played
	Rate     float64 // cases per second
	Findings int     // distinct
	Must     int     // distinct MUST findings
	Phase    string  // "fuzzing", "minimizing"
}

// Report is a fuzzing run's outcome.
type Report struct {
	Tool     string        `json:"tool"`
	Version  string        `json:"version,omitempty"`
	Seed     uint64        `json:"seed"`
	Cases    int           `json:"cases"` // played and judged
	Duration report.Millis `json:"duration_ms"`
	Rate     float64       `json:"cases_per_second"`
	// Generated counts the mutants made; NotPlayed why the others were
	// not played (left open by the protocol, a gate, a known killer).
	Generated int            `json:"generated"`
	NotPlayed map[string]int `json:"not_played,omitempty"`
	// Errors counts cases that could not be judged (the IUT gone).
	Errors int `json:"errors,omitempty"`
	// Seeds are what each seed, played unmutated before any mutant, showed;
	// Unjudged counts the cases whose behaviour was not judged because
	// their seed did not meet the oracle (a finding is differential).
	Seeds    []*SeedResult `json:"seeds,omitempty"`
	Unjudged int           `json:"unjudged,omitempty"`
	// Unconfirmed counts findings that rested on a shortened ceiling and
	// did not show again with the full --step-timeout: not reported.
	Unconfirmed int        `json:"unconfirmed,omitempty"`
	Findings    []*Finding `json:"findings"`
	IUT         IUTSummary `json:"iut"`
	// Corpus is how many kept cases were played, and how many were added.
	Corpus *CorpusInfo `json:"corpus,omitempty"`
	Error  string      `json:"error,omitempty"`
	// Interrupted says the run was stopped (a signal) before it played
	// what it was asked to: the cases in flight then (InFlight) were not
	// judged, and findings that rested on a shortened ceiling could not
	// be confirmed (counted in Unconfirmed, not reported). aghcheck fuzz
	// exits 2.
	Interrupted bool `json:"interrupted,omitempty"`
	InFlight    int  `json:"in_flight_unjudged,omitempty"`
	// CutShort counts the cases --duration left unjudged: cases in
	// flight at a death of the IUT that the hunt for what killed it had
	// not played again when the time ran out (while fuzzing, minimizing
	// or confirming). A death they leave unexplained is a finding whose
	// reproducer plays them together; a finding whose confirmation they
	// were is left out.
	CutShort int `json:"cut_short,omitempty"`
}

// SeedResult is what one seed, played unmutated, showed. Only where it
// met the oracle is a mutant's different behaviour a finding: otherwise
// the difference may be the seed's own (a peer that takes no capability
// work refuses every capability, mutated or not).
type SeedResult struct {
	Seed  string `json:"seed"`
	Shape string `json:"shape,omitempty"`
	Met   bool   `json:"met"`
	// Says what the IUT did instead: a refusal a peer may make, or
	// findings of its own (reported once, among Report.Findings).
	Says string `json:"says,omitempty"`
	// Unjudged counts its mutants whose behaviour was not judged.
	Unjudged int `json:"unjudged,omitempty"`
}

// IUTSummary is what the run learned of the IUT.
type IUTSummary struct {
	Command  []string           `json:"command,omitempty"`
	PeerID   string             `json:"peer_id,omitempty"`
	Restarts int                `json:"restarts,omitempty"`
	Events   []report.LifeEvent `json:"events,omitempty"`
	Exit     string             `json:"exit,omitempty"`
	Stderr   string             `json:"stderr_tail,omitempty"`
}

// CorpusInfo is what the run did with --corpus.
type CorpusInfo struct {
	Dir    string `json:"dir"`
	Played int    `json:"played"`
	Added  int    `json:"added"`
}

// Failed reports whether a MUST finding was made.
func (r *Report) Failed() bool {
	return slices.ContainsFunc(r.Findings, func(f *Finding) bool { return f.Level == "MUST" })
}

// Error is a run that could not be carried out (aghcheck fuzz exits 2).
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func (c *Config) defaults() {
	if c.Parallel <= 0 {
		c.Parallel = DefaultParallel
	}
	if c.Batch <= 0 {
		c.Batch = 4 * c.Parallel
	}
	if c.Cases > 0 {
		c.Batch = min(c.Batch, c.Cases)
	}
	if c.Cases <= 0 && c.Duration <= 0 {
		c.Duration = DefaultDuration
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Target.StepTimeout <= 0 {
		c.Target.StepTimeout = DefaultStepTimeout
	}
	if c.Target.MaxPayload == 0 {
		c.Target.MaxPayload = fuzzBroker
	}
	if c.Target.BackTimeout <= 0 {
		c.Target.BackTimeout = DefaultBackTimeout
	}
	// Every batch is judged passively as a whole; the flood limit is per
	// batch (a session forgets what it judged).
	c.Target.FloodLimit = max(c.Target.FloodLimit, 50*c.Batch)
}

// fuzzBroker is the embedded broker's max_payload in a fuzz run: room for
// messages past the 1 MiB every peer must take (see generator.size).
const fuzzBroker = 2 << 20
