package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Flags whose value no run can use are usage errors that give the valid
// range, checked before anything starts.

// positiveDurations refuses zero and negative values of the named duration
// flags.
func positiveDurations(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		d, err := cmd.Flags().GetDuration(name)
		if err != nil {
			return err
		}
		if d <= 0 {
			return &exitError{code: exitUsageErr, err: fmt.Errorf("--%s %s: want a positive duration (default %s)", name, d, cmd.Flags().Lookup(name).DefValue)}
		}
	}
	return nil
}

// countFlag refuses a negative count; zero stands for what zero says.
func countFlag(name string, n int, zero string) error {
	if n < 0 {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--%s %d: want 1 or more, or 0 for %s", name, n, zero)}
	}
	return nil
}
