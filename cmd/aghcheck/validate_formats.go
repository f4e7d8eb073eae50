package main

import (
	"github.com/aghcheck/aghcheck/internal/olympus"
	"github.com/aghcheck/aghcheck/internal/redkey"
	"github.com/aghcheck/aghcheck/internal/validate"
	"github.com/spf13/pflag"
)

// addFormatFlags registers the flags of the non-AGH format profiles (Olympus,
// RedKey) on fs and returns a function that builds those profiles, in
// detection order, once flags are parsed.
func addFormatFlags(fs *pflag.FlagSet) func() ([]validate.Profile, error) {
	var (
		attachRoot, keyFile, registry string
		roleTopic                     bool
	)
	fs.StringVar(&attachRoot, "attachments-root", "",
		"olympus: check context_attachments[].hash against files under `DIR` (paths may not leave it)")
	fs.StringVar(&keyFile, "hmac-key-file", "",
		"olympus: verify authentication.signature with the HMAC-SHA256 key in `FILE` (default: $"+olympus.KeyEnv+")")
	fs.BoolVar(&roleTopic, "role-topic", false,
		"redkey-wire: judge messages as posted to a role topic (must stay under 1024 bytes)")
	fs.StringVar(&registry, "registry", "",
		"redkey-card: check route_to and output_types against the known slugs in `FILE` (YAML or JSON)")

	return func() ([]validate.Profile, error) {
		key, err := olympus.LoadKey(keyFile)
		if err != nil {
			return nil, err
		}
		oly, err := olympus.New(olympus.Options{AttachmentsRoot: attachRoot, HMACKey: key})
		if err != nil {
			return nil, err
		}
		card := redkey.CardOptions{}
		if registry != "" {
			if card.Registry, err = redkey.LoadRegistry(registry); err != nil {
				return nil, err
			}
		}
		return []validate.Profile{oly, redkey.NewWire(redkey.WireOptions{RoleTopic: roleTopic}), redkey.NewCard(card)}, nil
	}
}
