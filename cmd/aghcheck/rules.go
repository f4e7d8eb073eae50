package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/coverage"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/reporter"
)

func init() { subcommands = append(subcommands, newRulesCmd) }

func newRulesCmd() *cobra.Command {
	var format, profile string
	var cover bool
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print the catalogue of every rule aghcheck checks",
		Long: `rules prints the one catalogue of rules that validate, the live harness and
the reports all use: each rule's stable id, profile (input, agh, agh-trust,
olympus, redkey-...), severity (error = a MUST, warning = a SHOULD), the
requirement in one sentence, where it is stated, and the receipt reason_code a
receiver uses when it refuses a message for breaking it.

--format markdown produces docs/rules.md (make docs regenerates it);
--format json is for tools.

--coverage prints the clause inventory instead: every clause of the AGH
pages with how aghcheck judges it (checked offline by validate, played live
by which scenarios, both, not judgeable from outside and why, or open: not
judged yet). docs/coverage.md is its markdown form.`,
		Example: `  aghcheck rules
  aghcheck rules --profile agh
  aghcheck rules --format json | jq '.[] | select(.severity == "warning") | .id'
  aghcheck rules --format markdown > docs/rules.md
  aghcheck rules --coverage
  aghcheck rules --coverage --format json | jq '.[] | select(.status == "open") | .id'`,
		Args: nArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := reporter.Rules.Get(format)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("--format: %w", err)}
			}
			if cover {
				if profile != "" {
					return &exitError{code: exitUsageErr, err: fmt.Errorf("--coverage covers every AGH clause; it takes no --profile")}
				}
				t, err := coverage.Build()
				if err != nil {
					return err
				}
				return coverage.Write(cmd.OutOrStdout(), t, f.Name)
			}
			list, err := selectRules(profile)
			if err != nil {
				return err
			}
			w := f.New(cmd.OutOrStdout(), reporter.Options{})
			for _, r := range list {
				if err := w.Item(r); err != nil {
					return err
				}
			}
			return w.Finish(list)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output `FORMAT`: "+reporter.Rules.List())
	cmd.Flags().BoolVar(&cover, "coverage", false, "print the clause inventory: how each AGH clause is judged")
	cmd.Flags().StringVar(&profile, "profile", "", "only the rules of this profile (e.g. agh, agh-trust, input)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reporter.Rules.Names(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return rules.Profiles(catalogue.All()), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func selectRules(profile string) ([]*rules.Rule, error) {
	all := catalogue.All()
	if profile == "" {
		return all, nil
	}
	var out []*rules.Rule
	for _, r := range all {
		if r.Profile == profile {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("no rules in profile %q (profiles: %s)", profile, strings.Join(rules.Profiles(all), ", "))}
	}
	return out, nil
}
