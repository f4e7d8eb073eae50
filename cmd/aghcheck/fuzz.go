package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/fuzz"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/termline"
)

func init() { subcommands = append(subcommands, newFuzzCmd) }

// fuzzFlags are aghcheck fuzz's flags.
type fuzzFlags struct {
	iutLine, iutPeer, format, output string
	nats                             harness.Credentials
	workspace                        string
	channel, reproDir, corpusDir     string
	cases, parallel, maxRestarts     int
	shrink                           int
	seed                             uint64
	duration, stepTimeout            time.Duration
	greetTimeout                     time.Duration
	verbose                          bool
}

func newFuzzCmd() *cobra.Command {
	s := &fuzzFlags{}
	cmd := &cobra.Command{
		Use:   "fuzz",
		Short: "Fuzz a live AGH Network v0 peer, with the rule engine as the oracle",
		Long: `fuzz starts an embedded NATS broker (or uses --nats-url), starts the
implementation under test (--iut 'COMMAND ARGS') or attaches to one already
on the broker (--iut-peer ID), and plays generated cases at it: valid
envelopes mutated with knowledge of the protocol (members removed, retyped
or given broken grammars, exclusive members set together, extensions,
sizes up to the 1 MiB every peer must take and past it, expiry at the
edge, replays, misrouted work, reports out of order, signed messages
changed after signing, odd bytes). The rule engine says what a conformant
peer must do with each: refuse it (in which failure class, with a receipt
or in silence), take it, leave it alone, or, where the protocol leaves it
open, survive it; every envelope the peer sends is judged with the full
rule set, and its deaths, drops and deafness are findings of their own,
pinned on the case that caused them.

Each finding names its rule, level and kind, is shrunk to the smallest
message that still shows it and, with --repro-dir, written as a scenario
file that 'aghcheck run --suite DIR --embedded=false' replays. The same
--seed gives the same cases. With neither --iut nor --iut-peer the
built-in reference peer is fuzzed.

--duration is wall-clock: fuzzing stops early enough to minimize the
findings and to confirm, with the full --step-timeout, those that rest on
a shorter ceiling; only a run shorter than that confirmation can end
late. The hunt for what killed the IUT starts no replay after it, and the
report says what that cut short. --cases alone plays that many cases, however long they take. With
-o the report goes to the file (.json: JSON) and the verdict line to
standard error.

Exit status: 0 when nothing at MUST level was found, 1 when something
was, 2 when the fuzzer could not run or was interrupted (the cases in
flight then are not judged).`,
		Example: `  aghcheck fuzz
  aghcheck fuzz --iut './my-agent --join' --duration 60s --seed 1 --repro-dir findings
  aghcheck fuzz --iut 'aghcheck peer --fault disconnect-on:whois-query-type' --cases 5000
  aghcheck fuzz --corpus fuzz-corpus --format json -o fuzz.json
  aghcheck run --suite findings --embedded=false --iut './my-agent --join'   # replay the findings`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return s.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&s.iutLine, "iut", "", "start the implementation under test with `'COMMAND ARGS'` (default: the built-in reference peer)")
	f.StringVar(&s.iutPeer, "iut-peer", "", "attach to the peer `ID` already running on --nats-url")
	addNATSFlags(f, &s.nats, "", "use this NATS server or cluster (`URL[,URL...]`) instead of an embedded broker")
	f.StringVar(&s.workspace, "workspace", "", "workspace id of the run (default a fresh aghcheck-XXXXXXXX)")
	f.StringVar(&s.channel, "channel", "conformance", "channel of the run")
	f.DurationVar(&s.duration, "duration", fuzz.DefaultDuration, "wall-clock time of the whole run: start-up, fuzzing, then minimizing and confirming the findings in the time left")
	f.IntVar(&s.cases, "cases", 0, "stop after this many cases (with --duration too: whichever comes first)")
	f.Uint64Var(&s.seed, "seed", 1, "the seed of the generator: the same seed gives the same cases")
	f.IntVar(&s.parallel, "parallel", fuzz.DefaultParallel, "cases played at once, each as its own test peer")
	f.StringVar(&s.reproDir, "repro-dir", "", "write each finding as a scenario file into `DIR` (replay: run --suite DIR --embedded=false)")
	f.StringVar(&s.corpusDir, "corpus", "", "keep interesting cases in `DIR` between runs: played first, added to")
	f.IntVar(&s.shrink, "shrink", fuzz.DefaultShrink, "live replays minimizing one finding may take (0: do not minimize)")
	f.StringVarP(&s.format, "format", "f", "text", "report `FORMAT`: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(fuzz.Formats...))
	f.StringVarP(&s.output, "output", "o", "", "write the report to `FILE` instead of stdout")
	f.BoolVarP(&s.verbose, "verbose", "v", false, "say why mutants were not played, and list every liveness event")
	f.DurationVar(&s.stepTimeout, "step-timeout", fuzz.DefaultStepTimeout, "ceiling of a case's expect step: it ends when its match arrives (not a reply deadline)")
	f.DurationVar(&s.greetTimeout, "greet-timeout", harness.DefaultGreetTimeout, "how long to wait for the IUT's greet (also after a restart)")
	f.IntVar(&s.maxRestarts, "max-restarts", fuzz.DefaultMaxRestarts, "how often an --iut that died is started again (0: never)")
	return cmd
}

// check refuses flags that cannot go together, one clear line each.
func (s *fuzzFlags) check(cmd *cobra.Command) error {
	if err := refuseBlank(cmd, "iut", "iut-peer"); err != nil {
		return err
	}
	if err := positiveDurations(cmd, "step-timeout", "greet-timeout"); err != nil {
		return err
	}
	if s.duration < 0 || s.cases < 0 {
		return &exitError{code: exitUsageErr, err: errors.New("--duration and --cases may not be negative")}
	}
	if s.parallel < 1 {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--parallel %d: want 1 or more", s.parallel)}
	}
	if err := countFlag("max-restarts", s.maxRestarts, "never"); err != nil {
		return err
	}
	if err := countFlag("shrink", s.shrink, "no minimization"); err != nil {
		return err
	}
	if !cmd.Flags().Changed("duration") && s.cases > 0 {
		s.duration = 0 // --cases alone: as many as it says, however long that takes
	}
	format, err := outputFormat(cmd, s.format, s.output, map[string][]string{".json": {"json"}})
	if err != nil {
		return err
	}
	s.format = format
	if s.format != "text" && s.format != "json" {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--format %q: want %s", s.format, strings.Join(fuzz.Formats, " or "))}
	}
	if s.iutLine != "" && s.iutPeer != "" {
		return &exitError{code: exitUsageErr, err: errors.New("--iut and --iut-peer are exclusive")}
	}
	if s.iutPeer != "" && s.nats.URL == "" {
		return &exitError{code: exitUsageErr, err: errors.New("--iut-peer needs --nats-url: a running peer cannot be on the embedded broker")}
	}
	return nil
}

// run checks the flags, fuzzes and writes the report.
func (s *fuzzFlags) run(cmd *cobra.Command) error {
	if err := s.check(cmd); err != nil {
		return err
	}
	var err error
	hc := harness.Target{StepTimeout: s.stepTimeout, GreetTimeout: s.greetTimeout, IUTPeer: s.iutPeer,
		Workspace: s.workspace, Channel: s.channel, Version: version, MaxRestarts: s.maxRestarts}
	if hc.Command, err = iutArgv(s.iutLine, s.iutPeer); err != nil {
		return err
	}
	if hc.External, err = external(s.nats); err != nil {
		return err
	}
	if err := hc.CheckSettings(); err != nil {
		return usage(err)
	}
	out, closeOut, err := reportOut(cmd.OutOrStdout(), s.output)
	if err != nil {
		return err
	}
	defer closeOut()
	errOut := cmd.ErrOrStderr()
	var live *termline.Line
	if f, ok := errOut.(*os.File); ok && isTerminal(f) {
		live = termline.New(f)
		hc.Waiting = termline.LiveWait(f, termWidth())
	}
	hc.Life = func(ev report.LifeEvent) {
		if live != nil {
			live.Clear()
		}
		fmt.Fprint(errOut, termline.LifeLines(ev))
	}
	cfg := fuzz.Config{Target: hc, Seed: s.seed, Cases: s.cases, Duration: s.duration, Parallel: s.parallel,
		ReproDir: s.reproDir, CorpusDir: s.corpusDir, Shrink: s.shrink, Version: version}
	if live != nil {
		cfg.Progress = func(p fuzz.Progress) { live.Show(p.Line()) }
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := fuzz.Run(ctx, cfg)
	if live != nil {
		live.Clear()
	}
	if err := fuzz.Write(out, s.format, rep, s.verbose); err != nil {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("write report: %w", err)}
	}
	if out != cmd.OutOrStdout() {
		// The report went to a file: the log still gets the verdict.
		fmt.Fprintln(errOut, fuzz.VerdictLine(rep, s.output))
	}
	switch {
	case ctx.Err() != nil:
		// Interrupted: what was played is reported, but no verdict
		// rests on a run stopped midway.
		return &exitError{code: exitUsageErr, err: errors.New("interrupted")}
	case runErr != nil:
		return &exitError{code: exitUsageErr, err: runErr}
	case rep.Failed():
		return &exitError{code: exitInvalid}
	}
	return nil
}
