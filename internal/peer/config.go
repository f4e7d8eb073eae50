// Package peer is aghcheck's built-in AGH Network v0 reference peer: a NATS
// peer that implements discovery, the work lifecycle as a target, the
// delivery rules and trust verification by the book, so the conformance
// suites can prove themselves against it. Named faults turn it into a
// deliberately broken variant that the suites must catch.
package peer

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// Defaults follow the reference runtime's configuration.
const (
	DefaultGreetInterval = 30 * time.Second
	DefaultMaxReplayAge  = 300 * time.Second
	DefaultDisplayName   = "aghcheck reference peer"
	DefaultChannel       = "default"
)

// Config is everything Run needs. Zero durations take the defaults.
type Config struct {
	URL, Token, User, Password string
	// Creds is a NATS credentials file (JWT and NKey seed), as
	// 'aghcheck run --nats-creds' passes it on.
	Creds              string
	Workspace, Channel string
	// PeerID is the v0 Peer ID; in verified mode (Key set) the peer speaks
	// as Nickname@fingerprint instead.
	PeerID, DisplayName string

	GreetInterval time.Duration
	MaxReplayAge  time.Duration

	// Faults names the deliberate misbehaviours to switch on (see Faults).
	Faults []string
	// NoControl makes the peer behave like a third-party peer without the
	// test-only control extension: it neither advertises nor honours
	// aghcheck.control/v1 (an ext key it then ignores like any other).
	NoControl bool
	// NoCapabilityDiscovery makes the peer one with neither brief nor rich
	// capability discovery: no capabilities and no agh.capabilities_brief
	// in its Peer Card, no catalog in a whois answer even when asked. Such a
	// peer is correct under erratum 12's default reading (docs/errata.md)
	// and fails under --errata capability-catalog-required.
	NoCapabilityDiscovery bool
	// NoTrust makes the peer one without the trust profile
	// (agh-network.trust.ed25519-jcs/v1): it does not list the profile
	// nor the verified trust mode in its Peer Card, and takes a message
	// whatever its proof, as a receiver that does not take the profile
	// may (agh.Owed). It cannot sign: no Key.
	NoTrust bool
	// LongWork makes the peer one whose work runs long: work it does on
	// its own (no control script) is reported working and never ended,
	// as a runtime's may be (Work Lifecycle: "The protocol does not define
	// a global work timeout"). It is conformant, so it is an option of the
	// peer, not a fault: every scenario must pass it or find what it judges
	// not observable for it.
	LongWork bool
	// NoOrders makes the peer one that cannot be asked to open work at
	// start-up: it does not list aghcheck.initiate/v1 and ignores its
	// orders file (with NoControl, it takes no initiation orders at all).
	NoOrders bool
	// OrdersFile names the start-up file of initiation orders (AGH_INITIATE;
	// docs/control-extension.md, "Initiation"): each order is carried out
	// every time its target greets. Run reads it once, at start; a file it
	// cannot use is a configuration error.
	OrdersFile string
	// orders is OrdersFile as normalize read it.
	orders []control.Order

	// Key, when set, selects verified mode: every envelope is signed with
	// the trust profile and from is Nickname@fingerprint(Key).
	Key      ed25519.PrivateKey
	Nickname string

	// ReconnectWait and MaxReconnects bound how long the peer waits for a
	// broker that went away before Run gives up (defaults 250ms × 20).
	ReconnectWait time.Duration
	MaxReconnects int

	// Logger receives one line per event; nil discards.
	Logger *slog.Logger
	// Stderr receives what a dying runtime prints when a crash-on or
	// disconnect-on fault fires (a panic or an error, with its stack
	// trace); nil is os.Stderr, as for a process.
	Stderr io.Writer
}

// ConfigFromEnv reads the IUT environment. A missing peer id is generated
// so that several reference peers can share a channel.
func ConfigFromEnv() (Config, error) {
	e := iutenv.FromProcess()
	c := Config{
		URL: e.URL, Token: e.Token, User: e.User, Password: e.Password, Creds: e.Creds,
		Workspace: e.Workspace, Channel: e.Channel, PeerID: e.PeerID,
		DisplayName: DefaultDisplayName, OrdersFile: e.Initiate,
	}
	if s := e.GreetInterval; s != "" {
		d, err := ParseSeconds(s)
		if err != nil {
			return c, fmt.Errorf("%s: %w", iutenv.GreetInterval, err)
		}
		c.GreetInterval = d
	}
	return c, nil
}

// ParseSeconds reads a greet interval given as seconds ("30", "0.5") or as
// a Go duration ("1m30s").
func ParseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f <= 0 {
			return 0, fmt.Errorf("interval %q must be positive", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("interval %q is neither seconds nor a duration", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("interval %q must be positive", s)
	}
	return d, nil
}

// KeyFromFile reads a key file in any form 'aghcheck keygen --out' writes
// or trust.ParseKeyFile accepts, and returns the key and the file's
// nickname ("" when it has none).
func KeyFromFile(path string) (ed25519.PrivateKey, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("key file: %w", err)
	}
	k, nick, err := trust.ParseKeyFile(b)
	if err != nil {
		return nil, "", fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nick, nil
}

// ErrConfig marks a configuration that cannot work (a usage error).
var ErrConfig = errors.New("peer config")

// normalize fills defaults and reports what cannot work.
// Auth is how a connection made with c's credentials authenticates: the
// peer's own, and any other process given the same (a helper, a test).
func (c Config) Auth() []nats.Option {
	var opts []nats.Option
	if c.Token != "" {
		opts = append(opts, nats.Token(c.Token))
	}
	if c.User != "" {
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.Creds != "" {
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	return opts
}

func (c *Config) normalize() error {
	if c.URL == "" {
		return fmt.Errorf("%w: no NATS URL (set --nats-url or %s)", ErrConfig, iutenv.NATSURL)
	}
	if c.Workspace == "" {
		return fmt.Errorf("%w: no workspace id (set --workspace or %s)", ErrConfig, iutenv.WorkspaceID)
	}
	if strings.ContainsAny(c.Workspace, ".*> \t") {
		return fmt.Errorf("%w: workspace id %q has a character that is not subject-safe", ErrConfig, c.Workspace)
	}
	if c.Channel == "" {
		c.Channel = DefaultChannel
	}
	if c.GreetInterval <= 0 {
		c.GreetInterval = DefaultGreetInterval
	}
	if c.MaxReplayAge <= 0 {
		c.MaxReplayAge = DefaultMaxReplayAge
	}
	if c.ReconnectWait <= 0 {
		c.ReconnectWait = 250 * time.Millisecond
	}
	if c.MaxReconnects == 0 {
		c.MaxReconnects = 20
	}
	if c.DisplayName == "" {
		c.DisplayName = DefaultDisplayName
	}
	if c.Key != nil && c.NoTrust {
		return fmt.Errorf("%w: a peer without the trust profile cannot sign (a key and NoTrust)", ErrConfig)
	}
	if c.Key != nil {
		if len(c.Key) != ed25519.PrivateKeySize {
			return fmt.Errorf("%w: Ed25519 key has %d bytes", ErrConfig, len(c.Key))
		}
		if c.Nickname == "" {
			c.Nickname = "aghcheck-peer"
		}
	} else if c.PeerID == "" {
		c.PeerID = "aghcheck-peer." + randid.Hex(6)
	}
	if _, err := parseFaults(c.Faults); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	orders, err := control.ReadOrders(c.OrdersFile)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c.orders = orders
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	return nil
}
