package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The environment of the IUT contract (docs/harness.md); flags override it.
const (
	envURL           = "AGH_NATS_URL"
	envToken         = "AGH_NATS_TOKEN"
	envUser          = "AGH_NATS_USER"
	envPassword      = "AGH_NATS_PASSWORD"
	envWorkspace     = "AGH_WORKSPACE_ID"
	envChannel       = "AGH_CHANNEL"
	envPeerID        = "AGH_PEER_ID"
	envGreetInterval = "AGH_GREET_INTERVAL"
	envInitiate      = "AGH_INITIATE"
)

// Defaults are the runtime's own configuration defaults (greet_interval 30,
// max_replay_age 300), so the adapter behaves like a daemon left as shipped.
const (
	defaultChannel       = "default"
	defaultPeerID        = "agh-reference.adapter"
	defaultGreetInterval = 30 * time.Second
	defaultReplayAge     = 300 * time.Second
)

// config is everything run needs. Grammar checks of the ids are left to the
// runtime: the adapter must not decide what the runtime would refuse.
type config struct {
	URLs                  string // one NATS URL or several, comma-separated
	Token, User, Password string
	Workspace, Channel    string
	PeerID                string
	GreetInterval         time.Duration
	ReplayAge             time.Duration
	// Initiate is the start-up file of initiation orders (AGH_INITIATE,
	// docs/control-extension.md), and Orders what it holds: work the agent
	// opens, through the runtime's send path, when the order's target greets.
	Initiate string
	Orders   []order
}

// runtimeVersion names the runtime source the adapter was built from (git
// describe of it, -dirty for a working tree with changes): the script sets
// it with -ldflags -X, and the adapter's Peer Card and --version say it.
var runtimeVersion = "unknown"

var (
	errUsage = errors.New("usage")
	errHelp  = errors.New("help requested")

	// errNoRuntime is what a build without the runtime (stub.go) says.
	errNoRuntime = errors.New("built without the reference runtime: run `make reference REF=<git dir of github.com/compozy/agh>` (docs/reference.md)")

	// flagOutput receives the --help text.
	flagOutput io.Writer = os.Stderr
)

// parseConfig reads the environment, then the flags, and reports the first
// thing that cannot work as one line wrapping errUsage.
func parseConfig(args []string, getenv func(string) string) (config, error) {
	c := config{
		URLs:      strings.TrimSpace(getenv(envURL)),
		Token:     getenv(envToken),
		User:      getenv(envUser),
		Password:  getenv(envPassword),
		Workspace: strings.TrimSpace(getenv(envWorkspace)),
		Channel:   strings.TrimSpace(getenv(envChannel)),
		PeerID:    strings.TrimSpace(getenv(envPeerID)),
		Initiate:  strings.TrimSpace(getenv(envInitiate)),
	}
	greet := strings.TrimSpace(getenv(envGreetInterval))

	fs := flag.NewFlagSet("adapter", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.URLs, "nats-url", c.URLs, "NATS URL(s), comma-separated (default $"+envURL+")")
	fs.StringVar(&c.Workspace, "workspace", c.Workspace, "workspace id (default $"+envWorkspace+")")
	fs.StringVar(&c.Channel, "channel", c.Channel, "channel (default $"+envChannel+", else "+defaultChannel+")")
	fs.StringVar(&c.PeerID, "peer-id", c.PeerID, "v0 Peer ID (default $"+envPeerID+", else "+defaultPeerID+")")
	fs.StringVar(&greet, "greet-interval", greet, "heartbeat interval: seconds or a Go duration (default $"+envGreetInterval+", else 30s)")
	fs.StringVar(&c.Initiate, "initiate", c.Initiate, "start-up file of initiation orders (default $"+envInitiate+")")
	replay := ""
	fs.StringVar(&replay, "replay-age", "", "maximum replay age: seconds or a Go duration (default 300s)")
	showVersion := fs.Bool("version", false, "print the runtime version the adapter was built from, and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(flagOutput)
			fs.PrintDefaults()
			return c, errHelp
		}
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *showVersion {
		fmt.Fprintln(flagOutput, runtimeVersion)
		return c, errHelp
	}

	var err error
	if c.GreetInterval, err = durationOr(greet, defaultGreetInterval, "greet interval"); err != nil {
		return c, err
	}
	if c.ReplayAge, err = durationOr(replay, defaultReplayAge, "replay age"); err != nil {
		return c, err
	}
	c.URLs = strings.TrimSpace(c.URLs)
	if c.URLs == "" {
		return c, fmt.Errorf("%w: no NATS URL (set --nats-url or %s)", errUsage, envURL)
	}
	if c.Workspace = strings.TrimSpace(c.Workspace); c.Workspace == "" {
		return c, fmt.Errorf("%w: no workspace id (set --workspace or %s)", errUsage, envWorkspace)
	}
	if c.Channel = strings.TrimSpace(c.Channel); c.Channel == "" {
		c.Channel = defaultChannel
	}
	if c.PeerID = strings.TrimSpace(c.PeerID); c.PeerID == "" {
		c.PeerID = defaultPeerID
	}
	c.Initiate = strings.TrimSpace(c.Initiate)
	if c.Orders, err = readOrders(c.Initiate); err != nil {
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	return c, nil
}

// durationOr reads whole or fractional seconds ("30", "0.5") or a Go
// duration ("1m30s"); empty gives def.
func durationOr(s string, def time.Duration, what string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if f, ferr := strconv.ParseFloat(s, 64); ferr == nil {
		d, err = time.Duration(f*float64(time.Second)), nil
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s %q is neither seconds nor a duration", errUsage, what, s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%w: %s %q must be positive", errUsage, what, s)
	}
	return d, nil
}
