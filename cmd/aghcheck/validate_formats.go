package main

import (
	"github.com/aghcheck/aghcheck/validate"
	"github.com/spf13/pflag"
)

// addFormatFlags registers the flags of the non-AGH format profiles (Olympus,
// RedKey) on fs and returns a function that builds those profiles once flags
// are parsed. Placeholder until the formats land.
func addFormatFlags(fs *pflag.FlagSet) func() ([]validate.Profile, error) {
	return func() ([]validate.Profile, error) { return nil, nil }
}
