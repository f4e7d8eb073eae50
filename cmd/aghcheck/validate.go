package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fatih/color"
	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/termline"
	"github.com/aghcheck/aghcheck/internal/validate"
	"github.com/aghcheck/aghcheck/reporter"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

// profileNames are the --profile values, in detection order.
var profileNames = []string{"agh", "olympus", "redkey-wire", "redkey-card"}

// validateFlags are aghcheck validate's flags.
type validateFlags struct {
	format, profile, now, maxAge, compat string
	strict, quiet, requireVerified       bool
	oneMessage                           bool
	fullSchema                           bool
	errata                               []string
	jobs                                 int
	// buildFormats makes the profiles of the formats other than agh from
	// their own flags (addFormatFlags).
	buildFormats func() ([]validate.Profile, error)
}

func newValidateCmd() *cobra.Command {
	s := &validateFlags{}
	cmd := &cobra.Command{
		Use:     "validate [flags] PATH...",
		Short:   "Check envelopes and messages in files, directories, globs or stdin",
		Long:    validateLong,
		Example: validateExample,
		Args:    cobra.ArbitraryArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return s.run(cmd, args) },
	}
	fs := cmd.Flags()
	fs.StringVarP(&s.format, "format", "f", "text", "output `FORMAT`: "+reporter.Validate.List())
	fs.BoolVar(&s.strict, "strict", false, "count SHOULD-level findings (warnings) as errors")
	fs.BoolVarP(&s.quiet, "quiet", "q", false, "print only the findings of invalid documents and the summary")
	fs.BoolVar(&s.oneMessage, "one-message", false, "read each input as exactly one message, as a receiver gets a NATS payload: an array is INPUT-NOT-OBJECT, a second value INPUT-JSON-SYNTAX (default: a file may hold many documents)")
	fs.StringVar(&s.profile, "profile", "", "check every document as `NAME` instead of detecting its format: "+strings.Join(profileNames, "|"))
	fs.StringVar(&s.now, "now", "", "check freshness against `TIME` (Unix seconds, or \"now\")")
	fs.StringVar(&s.maxAge, "max-replay-age", "300s", "replay window for envelopes without expires_at (`AGE`: 300, 300s, 5m)")
	fs.BoolVar(&s.requireVerified, "require-verified", false, "make envelopes whose trust state is unverified invalid")
	fs.BoolVar(&s.fullSchema, "full-schema", false, "agh: also run the JSON Schema validator on every envelope, broken or clean, as a cross-check of the native rules (slower; same report)")
	fs.StringArrayVar(&s.errata, "errata", nil, "apply the alternative reading `NAME` of a documented erratum (repeatable; see docs/errata.md)")
	fs.StringVar(&s.compat, "compat", "", "apply every erratum the `RUNTIME` implements: reference")
	fs.IntVarP(&s.jobs, "jobs", "j", 0, "checking goroutines (0: one per CPU)")
	s.buildFormats = addFormatFlags(fs)

	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(reporter.Validate.Names()...))
	_ = cmd.RegisterFlagCompletionFunc("profile", fixedCompletion(profileNames...))
	_ = cmd.RegisterFlagCompletionFunc("compat", fixedCompletion("reference"))
	_ = cmd.RegisterFlagCompletionFunc("now", fixedCompletion("now"))
	_ = cmd.RegisterFlagCompletionFunc("max-replay-age", fixedCompletion("300s", "60s", "5m", "1h"))
	_ = cmd.RegisterFlagCompletionFunc("errata", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		out := []string{"reference\tevery erratum the reference runtime implements"}
		for _, e := range agh.ErrataNames() {
			out = append(out, e.Name+"\t"+e.Description)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"json", "ndjson", "jsonl"}, cobra.ShellCompDirectiveFilterFileExt
	}

	return cmd
}

const validateLong = `Validate checks every document it is given against the JSON Schema and every
semantic rule of its format, trust signatures included, and reports each
finding with its rule id, JSON pointer, expected and found values and the
clause it enforces.

PATH is a file, a directory (searched recursively for *.json, *.ndjson and
*.jsonl), a glob (quote it so the shell leaves it alone) or - for standard
input. A file may hold one document, a JSON array of documents, or NDJSON
(one document per line; a broken line costs only that line). Documents are
streamed: none may exceed 1 MiB, and files of any size are read in bounded
memory. --one-message reads each input as one message instead, as a
receiver gets it: an array or two envelopes in one file is then invalid.

Each document's format is detected (AGH Network v0, Olympus, RedKey wire,
RedKey card, in that order); --profile forces one.

Results are written as each document is checked: on a live stream (-)
the text, json and github formats show a document as soon as it is
complete (junit and sarif are one document, written at the end). Ctrl-C
or SIGTERM prints the results so far and their summary.

Exit status: 0 every document is valid, 1 at least one is invalid,
2 usage or input error (missing file, glob matching nothing, empty input;
the other inputs are still checked) or an interrupted run with nothing
invalid.`

const validateExample = `  # one envelope, a directory and a glob
  aghcheck validate msg.json
  aghcheck validate fixtures/ 'captures/*.ndjson'

  # from a pipe, as GitHub Actions annotations, warnings counted as errors
  nats sub --raw 'agh.>' | aghcheck validate --format github --strict -

  # freshness against the current time, signatures required
  aghcheck validate --now now --max-replay-age 5m --require-verified msgs.ndjson

  # read the documents as the reference runtime does
  aghcheck validate --compat reference msgs.ndjson

  # JUnit XML for a CI test report, SARIF for code scanning, only the failures on the terminal
  aghcheck validate --format junit fixtures/ > validate.xml
  aghcheck validate --format sarif fixtures/ > aghcheck.sarif
  aghcheck validate --quiet fixtures/`

// profiles builds the rule engines the flags ask for: the agh checker
// (its clock, replay window, errata), then the other formats'.
func (s *validateFlags) profiles() ([]validate.Profile, error) {
	opts := agh.Options{RequireVerified: s.requireVerified, FullSchema: s.fullSchema}
	var err error
	if opts.Now, err = parseNow(s.now); err != nil {
		return nil, err
	}
	if opts.MaxReplayAge, err = parseAge(s.maxAge); err != nil {
		return nil, err
	}
	if opts.Errata, err = parseErrata(s.compat, s.errata); err != nil {
		return nil, err
	}
	checker, err := agh.NewChecker(opts)
	if err != nil {
		return nil, err
	}
	others, err := s.buildFormats()
	if err != nil {
		return nil, err
	}
	return append([]validate.Profile{aghProfile{checker}}, others...), nil
}

// run checks the inputs args names and reports on them as they are checked.
func (s *validateFlags) run(cmd *cobra.Command, args []string) error {
	if err := countFlag("jobs", s.jobs, "one per CPU"); err != nil {
		return err
	}
	profiles, err := s.profiles()
	if err != nil {
		return usage(err)
	}
	out := cmd.OutOrStdout()
	rep, err := reporter.Validate.New(s.format, out, reporter.Options{
		Strict: s.strict, Quiet: s.quiet, Version: version,
		// fatih/color has already looked at NO_COLOR, TERM=dumb and
		// whether standard output is a terminal.
		Color: out == os.Stdout && !color.NoColor,
	})
	if err != nil {
		return usage(fmt.Errorf("--format: %w", err))
	}
	var bytesRead atomic.Int64
	v, err := validate.New(validate.Options{
		Profiles: profiles,
		Force:    s.profile, Strict: s.strict, Workers: s.jobs, Stdin: cmd.InOrStdin(),
		BytesRead: &bytesRead, OneMessage: s.oneMessage,
		// A line-oriented format shows each document as soon as it is
		// checked, not when its buffer fills: a live stream needs it.
		Idle: flushFunc(rep),
	})
	if err != nil {
		return usage(fmt.Errorf("--profile: %w", err))
	}
	// A path that is missing, or a pattern that matches nothing, is
	// reported at the end (exit 2) after the other inputs are checked.
	inputs, expandErr := validate.Expand(args)
	if len(inputs) == 0 {
		// Nothing to read: a machine report still says so (a SARIF or
		// JUnit file a CI step uploads is never empty), then exit 2.
		if errors.Is(expandErr, validate.ErrNoInput) || s.format == "text" {
			return usage(expandErr) // text: the error line says it all
		}
		if err := rep.Finish(validate.Summary{InputErrors: validate.InputErrors(expandErr)}); err != nil {
			return usage(err)
		}
		return usage(expandErr)
	}
	tuneGC()
	emit, stop := rep.Item, func() {}
	// Long work shows a progress line on a terminal; a pipe or a file
	// (a CI log) and --quiet get nothing.
	if f := progressTo(cmd.ErrOrStderr(), s.quiet); f != nil {
		emit, stop = showProgress(f, len(inputs), &bytesRead, rep.Item)
	}
	// An interrupt (Ctrl-C, or SIGTERM from a CI timeout) still reports
	// what was read so far, and the summary of it.
	ctx, stopSignals := signal.NotifyContext(contextOf(cmd), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	sum, runErr := v.Run(ctx, inputs, emit)
	interrupted := ctx.Err() != nil
	stop() // before the summary, so the two never interleave
	if !interrupted {
		sum.InputErrors = validate.InputErrors(errors.Join(expandErr, runErr))
	}
	if err := rep.Finish(sum); err != nil && runErr == nil {
		runErr = err
	}
	return validateExit(cmd.ErrOrStderr(), sum, interrupted, errors.Join(expandErr, runErr))
}

// validateExit is validate's exit status: 1 when a document is invalid,
// 2 when an input could not be read (err) or the run was interrupted
// with nothing invalid, else 0.
func validateExit(errOut io.Writer, sum validate.Summary, interrupted bool, err error) error {
	switch {
	case interrupted:
		fmt.Fprintf(errOut, "aghcheck: interrupted: the summary counts the %s read before the signal\n", plural.Count(sum.Documents, "document"))
		if sum.Invalid > 0 {
			return &exitError{code: exitInvalid}
		}
		return &exitError{code: exitUsageErr}
	case err != nil:
		// Each input error on its own line, then exit 2: the check was
		// not complete, whatever the documents said.
		printErr(errOut, err)
		return &exitError{code: exitUsageErr}
	}
	if sum.Invalid > 0 {
		return &exitError{code: exitInvalid}
	}
	return nil
}

// progressTo is where validate's progress line goes: standard error when
// it is a terminal and --quiet is not given, else nowhere (nil).
func progressTo(w io.Writer, quiet bool) *os.File {
	if f, ok := w.(*os.File); ok && !quiet && isTerminal(f) {
		return f
	}
	return nil
}

// showProgress wraps emit to count documents and inputs and redraws the
// progress line on out from the first half second on; stop erases it.
func showProgress(out *os.File, files int, bytesRead *atomic.Int64, emit func(*validate.Document) error) (func(*validate.Document) error, func()) {
	var docs, file atomic.Int64
	last := ""
	counted := func(d *validate.Document) error {
		if d.Source != last {
			last = d.Source
			file.Add(1)
		}
		docs.Add(1)
		return emit(d)
	}
	start := time.Now()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		line := termline.New(out)
		defer line.Clear()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if el := time.Since(start); el >= 500*time.Millisecond {
				line.Show(termline.ProgressLine(termline.ValidateProgress{File: int(min(max(file.Load(), 1), int64(files))), Files: files,
					Documents: docs.Load(), Bytes: bytesRead.Load(), Elapsed: el}, termWidth()))
			}
		}
	}()
	return counted, func() { close(done); <-finished }
}

// tuneGC trades a little heap for less collector work: validation
// allocates many short-lived trees and keeps almost nothing, so the default
// GOGC=100 spends about a fifth of the CPU collecting. The soft memory limit
// keeps peak RSS well inside the 64 MiB budget however large the input.
// Explicit GOGC / GOMEMLIMIT settings win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(40 << 20)
	}
}

// aghProfile adds the trust state to the agh engine's findings.
type aghProfile struct{ *agh.Checker }

func (p aghProfile) CheckTrust(raw []byte, v any) ([]rules.Finding, string) {
	r := p.CheckValue(raw, v)
	return r.Findings, r.Trust
}

func fixedCompletion(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

// parseNow reads --now: "" (freshness off), "now", or Unix seconds.
func parseNow(s string) (int64, error) {
	switch s {
	case "":
		return 0, nil
	case "now":
		return time.Now().Unix(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--now: want Unix seconds or \"now\", got %q", s)
	}
	return n, nil
}

// parseAge reads --max-replay-age: plain seconds or a Go duration.
func parseAge(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return 0, errors.New("--max-replay-age: must be positive")
		}
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("--max-replay-age: want seconds (300) or a duration (300s, 5m), got %q", s)
	}
	return int64(d / time.Second), nil
}

// flushFunc is a function that flushes w when w is a reporter.Flusher, else nil.
func flushFunc(w any) func() {
	f, ok := w.(reporter.Flusher)
	if !ok {
		return nil
	}
	return func() { _ = f.Flush() }
}
