package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/internal/scenario"
)

func init() { subcommands = append(subcommands, newShowCmd) }

func newShowCmd() *cobra.Command {
	var (
		sf     suiteFlags
		format string
	)
	cmd := &cobra.Command{
		Use:   "show ID...",
		Short: "Print the definition of scenarios, as a run plays them",
		Long: `show prints the definition of each scenario named (ids as aghcheck list
gives them), from the built-in suites and --suite directories: the file and
line it comes from, then the scenario as YAML (or JSON). A generated case
(receiver.*) is shown with its fixture and templates filled in. A failure
that points to embedded:core/... can be read this way after go install.`,
		Example: `  aghcheck show lifecycle.work-completes
  aghcheck show receiver.SAY-TEXT.blank --format json
  aghcheck show --suite my-suites acme.replies-on-peer-subject`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &exitError{code: exitUsageErr, err: errors.New("show needs the id of a scenario, e.g. aghcheck show lifecycle.work-completes (aghcheck list names them all)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "yaml" && format != "json" {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("--format %q: want yaml or json", format)}
			}
			plan, err := sf.preview()
			if err != nil {
				return err
			}
			scs := plan.Scenarios()
			out := cmd.OutOrStdout()
			for i, id := range args {
				k := slices.IndexFunc(scs, func(sc *scenario.Scenario) bool { return sc.ID == id })
				if k < 0 {
					return &exitError{code: exitUsageErr, err: fmt.Errorf("no scenario %q%s (aghcheck list names them all)", id, nearIDs(scs, id))}
				}
				sc := scs[k]
				var b []byte
				if format == "json" {
					b, err = sc.JSON()
					b = append(b, '\n')
				} else {
					b, err = sc.YAML()
				}
				if err != nil {
					return err
				}
				if i > 0 && format == "yaml" {
					fmt.Fprintln(out, "---")
				}
				if format == "yaml" {
					where := sc.File
					if sc.Line > 0 {
						where += ":" + strconv.Itoa(sc.Line)
					}
					fmt.Fprintf(out, "# %s (suite %s)\n", where, sc.Suite)
				}
				_, _ = out.Write(b)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&sf.dirs, "suite", nil, "also load scenario files (*.yaml, *.yml, *.json) from `DIR` (repeatable)")
	f.BoolVar(&sf.embedded, "embedded", true, "include the built-in suites")
	f.StringVarP(&format, "format", "f", "yaml", "output `FORMAT`: yaml or json")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion("yaml", "json"))
	sf.level = "full"
	return cmd
}

// nearIDs suggests up to five ids that contain what was asked for.
func nearIDs(scs []*scenario.Scenario, id string) string {
	var near []string
	for _, sc := range scs {
		if strings.Contains(sc.ID, id) && len(near) < 5 {
			near = append(near, sc.ID)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
}
