package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/fatih/color"
	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/monitor"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

func init() { subcommands = append(subcommands, newMonitorCmd) }

// monitorFlags are aghcheck monitor's flags.
type monitorFlags struct {
	nats                       harness.Credentials
	workspace, channel, format string
	compat, maxAge             string
	shard, durable             string
	fromStream                 bool
	errata                     []string
	failOnError, noColor       bool
	duration, greet            time.Duration
	maxEntries                 int
}

func newMonitorCmd() *cobra.Command {
	var m monitorFlags
	cmd := &cobra.Command{
		Use:   "monitor",
		Short: "Judge the live AGH Network v0 traffic on a NATS broker",
		Long: `monitor subscribes to agh.network.v0.> on a NATS broker (or to one
workspace or channel) and judges every envelope: statelessly, with every
rule of the engine and the subject rule, as 'aghcheck run' judges an IUT;
and statefully, with the work-unit tracker: lifecycle transitions, nothing
but refusals after a terminal state, container binding, who may speak for
a work unit, for_id and reply_to naming real envelopes, id reuse by one
sender, and the greet heartbeat (presence expires two greet intervals after
the last greet). Memory is bounded: ids, work units and peers are
forgotten once idle for the replay window.

With --shard K/N, N monitors divide the traffic: the broker splits it by
workspace (a subject mapping into an account of the monitors' own) and
each monitor judges one part. With --jetstream it reads its part from a
JetStream stream: the broker holds what the monitor has not judged yet,
and a monitor that restarts resumes where it stopped. docs/monitor.md
gives the broker configuration.

On a terminal the output is a summary refreshed every second (per rule,
per peer, the latest findings); on a pipe it is one JSON line per finding.
SIGINT (Ctrl-C) or --duration ends it with a final summary.

Exit status: 0, or 1 with --fail-on-error when an error-level finding was
seen; 2 when the broker cannot be reached or for usage errors.`,
		Example: `  aghcheck monitor --nats-url nats://127.0.0.1:4222
  aghcheck monitor --nats-url nats://nats.internal:4222 --nats-creds ops.creds --workspace ws_alpha
  aghcheck monitor --nats-url nats://127.0.0.1:4222 --format json > findings.ndjson
  aghcheck monitor --nats-url "$NATS_URL" --duration 10m --format github --fail-on-error
  aghcheck monitor --nats-url nats://nats.internal:4222 --nats-creds monitor.creds --shard 0/3
  aghcheck monitor --nats-url nats://nats.internal:4222 --nats-creds monitor.creds --shard 0/3 --jetstream`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return m.run(cmd) },
	}
	f := cmd.Flags()
	addNATSFlags(f, &m.nats, "nats://127.0.0.1:4222", "NATS server or cluster (`URL[,URL...]`)")
	f.StringVar(&m.workspace, "workspace", "", "watch only this workspace `ID`")
	f.StringVar(&m.channel, "channel", "", "watch only this channel of --workspace")
	f.StringVar(&m.shard, "shard", "", "watch only part `K/N` of the traffic, as the broker splits it by workspace (see docs/monitor.md)")
	f.BoolVar(&m.fromStream, "jetstream", false, "read the shard from the JetStream stream that stores it, through a durable consumer: the broker holds what is not judged yet, and a restart resumes where it stopped")
	f.StringVar(&m.durable, "durable", "", "the stream consumer's `NAME` (default aghmon-K-of-N)")
	f.StringVarP(&m.format, "format", "f", "auto", "output: auto (live on a terminal, json otherwise), "+strings.Join(monitor.Formats, ", "))
	f.BoolVar(&m.failOnError, "fail-on-error", false, "exit 1 when an error-level finding was seen")
	f.DurationVar(&m.duration, "duration", 0, "stop after this long (default: until interrupted)")
	f.DurationVar(&m.greet, "greet-interval", workunit.DefaultGreetInterval, "the greet interval peers are expected to keep")
	f.StringVar(&m.maxAge, "max-replay-age", "300s", "replay window: freshness, and how long ids and idle work units are remembered (`AGE`)")
	f.IntVar(&m.maxEntries, "max-entries", workunit.DefaultMaxEntries, "most ids, work units and peers remembered at once (bounds memory)")
	f.StringArrayVar(&m.errata, "errata", nil, "apply the alternative reading `NAME` of a documented erratum (repeatable; see docs/errata.md)")
	f.StringVar(&m.compat, "compat", "", "apply every erratum the `RUNTIME` implements: reference")
	f.BoolVar(&m.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(append([]string{"auto"}, monitor.Formats...)...))
	_ = cmd.RegisterFlagCompletionFunc("compat", fixedCompletion("reference"))
	return cmd
}

// run carries out aghcheck monitor.
func (m *monitorFlags) run(cmd *cobra.Command) error {
	usage := func(err error) error { return &exitError{code: exitUsageErr, err: err} }
	if m.noColor {
		color.NoColor = true
	}
	if m.channel != "" && m.workspace == "" {
		return usage(errors.New("--channel needs --workspace"))
	}
	for name, v := range map[string]string{"workspace": m.workspace, "channel": m.channel} {
		if v != "" && !agh.ValidWorkspaceID(v) {
			return usage(fmt.Errorf("--%s %q: not a NATS subject token", name, v))
		}
	}
	sh, err := shardFlags(m.shard, m.workspace, m.fromStream, m.durable)
	if err != nil {
		return usage(err)
	}
	opts := agh.Options{}
	if opts.MaxReplayAge, err = parseAge(m.maxAge); err != nil {
		return usage(err)
	}
	if opts.Errata, err = parseErrata(m.compat, m.errata); err != nil {
		return usage(err)
	}
	out := cmd.OutOrStdout()
	tty := out == os.Stdout && isTerminal(os.Stdout)
	if m.format == "auto" {
		m.format = "json"
		if tty {
			m.format = "live"
		}
	}
	sink, err := monitor.NewSink(m.format, out, tty && !color.NoColor)
	if err != nil {
		return usage(fmt.Errorf("--format: %w", err))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if m.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.duration)
		defer cancel()
	}
	ep, err := external(m.nats)
	if err != nil {
		return err
	}
	if ep == nil {
		return usage(errors.New("--nats-url: give the broker to watch"))
	}
	cfg := monitor.Config{
		Endpoint: *ep, Subject: monitor.Subject(m.workspace, m.channel), Options: opts,
		Shard: sh, JetStream: m.fromStream, Durable: m.durable,
		Tracker: workunit.Config{Window: time.Duration(opts.MaxReplayAge) * time.Second, GreetInterval: m.greet, MaxEntries: m.maxEntries},
	}
	sum, err := monitor.Run(ctx, cfg, sink)
	if err != nil {
		return usage(err)
	}
	if m.failOnError && sum.Errors > 0 {
		return &exitError{code: exitInvalid}
	}
	return nil
}

// shardFlags reads --shard and checks what goes with it.
func shardFlags(shard, workspace string, fromStream bool, durable string) (monitor.Shard, error) {
	var sh monitor.Shard
	if shard != "" {
		var err error
		if sh, err = monitor.ParseShard(shard); err != nil {
			return sh, fmt.Errorf("--shard %w", err)
		}
	}
	if k := monitor.PartitionOf(workspace, max(sh.N, 1)); workspace != "" && sh.N > 0 && k != sh.K {
		return sh, fmt.Errorf("--workspace %s is in shard %d/%d, not %s", workspace, k, sh.N, sh)
	}
	if fromStream && shard == "" {
		return sh, errors.New("--jetstream needs --shard (0/1 when the broker splits the traffic one way)")
	}
	if durable != "" && !fromStream {
		return sh, errors.New("--durable needs --jetstream")
	}
	return sh, nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// parseErrata reads --compat and --errata into the engine's errata set.
func parseErrata(compat string, names []string) (agh.Errata, error) {
	e, err := agh.Compat(compat)
	if err != nil {
		return e, fmt.Errorf("--compat: %w", err)
	}
	for _, n := range names {
		if err := e.Set(n); err != nil {
			return e, fmt.Errorf("--errata: %w", err)
		}
	}
	return e, nil
}
