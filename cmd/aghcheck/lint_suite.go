package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

func init() { subcommands = append(subcommands, newLintSuiteCmd) }

func newLintSuiteCmd() *cobra.Command {
	var embedded bool
	cmd := &cobra.Command{
		Use:   "lint-suite DIR...",
		Short: "Check scenario files against the scenario schema and rule catalogue",
		Long: `lint-suite checks every *.yaml, *.yml and *.json scenario file under each DIR:
the JSON Schema of the format (schemas/scenario.schema.json), requirement ids
that exist in the rule catalogue, declared test peers, templates that
evaluate, captures defined before use, ids unique across the files and
the built-in suites, and subjects: a send publishes only on the run's own
(agh.network.v0.WORKSPACE.…; see docs/scenarios.md#subjects). Exit status 1
lists every problem found.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !embedded {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("lint-suite needs at least one DIR (or --embedded)")}
			}
			// Ids must stay unique against the built-in suites too.
			set := scenario.LoadFS(suites.FS(), ".", "embedded:")
			if !embedded {
				set.Problems = nil
			}
			builtin, builtinFiles := len(set.Scenarios), set.Files
			for _, d := range args {
				st, err := os.Stat(d)
				if err != nil || !st.IsDir() {
					return &exitError{code: exitUsageErr, err: fmt.Errorf("%s: not a directory", d)}
				}
				set.Merge(scenario.LoadFS(os.DirFS(d), ".", d+"/"))
			}
			checked, files := len(set.Scenarios)-builtin, set.Files-builtinFiles
			if embedded {
				checked, files = len(set.Scenarios), set.Files
			}
			for _, p := range set.Problems {
				fmt.Fprintln(cmd.OutOrStdout(), p)
			}
			// A file the schema refuses yields no scenario: count files too.
			in := plural.Count(checked, "scenario") + " in " + plural.Count(files, "file")
			if len(set.Problems) > 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("%s (%s)", plural.Count(len(set.Problems), "problem"), in)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s ok\n", in)
			return nil
		},
	}
	cmd.Flags().BoolVar(&embedded, "embedded", false, "also lint the built-in suites")
	return cmd
}
