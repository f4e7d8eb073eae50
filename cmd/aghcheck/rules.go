package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	_ "github.com/aghcheck/aghcheck/agh" // registers the agh rules
	"github.com/aghcheck/aghcheck/reporter"
	"github.com/aghcheck/aghcheck/rules"
)

func init() { subcommands = append(subcommands, newRulesCmd) }

func newRulesCmd() *cobra.Command {
	var format, profile string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Print the catalogue of every rule aghcheck checks",
		Long: `rules prints the one catalogue of rules that validate, the live harness and
the reports all use: each rule's stable id, profile (input, agh, agh-trust,
olympus, redkey-...), severity (error = a MUST, warning = a SHOULD), the
requirement in one sentence, where it is stated, and the receipt reason_code a
receiver uses when it refuses a message for breaking it.

--format markdown produces docs/rules.md (make docs regenerates it);
--format json is for tools.`,
		Example: `  aghcheck rules
  aghcheck rules --profile agh
  aghcheck rules --format json | jq '.[] | select(.severity == "warning") | .id'
  aghcheck rules --format markdown > docs/rules.md`,
		Args: nArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := selectRules(profile)
			if err != nil {
				return err
			}
			f, err := reporter.Rules.Get(format)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("--format: %w", err)}
			}
			return reporter.WriteAll(f.New(cmd.OutOrStdout(), reporter.Options{}), list, list)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output `FORMAT`: "+reporter.Rules.List())
	cmd.Flags().StringVar(&profile, "profile", "", "only the rules of this profile (e.g. agh, agh-trust, input)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(reporter.Rules.Names(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return reporter.RuleProfiles(rules.All()), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func selectRules(profile string) ([]*rules.Rule, error) {
	all := rules.All()
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
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("no rules in profile %q (profiles: %s)", profile, strings.Join(reporter.RuleProfiles(all), ", "))}
	}
	return out, nil
}
