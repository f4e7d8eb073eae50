package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// subcommands is filled by each command file's init so that files stay
// independent of one another.
var subcommands []func() *cobra.Command

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "aghcheck",
		Short: "Conformance checker for AGH Network v0 agent messaging",
		Long: `aghcheck validates AGH Network v0 envelopes offline (schema plus every semantic
rule, trust signatures included) and certifies live peers over NATS by playing
conformance scenarios at them. It also validates Olympus agent context envelopes
and RedKey Agent Wire messages and Agent Cards.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// -v is --verbose under run and peer; at the top it would mean
	// --version, so --version has no shorthand (one letter, one meaning).
	root.Flags().Bool("version", false, "print the version and exit")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == root && strings.Contains(err.Error(), "'v' in -v") {
			err = fmt.Errorf("%w (--version prints the version; -v is --verbose of run, peer and fuzz)", err)
		} else {
			err = fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
		}
		return &exitError{code: exitUsageErr, err: err}
	})
	for _, mk := range subcommands {
		root.AddCommand(mk())
	}
	root.AddCommand(newVersionCmd())
	return root
}

// newVersionCmd is "aghcheck version": what --version prints, for those
// who type it as a command.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print aghcheck's version (the same as --version)",
		Args:  nArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "aghcheck version %s\n", cmd.Root().Version)
			return err
		},
	}
}
