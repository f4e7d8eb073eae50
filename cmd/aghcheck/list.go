package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/harness"
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
			inLevel := map[string]bool{}
			for _, c := range harness.Levels[sf.level].Claims {
				inLevel[c] = true
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSUITE\tLEVEL\tCLAIM\tREQUIRES\tPLAN\tTITLE")
			plays := 0
			for _, sc := range scs {
				plan := "play"
				switch {
				case re != nil && !re.MatchString(sc.ID):
					plan = "skip (--run)"
				case !inLevel[sc.Claim]:
					plan = "skip (level)"
				default:
					plays++
				}
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
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d scenarios, %d would be played at level %s\n", len(scs), plays, sf.level)
			return nil
		},
	}
	sf.add(cmd)
	return cmd
}
