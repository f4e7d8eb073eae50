package harness

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// level is a level a run can claim: the claim it targets and the scenario
// claims it plays.
type level struct {
	Target string
	Claims []string
}

// levels a run can claim, by name: each claim of the Conformance Levels
// page, which a peer may make alone or in any of its combinations (Core
// Peer with the NATS binding is NATS Peer). Full Peer plays the optional
// JetStream scenarios too.
var levels = map[string]level{
	"core-sender":   {"Core Sender", []string{"core-sender"}},
	"core-receiver": {"Core Receiver", []string{"core-receiver"}},
	"core":          {"Core Peer", []string{"core-sender", "core-receiver"}},
	"trust":         {"Trust Peer", []string{"core-sender", "core-receiver", "trust"}},
	"nats":          {"NATS Peer", []string{"core-sender", "core-receiver", "nats"}},
	"full":          {"Full Peer", []string{"core-sender", "core-receiver", "trust", "nats", "jetstream"}},
}

// LevelNames are the levels a run can claim, from the least to the most.
var LevelNames = []string{"core-sender", "core-receiver", "core", "trust", "nats", "full"}

// levelNames says them for an error or a help text: "core-sender,
// core-receiver, ... or full".
func levelNames() string {
	return strings.Join(LevelNames[:len(LevelNames)-1], ", ") + " or " + LevelNames[len(LevelNames)-1]
}

// defaultFloodBytes is how many bytes of the IUT's messages a run judges
// before it calls them a flood: 32 of the 1 MiB envelopes every peer must
// take, where the reference peer publishes less than 1 MiB in a whole run
// at level full. What the run keeps of the IUT's messages is bounded by it
// (and the bytes of a message over 64 KiB are not kept once judged), and
// so is its memory under a flood.
const defaultFloodBytes = 32 << 20

// config is one run: the target, and what is played at it.
type config struct {
	Target

	Scenarios []*scenario.Scenario
	// Readings are the other readings of errata the run judges by
	// (Options.Compat, Options.Errata), Errata their envelope reading.
	Readings []string
	Errata   agh.Errata
	Level    string         // one of LevelNames (default full)
	Strict   bool           // warnings fail
	Select   *regexp.Regexp // --run: only scenarios whose id matches
	Parallel int            // scenarios at once (default: all)
	// Repeat is how many times the scenarios are played against the one
	// IUT (0 or 1: once); a scenario whose outcome differs between the
	// runs is an error of the harness (repeat.go).
	Repeat int
	// Timeout is a ceiling per scenario (0: none, each wait has its own).
	Timeout time.Duration
	// Fleet, when set, plays the run as one member of a fleet of
	// aghcheck processes against one IUT (fleet.go).
	Fleet *fleetSpec
	// Progress is called as each scenario ends (from several goroutines,
	// never concurrently).
	Progress func(*report.ScenarioResult)
	// ReproDir, when set, receives a scenario file for each scenario that
	// kills the IUT when played alone.
	ReproDir string
	// deafAfter replaces the constant deafAfter (tests: how deafness is
	// named and hunted does not depend on how long it takes to show).
	deafAfter time.Duration
	// huntBudget replaces huntReplays (tests: a budget a few killers
	// spend).
	huntBudget int
}

// waitingEvery is how often Config.Waiting hears how the wait goes.
const waitingEvery = 200 * time.Millisecond

// Wait is how the run's longest wait goes, for a live line.
type Wait struct {
	Elapsed    time.Duration // how long it has lasted
	Run        time.Duration // how long the run has lasted
	For        string        // what the run waits for
	Others     int           // how many other waits there are
	LastStderr string        // the IUT's latest stderr line ("" when none, or attached)
	Done       bool          // nothing is awaited any more
}

// HarnessError is a run that could not be carried out (exit code 2); the
// report still says as much as was learned.
type HarnessError struct{ Err error }

func (e *HarnessError) Error() string { return e.Err.Error() }

func (e *HarnessError) Unwrap() error { return e.Err }

func (c *config) defaults() {
	if c.Level == "" {
		c.Level = "full"
	}
	c.Target.defaults()
}

// level checks what the run is asked for and returns the level to claim.
func (c *config) level() (level, error) {
	lv, ok := levels[c.Level]
	if !ok {
		return level{}, fmt.Errorf("unknown level %q (%s)", c.Level, levelNames())
	}
	return lv, c.Target.check()
}
