package main

import (
	"fmt"
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rundiff"
	"github.com/aghcheck/aghcheck/reporter"
)

func init() { subcommands = append(subcommands, newDiffCmd) }

func newDiffCmd() *cobra.Command {
	var format, output string
	var noColor, matrix, allowErrors bool
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json | diff --matrix RUN.json...",
		Short: "Compare two runs from their JSON reports: what regressed, improved, appeared or vanished",
		Long: `diff compares two JSON reports of aghcheck run (--format json), scenario by
scenario and requirement by requirement, and names the implementation
version and aghcheck version of each side:

  regressed  pass → warn or fail, warn → fail
  improved   the other way
  appeared   only in NEW (a new scenario or requirement)
  vanished   only in OLD
  not played judged (pass, warn or fail) in OLD, error in NEW: the new run
             could not play it, so it says nothing; this fails like a
             regression unless --allow-errors is given
  not judged skipped in one of the runs, or errored in OLD

Each scenario's own outcome is compared: a baseline's expected-fail counts
as what it was, and a failure that was only --strict's as a warning, so
runs with different baselines or strictness compare fairly. Message ids,
timings and messages differ from run to run and are never compared.

--format markdown is a pull request comment; json is for tools.

--matrix sets any number of runs side by side instead, one column per run
(labelled by its file name without .json): the scenarios whose outcome is
not the same in every column, a changed cell marked, and each column's
counts. A report of a run that could not be carried out is a column that
says why. make reference-matrix writes one for several versions of the
reference runtime. It always exits 0 (2 for usage errors).

Exit status: 0 when nothing regressed, 1 when anything did (or anything
could not be played, without --allow-errors), 2 for usage
errors (a file that is not a JSON run report, or one of a run that could
not be carried out).`,
		Example: `  aghcheck run --iut ./my-agent --format json -o main.json     # on main
  aghcheck run --iut ./my-agent --format json -o branch.json   # on the branch
  aghcheck diff main.json branch.json
  aghcheck diff main.json branch.json --format markdown > comment.md
  aghcheck diff --matrix --format markdown v0.0.4.json v0.0.5.json main.json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if noColor {
				color.NoColor = true
			}
			if matrix {
				return writeMatrix(cmd, args, format, output)
			}
			if len(args) != 2 {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("diff takes 2 reports, got %d (usage: %s)", len(args), cmd.UseLine())}
			}
			f, err := reporter.Diff.Get(format)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("--format: %w", err)}
			}
			old, err := rundiff.Load(args[0])
			if err != nil {
				return &exitError{code: exitUsageErr, err: err}
			}
			cur, err := rundiff.Load(args[1])
			if err != nil {
				return &exitError{code: exitUsageErr, err: err}
			}
			out, done, err := outputFile(cmd, output)
			if err != nil {
				return err
			}
			defer done()
			d := rundiff.Compare(args[0], old, args[1], cur)
			w := f.New(out, reporter.Options{Color: out == os.Stdout && !color.NoColor})
			if err := w.Finish(d); err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("write: %w", err)}
			}
			if d.Fails(allowErrors) {
				return &exitError{code: exitInvalid}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&format, "format", "f", "text", "output `FORMAT`: "+reporter.Diff.List())
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(reporter.Diff.Names()...))
	f.StringVarP(&output, "output", "o", "", "write to `FILE` instead of stdout")
	f.BoolVar(&noColor, "no-color", false, "plain text output (also when NO_COLOR is set or stdout is not a terminal)")
	f.BoolVar(&allowErrors, "allow-errors", false, "exit 0 when what was judged before could not be played now (pass → error), if nothing regressed")
	f.BoolVar(&matrix, "matrix", false, "set any number of runs side by side, one column each (formats: "+reporter.Matrix.List()+")")
	return cmd
}

// outputFile is -o FILE, or stdout for none or "-"; done closes it.
func outputFile(cmd *cobra.Command, path string) (io.Writer, func(), error) {
	if path == "" || path == "-" {
		return cmd.OutOrStdout(), func() {}, nil
	}
	f, err := report.Create(path)
	if err != nil {
		return nil, nil, &exitError{code: exitUsageErr, err: err}
	}
	return f, func() { _ = f.Close() }, nil
}

// writeMatrix is diff --matrix.
func writeMatrix(cmd *cobra.Command, paths []string, format, output string) error {
	if len(paths) < 2 {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("diff --matrix takes 2 reports or more, got %d", len(paths))}
	}
	f, err := reporter.Matrix.Get(format)
	if err != nil {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--format: %w", err)}
	}
	labels := make([]string, len(paths))
	reps := make([]*report.Report, len(paths))
	for i, p := range paths {
		if labels[i], reps[i], err = rundiff.LoadColumn(p); err != nil {
			return &exitError{code: exitUsageErr, err: err}
		}
	}
	out, done, err := outputFile(cmd, output)
	if err != nil {
		return err
	}
	defer done()
	if err := f.New(out, reporter.Options{}).Finish(rundiff.NewMatrix(labels, reps)); err != nil {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("write: %w", err)}
	}
	return nil
}
