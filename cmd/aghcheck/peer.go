package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/trust"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newPeerCmd) }

// peerFlags are aghcheck peer's flags.
type peerFlags struct {
	url, token, user, password string
	workspace, channel         string
	peerID, displayName        string
	greet, keyFile, seed, nick string
	creds, orders              string
	faults                     []string
	listFaults, verbose        bool
	noControl, noDiscovery     bool
	noTrust                    bool
	longWork                   bool
	noOrders                   bool
}

func newPeerCmd() *cobra.Command {
	s := &peerFlags{}
	cmd := &cobra.Command{
		Use:   "peer",
		Short: "Run the built-in AGH Network v0 reference peer (optionally with deliberate faults)",
		Long:  peerLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return s.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&s.url, "nats-url", "", "NATS server URL (default $AGH_NATS_URL)")
	f.StringVar(&s.token, "nats-token", "", "NATS auth token (default $AGH_NATS_TOKEN)")
	f.StringVar(&s.user, "nats-user", "", "NATS user (default $AGH_NATS_USER)")
	f.StringVar(&s.password, "nats-password", "", "NATS password (default $AGH_NATS_PASSWORD)")
	f.StringVar(&s.creds, "nats-creds", "", "NATS credentials `FILE` (default $AGH_NATS_CREDS)")
	f.StringVar(&s.workspace, "workspace", "", "workspace id (default $AGH_WORKSPACE_ID)")
	f.StringVar(&s.channel, "channel", "", "channel to join (default $AGH_CHANNEL, else \"default\")")
	f.StringVar(&s.peerID, "peer-id", "", "v0 Peer ID (default $AGH_PEER_ID, else generated)")
	f.StringVar(&s.displayName, "display-name", "", "Peer Card display_name (default \""+peer.DefaultDisplayName+"\")")
	f.StringVar(&s.orders, "orders", "", "start-up `FILE` of initiation orders, carried out when their targets greet (default $AGH_INITIATE)")
	f.StringVar(&s.greet, "greet-interval", "", "seconds between presence greets (default $AGH_GREET_INTERVAL, else 30)")
	f.StringVar(&s.keyFile, "key", "", "Ed25519 key `FILE` from 'aghcheck keygen --out' (or a bare hex seed): verified mode")
	f.StringVar(&s.seed, "seed", "", "Ed25519 seed as 64 hex chars: verified mode")
	f.StringVar(&s.nick, "nickname", "", "nickname of the verified handle nickname@fingerprint (default aghcheck-peer)")
	f.StringArrayVar(&s.faults, "fault", nil, "switch on a deliberate fault (repeatable; see --list-faults)")
	f.BoolVar(&s.listFaults, "list-faults", false, "list the deliberate faults and exit")
	f.BoolVar(&s.noControl, "no-control", false, "behave like a third-party peer: neither advertise nor honour the aghcheck.control/v1 test extension")
	f.BoolVar(&s.noOrders, "no-orders", false, "take no initiation orders at start-up: neither advertise aghcheck.initiate/v1 nor read AGH_INITIATE (with --no-control, a peer the initiator scenarios cannot play, as most third-party peers are)")
	f.BoolVar(&s.noTrust, "no-trust", false, "behave like a peer without the trust profile: neither list agh-network.trust.ed25519-jcs/v1 nor the verified mode in its Peer Card, and take a message whatever its proof (no --key or --seed)")
	f.BoolVar(&s.longWork, "long-work", false, "do long-running work: work it does on its own is reported working and never ended (the protocol defines no global work timeout); scripted work follows its script")
	f.BoolVar(&s.noDiscovery, "no-capability-discovery", false, "behave like a peer with neither brief nor rich capability discovery: no capabilities in its Peer Card, no catalog in a whois answer (docs/errata.md, erratum 12)")
	f.BoolVarP(&s.verbose, "verbose", "v", false, "log every envelope received and sent")
	return cmd
}

const peerLong = `peer joins a channel on a NATS broker as a fully conformant AGH Network v0 peer:
it greets, answers whois, runs directed work as a target with receipts and
traces, dedupes, refuses expired, malformed and badly signed messages, and
speaks the aghcheck.control/v1 extension so scenarios can script its work.

Every flag defaults to the environment aghcheck run gives an IUT
(AGH_NATS_URL, AGH_NATS_TOKEN, AGH_NATS_USER, AGH_NATS_PASSWORD,
AGH_NATS_CREDS, AGH_WORKSPACE_ID, AGH_CHANNEL, AGH_PEER_ID, AGH_INITIATE), so
'aghcheck run --iut "aghcheck peer"' needs no flags; the greet interval
defaults to AGH_GREET_INTERVAL, which run does not set (set it yourself,
say --iut "env AGH_GREET_INTERVAL=5 aghcheck peer"). --fault switches on a
deliberately broken variant (see --list-faults). The peer stops cleanly on
SIGINT/SIGTERM and when the broker is gone for good.

It also opens work as an initiator when told to (docs/control-extension.md,
"Initiation"): it carries out the orders of the start-up file --orders
(AGH_INITIATE) each time an order's target greets, and, unless --no-control,
the in-band requests of aghcheck.control/v1.

The liveness faults take a parameter and combine with any other fault:
  slow:DURATION             every envelope but its greets goes out DURATION late
  crash-on:INPUT            on INPUT, a panic and stack trace on stderr, exit 2
  disconnect-on:INPUT       on INPUT, an error and stack trace, the connection
                            closed for good; the process lingers until signalled
  drop-after-greet:DURATION drops and remakes its connection DURATION after each
                            join or reconnect greet
  deaf-after:N              answers nothing after N messages, still greeting
  flood-bytes:SIZE          publishes SIZE-byte say envelopes (1MiB, 512KiB, 4096)
                            without pause, serving as usual
INPUT is whois-query-type, garbage or any-say; DURATION is 3s, 250ms or 1.5.
For example, --fault slow:3s --fault accept-expired is a slow peer that also
takes expired work.`

// config is the peer's configuration: the environment aghcheck run gives
// an IUT, overridden by the flags given.
func (s *peerFlags) config(cmd *cobra.Command) (peer.Config, error) {
	cfg, err := peer.ConfigFromEnv()
	if err != nil {
		return cfg, &exitError{code: exitUsageErr, err: err}
	}
	fl := cmd.Flags()
	set := func(name string, dst *string, v string) {
		if fl.Changed(name) {
			*dst = v
		}
	}
	set("nats-url", &cfg.URL, s.url)
	set("nats-token", &cfg.Token, s.token)
	set("nats-user", &cfg.User, s.user)
	set("nats-password", &cfg.Password, s.password)
	set("nats-creds", &cfg.Creds, s.creds)
	set("workspace", &cfg.Workspace, s.workspace)
	set("channel", &cfg.Channel, s.channel)
	set("peer-id", &cfg.PeerID, s.peerID)
	set("display-name", &cfg.DisplayName, s.displayName)
	set("orders", &cfg.OrdersFile, s.orders)
	if fl.Changed("greet-interval") {
		if cfg.GreetInterval, err = peer.ParseSeconds(s.greet); err != nil {
			return cfg, &exitError{code: exitUsageErr, err: fmt.Errorf("--greet-interval: %w", err)}
		}
	}
	nick := s.nick
	switch {
	case s.noTrust && (s.keyFile != "" || s.seed != ""):
		return cfg, &exitError{code: exitUsageErr, err: errors.New("--no-trust: a peer without the trust profile cannot sign; leave out --key and --seed")}
	case s.keyFile != "" && s.seed != "":
		return cfg, &exitError{code: exitUsageErr, err: errors.New("--key and --seed are alternatives; give one")}
	case s.keyFile != "":
		var fileNick string
		cfg.Key, fileNick, err = peer.KeyFromFile(s.keyFile)
		if nick == "" {
			nick = fileNick
		}
	case s.seed != "":
		cfg.Key, err = trust.KeyFromHex(s.seed)
	case nick != "":
		err = errors.New("--nickname needs --key or --seed (verified mode)")
	}
	if err != nil {
		return cfg, &exitError{code: exitUsageErr, err: err}
	}
	cfg.Nickname = nick
	cfg.Faults = s.faults
	cfg.NoControl = s.noControl
	cfg.NoCapabilityDiscovery = s.noDiscovery
	cfg.NoOrders = s.noOrders
	cfg.LongWork = s.longWork
	cfg.NoTrust = s.noTrust
	level := slog.LevelInfo
	if s.verbose {
		level = slog.LevelDebug
	}
	cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	cfg.Stderr = cmd.ErrOrStderr()
	return cfg, nil
}

// run lists the faults, or runs the peer until it is signalled or its
// broker is gone for good.
func (s *peerFlags) run(cmd *cobra.Command) error {
	if s.listFaults {
		tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FAULT\tGROUP\tDESCRIPTION")
		for _, f := range peer.Faults() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Group, f.Description)
		}
		return tw.Flush()
	}
	cfg, err := s.config(cmd)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = peer.Run(ctx, cfg)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, peer.ErrConfig):
		return &exitError{code: exitUsageErr, err: err}
	case errors.Is(err, peer.ErrCrashed):
		// The panic and its stack trace are on stderr already.
		return &exitError{code: peer.CrashExitCode}
	default:
		return &exitError{code: exitInvalid, err: fmt.Errorf("peer: %w", err)}
	}
}

// contextOf is the command's context, or Background when run without one.
func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
