package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

func init() { subcommands = append(subcommands, newListCmd) }

// listEntry is one scenario in list --format json; field names are stable.
type listEntry struct {
	ID           string            `json:"id"`
	Title        string            `json:"title"`
	Suite        string            `json:"suite"`
	File         string            `json:"file"`
	Line         int               `json:"line,omitempty"`
	Level        string            `json:"level"`
	Claim        string            `json:"claim"`
	Requirements []string          `json:"requirements"`
	Requires     scenario.Requires `json:"requires"`
	// Plan is what a run would do before it sees the IUT: "play", or
	// "skip (--run)" / "skip (level)".
	Plan string `json:"plan"`
	// ProvenBy are the faults of aghcheck peer that fail the scenario
	// (docs/mutation.md): what its pass would have caught.
	ProvenBy []string `json:"proven_by,omitempty"`
}

func newListCmd() *cobra.Command {
	var (
		sf       suiteFlags
		format   string
		baseline string
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the scenarios a run would play (dry run)",
		Long: `list loads the scenarios exactly as run would (built-in suites plus --suite
directories, filtered by --run and --level) and prints what would be played
and what would be skipped, without starting a broker or an IUT. On a
terminal each line is cut to its width; --format json gives every field.
aghcheck show ID prints a scenario's definition.

With --baseline FILE it also checks a baseline's ids against these
scenarios (and the rules, for passive:RULE-ID), as run would before it
starts: an entry that names none is retired (removed or renamed), named
on stderr, and list exits 1; run would report it stale.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("--format %q: want text or json", format)}
			}
			plan, err := sf.preview()
			if err != nil {
				return err
			}
			var retired []string
			if baseline != "" {
				opts := sf.options()
				opts.Baseline, opts.Warn = baseline, func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "aghcheck: warning:", s) }
				if retired, err = opts.CheckBaseline(); err != nil {
					return usage(err)
				}
			}
			// A retired entry fails the check once the list is out.
			done := func(err error) error {
				if err == nil && len(retired) > 0 {
					return &exitError{code: exitInvalid}
				}
				return err
			}
			scs := plan.Scenarios()
			out := cmd.OutOrStdout()
			if format == "json" {
				entries := make([]listEntry, 0, len(scs))
				for _, sc := range scs {
					entries = append(entries, listEntry{ID: sc.ID, Title: sc.Title, Suite: sc.Suite, File: sc.File, Line: sc.Line,
						Level: sc.Level, Claim: sc.Claim, Requirements: sc.Requirements, Requires: sc.Requires, Plan: planned(plan, sc), ProvenBy: plan.ProvenBy(sc)})
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return done(enc.Encode(struct {
					Level     string      `json:"level"`
					Played    int         `json:"played"`
					Scenarios []listEntry `json:"scenarios"`
				}{plan.Level(), plan.Selected(), entries}))
			}
			var table bytes.Buffer
			tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
			// What a reader looks for first comes first: a narrow terminal
			// cuts the end of the line.
			fmt.Fprintln(tw, "ID\tPLAN\tLEVEL\tCLAIM\tSUITE\tREQUIRES\tTITLE")
			for _, sc := range scs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sc.ID, planned(plan, sc), sc.Level, sc.Claim, sc.Suite, requiresText(sc.Requires), sc.Title)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			width := 0
			if f, ok := out.(*os.File); ok && isTerminal(f) {
				if width = terminalColumns(f); width == 0 {
					width = termWidth()
				}
			}
			for _, line := range strings.SplitAfter(table.String(), "\n") {
				fmt.Fprint(out, cut(line, width))
			}
			fmt.Fprintf(out, "\n%s, %d would be played at level %s\n", plural.Count(len(scs), "scenario"), plan.Selected(), plan.Level())
			return done(nil)
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output `FORMAT`: text or json")
	cmd.Flags().StringVar(&baseline, "baseline", "", "also check the ids of the baseline `FILE` (exit 1 when one names no scenario or rule)")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion("text", "json"))
	return cmd
}

// requiresText is a scenario's gates in a table cell.
func requiresText(r scenario.Requires) string {
	var req []string
	if r.Profile != "" {
		req = append(req, "profile "+r.Profile)
	}
	if r.TrustMode != "" {
		req = append(req, "trust "+r.TrustMode)
	}
	if r.JetStream {
		req = append(req, "jetstream")
	}
	if r.JoinGreet {
		req = append(req, "join greet")
	}
	if len(req) == 0 {
		return "-"
	}
	return strings.Join(req, ",")
}

// cut shortens a line (newline kept) to width characters, ending in "…";
// width 0 leaves it whole.
func cut(line string, width int) string {
	body := strings.TrimSuffix(line, "\n")
	if width <= 0 || utf8.RuneCountInString(body) <= width {
		return line
	}
	r := []rune(body)
	return string(r[:width-1]) + "…" + line[len(body):]
}
