package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
)

// The defaults of a Target: what a zero value takes.
const (
	// DefaultGreetTimeout bounds the wait for the IUT's first greet. It leaves
	// room under the 30 s promise for broker start-up and process clean-up, so a
	// peer that never greets ends the run well inside half a minute.
	DefaultGreetTimeout = 20 * time.Second
	// DefaultStepTimeout is the ceiling of an expect step: generous, since
	// the protocol sets no reply deadline and a peer that thinks with a model
	// before it answers is normal; it only ends waits that can no longer
	// succeed.
	DefaultStepTimeout = 30 * time.Second
	// DefaultMaxRestarts is how often an IUT started with --iut is started
	// again after it died in company; the hunt for a killer restarts it
	// within its own budget (huntReplays).
	DefaultMaxRestarts = 10
	// DefaultDeadline is when a run's verdict is due: the run starts nothing
	// after it, and what it could not play is an error.
	DefaultDeadline = 10 * time.Minute
)

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
	// (default 5000 messages, defaultFloodBytes). A Session's budget is per
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

// defaults fills what was left zero.
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
		c.FloodBytes = defaultFloodBytes
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

// CheckSettings refuses, as an *OptionError, a workspace, channel or peer
// id the protocol's grammar does not allow (docs/protocol.md#names-and-subjects)
// and a credentials file that is not there. Plan calls it; aghcheck fuzz,
// which takes a Target alone, calls it too.
func (o Target) CheckSettings() error {
	switch {
	case o.Channel != "" && !agh.ValidChannel(o.Channel):
		return optionErr("channel", "%q is not a channel name: want %s (docs/protocol.md#names-and-subjects)", o.Channel, channelGrammar)
	case o.Workspace != "" && !agh.ValidWorkspaceID(o.Workspace):
		return optionErr("workspace", "%q is not a workspace id: want %s (docs/protocol.md#names-and-subjects)", o.Workspace, workspaceGrammar)
	case o.IUTPeer != "" && !agh.IsPeer(o.IUTPeer):
		return optionErr("iut-peer", "%q is not a peer id: want %s (docs/protocol.md#names-and-subjects)", o.IUTPeer, peerGrammar)
	case o.SuggestedPeerID != "" && !agh.ValidPeerID(o.SuggestedPeerID):
		return optionErr("peer-id", "%q is not a peer id: want [a-z0-9][a-z0-9._-]{0,127} (docs/protocol.md#names-and-subjects)", o.SuggestedPeerID)
	}
	if o.External != nil && o.External.Creds != "" {
		if err := regularFile(o.External.Creds); err != nil {
			return &OptionError{Option: "nats-creds", Err: err}
		}
	}
	return nil
}

// regularFile refuses a path that names no readable regular file.
func regularFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file", path)
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}
