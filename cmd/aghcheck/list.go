package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/reporter"
)

func init() { subcommands = append(subcommands, newListCmd) }

func newListCmd() *cobra.Command {
	var sf suiteFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the scenarios a run would play (dry run)",
		Long: `list loads the scenarios exactly as run would (built-in suites plus --suite
directories, filtered by --run and --level) and prints what would be played
and what would be skipped, without starting a broker or an IUT.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scs, re, err := sf.load()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSUITE\tLEVEL\tCLAIM\tREQUIRES\tPLAN\tTITLE")
			for _, sc := range scs {
				plan := sf.plan(sc, re)
				var req []string
				if sc.Requires.Profile != "" {
					req = append(req, "profile "+sc.Requires.Profile)
				}
				if sc.Requires.TrustMode != "" {
					req = append(req, "trust "+sc.Requires.TrustMode)
				}
				if sc.Requires.JetStream {
					req = append(req, "jetstream")
				}
				if len(req) == 0 {
					req = []string{"-"}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sc.ID, sc.Suite, sc.Level, sc.Claim, strings.Join(req, ","), plan, sc.Title)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\n%s, %d would be played at level %s\n", reporter.Plural(len(scs), "scenario"), sf.selected(scs, re), sf.level)
			return nil
		},
	}
	sf.add(cmd)
	return cmd
}
