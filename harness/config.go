package harness

import (
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/report"
	"regexp"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/randid"
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

// DefaultGreetTimeout bounds the wait for the IUT's first greet. It leaves
// room under the 30 s promise for broker start-up and process clean-up, so a
// peer that never greets ends the run well inside half a minute.
const DefaultGreetTimeout = 20 * time.Second

// DefaultStepTimeout is the ceiling of an expect step: generous, since
// the protocol sets no reply deadline and a peer that thinks with a model
// before it answers is normal; it only ends waits that can no longer
// succeed.
const DefaultStepTimeout = 30 * time.Second

// DefaultFloodBytes is how many bytes of the IUT's messages a run judges
// before it calls them a flood: 32 of the 1 MiB envelopes every peer must
// take, where the reference peer publishes less than 1 MiB in a whole run
// at level full. What the run keeps of the IUT's messages is bounded by it
// (and the bytes of a message over 64 KiB are not kept once judged), and
// so is its memory under a flood.
const DefaultFloodBytes = 32 << 20

// Target is what a run or a fuzz session is pointed at: the broker, the
// implementation under test, and how long and how often the harness waits
// for it. Every value means one thing: a zero duration takes the default
// named beside it, and a zero MaxRestarts means never.
type Target struct {
	// External, when set, is the broker to use instead of an embedded one.
	External *broker.Endpoint
	// Command starts the IUT; IUTPeer attaches to a peer already running
	// (on External); Start starts an IUT the caller runs itself (an
	// in-process peer of a Go test: package aghtest). Exactly one is set.
	Command []string
	IUTPeer string
	// Start is called once the broker is up, with the environment Command
	// would get (the contract of package iutenv, then Env), and returns
	// once the IUT is started; its first greet identifies it, as for
	// Command. The run calls stop when it ends, before it closes the broker.
	Start func(env []string) (stop func(), err error)
	// Env is extra environment for the IUT (KEY=VALUE).
	Env []string
	// SuggestedPeerID is AGH_PEER_ID (default generated).
	SuggestedPeerID string

	// Workspace and Channel default to a fresh workspace and
	// "conformance"; for an attached peer (IUTPeer) left empty, they are
	// found from the peer's own traffic on the broker.
	Workspace, Channel string

	// StepTimeout is the ceiling of an expect step (default
	// DefaultStepTimeout): a step ends when its match arrives, and only a
	// match that never comes waits this long. It is not a reply deadline.
	StepTimeout  time.Duration
	GreetTimeout time.Duration // waiting for the IUT's greet (default DefaultGreetTimeout)
	// OutageTimeout is how long the broker connection may stay down, and
	// how long the IUT then has to greet again (default GreetTimeout).
	OutageTimeout time.Duration
	// BackTimeout is how long an IUT whose broker connection closed is
	// given to come back on its own before it is started again (default
	// GreetTimeout).
	BackTimeout time.Duration
	// MaxRestarts is how often an IUT started with Command or Start is
	// started again after it died: 0 never (DefaultMaxRestarts is what
	// aghcheck run and aghtest give).
	MaxRestarts int
	// Deadline is when the run's verdict is due, counted from its start
	// (default DefaultDeadline): the run starts no scenario and no replay
	// after it, and what it could not play is an error that says so. A
	// Session has none.
	Deadline time.Duration

	// FloodLimit and FloodBytes are the run's budget for the IUT's traffic:
	// the messages, and their bytes, judged before the run calls it a flood
	// (NATS-PUBLISH-RATE) and judges, routes and keeps nothing more of it
	// (default 5000 messages, DefaultFloodBytes). A Session's budget is per
	// batch.
	FloodLimit int
	FloodBytes int64
	// MaxPayload is the embedded broker's max_payload (default
	// broker.MaxPayload, the 1 MiB every peer must take); aghcheck fuzz
	// raises it to try messages past that.
	MaxPayload int
	Now        func() time.Time
	Version    string // aghcheck's, as every report names it

	// Life, when set, hears each liveness event of the IUT as it happens
	// (a death once the scenarios it interrupted are known).
	Life func(report.LifeEvent)
	// Waiting, when set, is called every waitingEvery while the run waits
	// (for the IUT to join, for an expect step's match, for the IUT to
	// come back), with the wait that has lasted longest, and once more
	// with Done set when nothing is awaited any more. A Session tells only
	// the wait for the IUT to join.
	Waiting func(Wait)
}

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
	// Progress is called as each scenario ends (from several goroutines,
	// never concurrently).
	Progress func(*report.ScenarioResult)
	// ReproDir, when set, receives a scenario file for each scenario that
	// kills the IUT when played alone.
	ReproDir string
	// deafAfter replaces the constant deafAfter (tests: how deafness is
	// named and hunted does not depend on how long it takes to show).
	deafAfter time.Duration
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

func (c *Target) defaults() {
	if c.StepTimeout <= 0 {
		c.StepTimeout = DefaultStepTimeout
	}
	if c.GreetTimeout <= 0 {
		c.GreetTimeout = DefaultGreetTimeout
	}
	if c.OutageTimeout <= 0 {
		c.OutageTimeout = c.GreetTimeout
	}
	if c.BackTimeout <= 0 {
		c.BackTimeout = c.GreetTimeout
	}
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	if c.FloodLimit <= 0 {
		c.FloodLimit = 5000
	}
	if c.FloodBytes <= 0 {
		c.FloodBytes = DefaultFloodBytes
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.IUTPeer == "" || c.Workspace != "" {
		// (An attached peer's workspace and channel, when not given, are
		// found from its own traffic: findPeer.)
		if c.Channel == "" {
			c.Channel = "conformance"
		}
		if c.Workspace == "" {
			c.Workspace = "aghcheck-" + randid.Hex(4)
		}
	}
	if c.SuggestedPeerID == "" {
		c.SuggestedPeerID = "iut." + randid.Hex(4)
	}
}

// level checks what the run is asked for and returns the level to claim.
func (c *config) level() (level, error) {
	lv, ok := levels[c.Level]
	if !ok {
		return level{}, fmt.Errorf("unknown level %q (%s)", c.Level, levelNames())
	}
	return lv, c.Target.check()
}

// check refuses a target that names no IUT, or more than one.
func (c *Target) check() error {
	n := 0
	for _, set := range []bool{len(c.Command) > 0, c.IUTPeer != "", c.Start != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return errors.New("give exactly one of an IUT command, an IUT peer id or a start function")
	}
	if c.MaxRestarts < 0 {
		return fmt.Errorf("MaxRestarts %d: want 0 (never) or more", c.MaxRestarts)
	}
	return nil
}
