package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fatih/color"
	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/termline"
	"github.com/aghcheck/aghcheck/reporter"
)

func init() { subcommands = append(subcommands, newRunCmd) }

// suiteFlags select scenarios; shared by run and list.
type suiteFlags struct {
	dirs     []string
	runRe    string
	level    string
	embedded bool
	errata   []string
	compat   string
}

func (s *suiteFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&s.dirs, "suite", nil, "also load scenario files (*.yaml, *.yml, *.json) from `DIR` (repeatable)")
	f.StringVar(&s.runRe, "run", "", "only run scenarios whose id matches `REGEX`")
	f.StringVar(&s.level, "level", "full", "claimed level, the claim a CI gate names: "+strings.Join(harness.LevelNames, ", ")+" (see below)")
	f.BoolVar(&s.embedded, "embedded", true, "include the built-in suites (--embedded=false plays only --suite files)")
	f.StringArrayVar(&s.errata, "errata", nil, "judge by the other reading `NAME` of a documented erratum (repeatable; known: "+readingNames()+"; see docs/errata.md)")
	f.StringVar(&s.compat, "compat", "", "judge by every reading of a documented erratum that `RUNTIME` implements: reference (compozy/agh; validate --compat's preset)")
	_ = cmd.RegisterFlagCompletionFunc("compat", fixedCompletion("reference"))
	_ = cmd.RegisterFlagCompletionFunc("errata", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, r := range requirements.Readings() {
			out = append(out, r.Name+"\t"+r.Description)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}

// readingNames lists the errata readings for --errata's help.
func readingNames() string {
	var names []string
	for _, r := range requirements.Readings() {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

// options maps the selection flags to the certification layer's options.
func (s *suiteFlags) options() harness.Options {
	return harness.Options{NoBuiltin: !s.embedded, Suites: s.dirs, Run: s.runRe, Level: s.level, Errata: s.errata, Compat: s.compat}
}

// preview is what a run with these flags would play (list, show).
func (s *suiteFlags) preview() (*harness.Plan, error) {
	p, err := s.options().Preview()
	if err != nil {
		return nil, usage(err)
	}
	return p, nil
}

// usage makes err, an option the certification layer refused, a usage
// error (exit 2).
func usage(err error) error { return &exitError{code: exitUsageErr, err: err} }

// refuseBlank makes a named flag given with an empty or blank value a usage
// error: in CI an unset variable (--iut "$IUT") must not silently become
// the default and certify the built-in reference peer instead.
func refuseBlank(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		if f := cmd.Flags().Lookup(name); f.Changed && strings.TrimSpace(f.Value.String()) == "" {
			return &exitError{code: exitUsageErr, err: fmt.Errorf("--%s is empty (an unset variable?): name the implementation under test, or leave --%[1]s out to certify the built-in reference peer", name)}
		}
	}
	return nil
}

// planned is what a run does with sc before it sees the IUT: "play", or
// "skip (--run)" / "skip (level)" when --run or the level leave it out.
func planned(p *harness.Plan, sc *scenario.Scenario) string {
	if why := p.LeftOut(sc); why != "" {
		return "skip (" + why + ")"
	}
	return "play"
}

// termWidth is the terminal's width as the shell exports it, else 80.
func termWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 80
}

// iutCommand splits --iut and maps a leading "aghcheck" to this very
// executable, so 'aghcheck run --iut "aghcheck peer"' works under go run
// and without aghcheck on PATH. A line that needs a shell, or a program
// that cannot be started, is refused here: one line, before the broker
// starts.
func iutCommand(line string) ([]string, error) {
	argv, err := iut.Split(line)
	if err != nil {
		return nil, err
	}
	if err := iut.CheckLine(line, argv); err != nil {
		return nil, err
	}
	if argv[0] == "aghcheck" {
		if exe, err := os.Executable(); err == nil {
			argv[0] = exe
		}
	}
	if err := iut.Runnable(argv[0]); err != nil {
		return nil, err
	}
	return argv, nil
}

// builtinPeer reports whether the IUT is the built-in reference peer of
// this executable under its own name: no --iut, or --iut 'aghcheck peer
// ...' without a --display-name of its own.
func builtinPeer(iutLine, iutPeer string) bool {
	if iutPeer != "" {
		return false
	}
	if iutLine == "" {
		return true
	}
	argv, err := iut.Split(iutLine)
	if err != nil || len(argv) < 2 || argv[0] != "aghcheck" || argv[1] != "peer" {
		return false
	}
	return !slices.ContainsFunc(argv, func(a string) bool { return strings.HasPrefix(a, "--display-name") })
}

// runFlags are aghcheck run's flags.
type runFlags struct {
	sf                                 suiteFlags
	iutLine, iutPeer, format, output   string
	nats                               harness.Credentials
	workspace                          string
	channel                            string
	strict, verbose, noColor           bool
	parallel, repeat                   int
	timeout, stepTimeout, greetTimeout time.Duration
	silence                            time.Duration
	baselinePath, writeBaselinePath    string
	ownedPath                          string
	recordPath, implName, implVersion  string
	maxRestarts                        int
	reproDir, fleet                    string
	backTimeout                        time.Duration
	deadline                           time.Duration

	recordFormat string // the record's format, from --record's extension (check)
}

func newRunCmd() *cobra.Command {
	s := &runFlags{}
	cmd := &cobra.Command{
		Use:     "run",
		Short:   "Certify a live AGH Network v0 peer by playing conformance scenarios at it",
		Long:    runLong,
		Example: runExample,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return s.run(cmd) },
	}
	s.sf.add(cmd)
	f := cmd.Flags()
	f.StringVar(&s.iutLine, "iut", "", "start the implementation under test with `'COMMAND ARGS'` (default: the built-in reference peer)")
	f.StringVar(&s.iutPeer, "iut-peer", "", "attach to the peer `ID` already running on --nats-url")
	addNATSFlags(f, &s.nats, "", "use this NATS server or cluster (`URL[,URL...]`, tried in order) instead of an embedded broker")
	f.StringVar(&s.workspace, "workspace", "", "workspace id of the run (default a fresh aghcheck-XXXXXXXX; with --iut-peer, the peer's own, found from its traffic)")
	f.StringVar(&s.channel, "channel", "conformance", "channel of the run (with --iut-peer, default the peer's own, found from its traffic)")
	f.StringVarP(&s.format, "format", "f", "text", "report `FORMAT`: "+reporter.Run.List())
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(reporter.Run.Names()...))
	f.StringVarP(&s.output, "output", "o", "", "write the report to `FILE` instead of stdout")
	f.BoolVar(&s.strict, "strict", false, "treat warnings (SHOULD not met) as failures")
	f.BoolVarP(&s.verbose, "verbose", "v", false, "list every skipped scenario and every reason a claim was not earned, and show envelopes whole")
	f.BoolVar(&s.noColor, "no-color", false, "plain text output (also when NO_COLOR is set or stdout is not a terminal)")
	f.IntVar(&s.parallel, "parallel", 0, "scenarios played at once (0: all of them)")
	f.StringVar(&s.fleet, "fleet", "", "play as member `NAME:K/N` of N aghcheck processes (one per machine) that play the same scenarios together against one IUT (--iut-peer) on one NATS network (--nats-url): their bursts leave together and member 1 reports for all (docs/harness.md)")
	f.IntVar(&s.repeat, "repeat", 0, "play the suite `N` times against the one IUT and report every scenario whose outcome differed between the runs as an error (0: once)")
	f.DurationVar(&s.timeout, "timeout", 0, "ceiling per scenario (0: none; every expect has --step-timeout)")
	f.DurationVar(&s.stepTimeout, "step-timeout", harness.DefaultStepTimeout, "ceiling of an expect step: it ends when its match arrives and fails only when none comes within this (not a reply deadline)")
	f.DurationVar(&s.silence, "silence", 0, "no effect: a silence is kept once a later reply shows the IUT processed what came before")
	_ = f.MarkDeprecated("silence", "silences have no window any more; they close on the IUT's next reply")
	f.StringVar(&s.baselinePath, "baseline", "", "known deviations `FILE` (YAML): its failures are expected-fail; a new failure or a stale entry fails the run")
	f.StringVar(&s.ownedPath, "owned-by-adapter", "", "`FILE` (YAML) naming the requirements whose verdict comes from an adapter's own code, not the runtime it wraps: reports mark them (reference/compozy-agh.adapter.yaml)")
	f.StringVar(&s.writeBaselinePath, "write-baseline", "", "write this run's failures to `FILE` as a baseline to start from")
	f.StringVar(&s.recordPath, "record", "", "also write the self-certification record to `FILE` (.json, or .yaml / .yml)")
	f.StringVar(&s.implName, "implementation", "", "implementation `NAME` every report names (default the Peer Card's display_name)")
	f.StringVar(&s.implVersion, "implementation-version", "", "implementation `VERSION` every report names (default the Peer Card's version, else unknown)")
	f.DurationVar(&s.greetTimeout, "greet-timeout", harness.DefaultGreetTimeout, "how long to wait for the IUT's greet (also for its return after it died or lost its connection)")
	f.IntVar(&s.maxRestarts, "max-restarts", harness.DefaultMaxRestarts, "how often an --iut that died is started again (0: never; the scenarios it could not play are errors)")
	f.DurationVar(&s.deadline, "deadline", harness.DefaultDeadline, "when the run's verdict is due: after it the run starts no scenario and no replay, and what it could not play is an error")
	f.DurationVar(&s.backTimeout, "back-timeout", 0, "how long an --iut whose broker connection closed has to come back on its own before it is restarted (default --greet-timeout)")
	f.StringVar(&s.reproDir, "repro-dir", "", "write each scenario that kills the IUT when played alone as a scenario file into `DIR` (replay: run --suite DIR --embedded=false)")
	return cmd
}

const runLong = `run starts an embedded NATS broker (or uses --nats-url), starts the
implementation under test (--iut 'COMMAND ARGS') or attaches to one already
on the broker (--iut-peer ID), waits for its greet, plays every scenario in
parallel as isolated test peers, validates passively every envelope the IUT
publishes, and prints the conformance claim it earned.

With neither --iut nor --iut-peer the built-in reference peer is certified
('aghcheck peer'). The IUT gets its settings in the environment:
AGH_NATS_URL, AGH_NATS_TOKEN, AGH_NATS_USER, AGH_NATS_PASSWORD,
AGH_NATS_CREDS (the absolute path of --nats-creds), AGH_WORKSPACE_ID,
AGH_CHANNEL, AGH_PEER_ID (a suggestion) and AGH_INITIATE (the absolute
path of the run's initiation orders: the work the IUT is asked to open,
docs/control-extension.md); each is set, empty when unused. On the
embedded broker the IUT's user and password are its own, confined to the
run's subjects (agh.network.v0.<workspace>.> and _INBOX.>): no JetStream
API, no $SYS; what the broker refused it is in the report. On --nats-url its permissions are the broker's to enforce.

--level names the claim of the Conformance Levels page the run targets,
alone or in a combination the page allows: core-sender (Core Sender),
core-receiver (Core Receiver), core (Core Peer: both), trust (Trust Peer:
Core Peer and the trust profile), nats (NATS Peer: Core Peer and the NATS
binding), full (Full Peer: both, with the optional JetStream scenarios).
Scenarios outside the claim are not played ("skip (level)").

Exit status: 0 when the claim --level names is earned, 1 when it is not,
2 for usage or harness errors (including an IUT that never greets). With
--baseline FILE (known deviations), 0 when the run matches it: no failure
outside it, no stale entry.

Where the protocol's pages can be read two ways (docs/errata.md), the
scenarios judge by the pages' default reading; --errata NAME judges by the
other reading NAME of one erratum, and --compat reference by every reading
the reference runtime (compozy/agh) implements, as validate --compat
reference does: null as absent, unknown top-level members ignored, its
work_id and thread_id grammars, a capability always with work_id, a
future ts refused, secret-looking keys refused. The affected scenarios are
played in their form for that reading, what the IUT sends is validated
under it, and every report names the readings applied.

--owned-by-adapter FILE names the requirements whose verdict comes from
an adapter's own code (its transport, subscriptions, greets) rather than
from the runtime it wraps; every report marks them.

--repeat N plays the suite N times, one run after another, against the one
broker and the one IUT (started once; restarted only if it dies) and
reports every scenario whose outcome differed between the runs as an error
of the harness, not a pass or fail of the IUT, with one line naming them
(JSON: summary.unstable, each scenario's runs). Any unstable scenario makes
the exit status 1; --deadline covers all N runs.

--fleet NAME:K/N makes this run member K of N aghcheck processes, on as
many machines, that play the same scenarios against one IUT (--iut-peer)
on one NATS network (--nats-url, a node of a cluster each): they meet on
subjects aghcheck.fleet.NAME.…, every member's burst (an at_once step)
leaves when all have reached it, and member 1's report is the fleet's:
each scenario's outcome is the worst of the members', and the load
figures are all of theirs.`

const runExample = `  aghcheck run
  aghcheck run --iut './my-agent --join' --level core
  aghcheck run --iut './my-agent --join' --level nats
  aghcheck run --iut 'aghcheck peer --fault accept-expired' --run 'delivery\.'
  aghcheck run --nats-url nats://nats.internal:4222 --nats-creds ci.creds --iut-peer reviewer.sess-1
  aghcheck run --iut 'node peer.js' --repeat 5
  aghcheck run --nats-url nats://node-b:4222 --iut-peer reviewer.sess-1 --run '^concurrency\.' --fleet load:2/3
  aghcheck run --format junit -o conformance.xml
  aghcheck run --format html -o report.html
  aghcheck run --suite my-suites --format github
  aghcheck run --iut ./adapter --compat reference --owned-by-adapter reference/compozy-agh.adapter.yaml
  aghcheck run --iut 'aghcheck peer --fault reading:null-as-absent' --errata null-as-absent`

// check refuses flags that cannot go together, one clear line each, and
// settles the report's format (--format, or -o's extension) and the
// record's.
func (s *runFlags) check(cmd *cobra.Command) error {
	if err := refuseBlank(cmd, "iut", "iut-peer"); err != nil {
		return err
	}
	if err := positiveDurations(cmd, "step-timeout", "greet-timeout", "deadline"); err != nil {
		return err
	}
	if s.backTimeout < 0 {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--back-timeout %s: want a positive duration, or 0 for --greet-timeout", s.backTimeout)}
	}
	if s.timeout < 0 {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--timeout %s: want a positive duration, or 0 for no ceiling per scenario", s.timeout)}
	}
	if err := countFlag("parallel", s.parallel, "every scenario at once"); err != nil {
		return err
	}
	if err := countFlag("max-restarts", s.maxRestarts, "never"); err != nil {
		return err
	}
	if err := countFlag("repeat", s.repeat, "once"); err != nil {
		return err
	}
	if s.iutLine != "" && s.iutPeer != "" {
		return usage(errors.New("--iut and --iut-peer are exclusive"))
	}
	format, err := outputFormat(cmd, s.format, s.output, runExtensions)
	if err != nil {
		return err
	}
	s.format = format
	if _, err := reporter.Run.Get(s.format); err != nil {
		return usage(fmt.Errorf("--format: %w", err))
	}
	if s.recordPath != "" {
		if s.recordFormat, err = reporter.RecordFormat(s.recordPath); err != nil {
			return usage(fmt.Errorf("--record: %w", err))
		}
	}
	return nil
}

// options maps the flags to the certification layer's options.
func (s *runFlags) options(cmd *cobra.Command) (harness.Options, error) {
	ext, err := external(s.nats)
	if err != nil {
		return harness.Options{}, err
	}
	o := s.sf.options()
	o.Target = harness.Target{
		StepTimeout: s.stepTimeout, GreetTimeout: s.greetTimeout, BackTimeout: s.backTimeout, Deadline: s.deadline,
		IUTPeer: s.iutPeer, Workspace: s.workspace, Channel: s.channel, Version: version, MaxRestarts: s.maxRestarts,
		External: ext,
	}
	o.Strict, o.Parallel, o.Timeout, o.ReproDir = s.strict, s.parallel, s.timeout, s.reproDir
	o.Repeat, o.Fleet = s.repeat, s.fleet
	o.Baseline, o.WriteBaseline = s.baselinePath, s.writeBaselinePath
	o.OwnedByAdapter = s.ownedPath
	o.Implementation, o.ImplementationVersion = s.implName, s.implVersion
	o.Warn = func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "aghcheck: warning:", sanitize.Text(msg)) }
	if s.iutPeer != "" {
		// Attached: what is not given is found from the peer's
		// own traffic on the broker.
		if !cmd.Flags().Changed("workspace") {
			o.Workspace = ""
		}
		if !cmd.Flags().Changed("channel") {
			o.Channel = ""
		}
	}
	if builtinPeer(s.iutLine, s.iutPeer) {
		// The built-in peer is this very aghcheck: one name and
		// aghcheck's version, however it was asked for.
		o.Implementation, o.ImplementationVersion = cmp.Or(s.implName, peer.DefaultDisplayName), cmp.Or(s.implVersion, version)
	}
	if o.Command, err = iutArgv(s.iutLine, s.iutPeer); err != nil {
		return harness.Options{}, err
	}
	return o, nil
}

// run checks the flags, plays the run and writes its report (and record).
func (s *runFlags) run(cmd *cobra.Command) error {
	if s.noColor {
		color.NoColor = true
	}
	if err := s.check(cmd); err != nil {
		return err
	}
	o, err := s.options(cmd)
	if err != nil {
		return err
	}
	plan, err := o.Plan()
	if err != nil {
		return usage(err)
	}
	out, closeOut, err := reportOut(cmd.OutOrStdout(), s.output)
	if err != nil {
		return err
	}
	defer closeOut()
	opts := reporter.Options{Strict: s.strict, Verbose: s.verbose, Level: plan.Level(), Scenarios: len(plan.Scenarios()), Selected: plan.Selected(),
		Color:  out == os.Stdout && !color.NoColor,
		Record: reporter.RecordInput{Scenarios: plan.Scenarios()}}
	w, err := reporter.Run.New(s.format, out, opts)
	if err != nil {
		return usage(fmt.Errorf("--format: %w", err))
	}
	follow(cmd.ErrOrStderr(), plan, w)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := plan.Run(ctx)
	if rep == nil {
		return usage(runErr)
	}
	if err := w.Finish(rep); err != nil {
		return usage(fmt.Errorf("write report: %w", err))
	}
	if err := s.record(cmd, out, rep, opts); err != nil {
		return err
	}
	if runErr != nil {
		return usage(runErr)
	}
	if !rep.Summary.Passed {
		return &exitError{code: exitInvalid}
	}
	return nil
}

// follow shows the run as it goes on errOut beside the report w: while the
// run waits, a terminal shows one live line saying what is awaited and for
// how long, cleared before any other line; a pipe or a file (a CI log)
// gets a line every waitLogEvery while a wait lasts. The IUT's deaths and
// returns go there as they happen, whatever the report's format: a CI log
// shows them in order.
func follow(errOut io.Writer, plan *harness.Plan, w reporter.Writer[*report.ScenarioResult, *report.Report]) {
	var live *termline.Line
	if f, ok := errOut.(*os.File); ok && isTerminal(f) {
		live = termline.New(f)
		plan.Waiting(termline.LiveWaitOn(live, termWidth()))
	} else {
		plan.Waiting(termline.LogWait(errOut, waitLogEvery))
	}
	clearLive := func() {
		if live != nil {
			live.Clear()
		}
	}
	plan.Progress(func(sc *report.ScenarioResult) { clearLive(); _ = w.Item(sc) }) // a failed write shows again at Finish
	plan.Life(func(ev report.LifeEvent) { clearLive(); fmt.Fprint(errOut, termline.LifeLines(ev)) })
}

// record writes the self-certification record of --record, with the
// JSON report it digests when the report is in another format, and, when
// the report went to a file, leaves the verdict and the files in the log.
func (s *runFlags) record(cmd *cobra.Command, out io.Writer, rep *report.Report, opts reporter.Options) error {
	var written []string
	companion := false
	if out != cmd.OutOrStdout() {
		written = append(written, s.output)
	}
	if s.recordPath != "" && rep.Error == "" {
		if err := writeRecord(s.recordPath, s.recordFormat, rep, opts); err != nil {
			return usage(fmt.Errorf("--record: %w", err))
		}
		written = append(written, s.recordPath)
		if s.format != "json" {
			// The record digests the JSON report: a run reported in
			// another format writes that report too, so the digest
			// names a file that exists.
			js := recordReport(s.recordPath)
			if err := writeRecord(js, "json", rep, opts); err != nil {
				return usage(fmt.Errorf("--record: the JSON report it digests: %w", err))
			}
			written = append(written, js)
			companion = true
		}
	}
	if out != cmd.OutOrStdout() || companion {
		// The report went to a file, or a JSON report was written
		// beside the record: the log gets the verdict and the files.
		fmt.Fprintln(cmd.ErrOrStderr(), reporter.VerdictLine(rep, written...))
	}
	return nil
}

// recordReport is where --record writes the JSON report its digest names
// when the run's report is in another format: beside the record, as
// NAME.report.json.
func recordReport(record string) string {
	return strings.TrimSuffix(record, filepath.Ext(record)) + ".report.json"
}

// runExtensions are the -o extensions that name a run report's format:
// the format taken when --format is not given, then the others a file so
// named may hold.
var runExtensions = map[string][]string{".json": {"json", "record-json"}, ".html": {"html"}, ".htm": {"html"},
	".xml": {"junit"}, ".yaml": {"record-yaml"}, ".yml": {"record-yaml"}}

// outputFormat is the report format: --format when given, else the one the
// extension of -o names (.json, .html, .xml), else format's default. A
// --format the extension contradicts is refused: -o report.json must not
// hold text.
func outputFormat(cmd *cobra.Command, format, output string, exts map[string][]string) (string, error) {
	byExt, ok := exts[strings.ToLower(filepath.Ext(output))]
	switch {
	case !ok || output == "-":
		return format, nil
	case !cmd.Flags().Changed("format"):
		return byExt[0], nil
	case !slices.Contains(byExt, format):
		return "", usage(fmt.Errorf("-o %s holds %s, but --format says %s: give one that agrees, or leave --format out", output, strings.Join(byExt, " or "), format))
	}
	return format, nil
}

// writeRecord writes the self-certification record of rep to path.
func writeRecord(path, format string, rep *report.Report, o reporter.Options) error {
	f, err := report.Create(path)
	if err != nil {
		return err
	}
	w, err := reporter.Run.New(format, f, o)
	if err == nil {
		err = w.Finish(rep)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// waitLogEvery is how often a log that is not a terminal hears what a run
// waits for while a wait lasts.
const waitLogEvery = 10 * time.Second
