package main

import (
	"fmt"
	"github.com/aghcheck/aghcheck/reporter"
	"os"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/harness/scenario"
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
evaluate, captures defined before use, and ids unique across the files and
the built-in suites. Exit status 1 lists every problem found.`,
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
			builtin := len(set.Scenarios)
			for _, d := range args {
				st, err := os.Stat(d)
				if err != nil || !st.IsDir() {
					return &exitError{code: exitUsageErr, err: fmt.Errorf("%s: not a directory", d)}
				}
				set.Merge(scenario.LoadFS(os.DirFS(d), ".", d+"/"))
			}
			checked := len(set.Scenarios) - builtin
			if embedded {
				checked = len(set.Scenarios)
			}
			for _, p := range set.Problems {
				fmt.Fprintln(cmd.OutOrStdout(), p)
			}
			if len(set.Problems) > 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("%s in %s", reporter.Plural(len(set.Problems), "problem"), reporter.Plural(checked, "scenario"))}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d scenarios ok\n", checked)
			return nil
		},
	}
	cmd.Flags().BoolVar(&embedded, "embedded", false, "also lint the built-in suites")
	return cmd
}
