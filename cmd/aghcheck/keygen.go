package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aghcheck/aghcheck/internal/trust"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newKeygenCmd) }

// keyInfo is everything public about a key; keygen prints it, never the seed.
type keyInfo struct {
	Pubkey      string `json:"pubkey"`
	KeyID       string `json:"key_id"`
	Fingerprint string `json:"fingerprint"`
	Handle      string `json:"handle,omitempty"`
	KeyFile     string `json:"key_file,omitempty"`
}

func newKeygenCmd() *cobra.Command {
	var seedHex, nickname, out, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "keygen [--seed HEX] [--nickname N] [--out FILE]",
		Short: "Make an Ed25519 key for the AGH trust profile and print its public identity",
		Long: `keygen makes an Ed25519 key for agh-network.trust.ed25519-jcs/v1 and prints its
public identity: the base64url public key (proof.pubkey), proof.key_id, the
fingerprint, and with --nickname the verified handle nickname@fingerprint.

The private key is written only to the file named by --out (JSON, mode 0600;
format in docs/trust.md) and is never printed. An existing file is kept
unless --force is given. Without --seed the key is random, so --out is then
required: a key nobody can load again would be useless.

--seed HEX derives the key from a fixed 32-byte seed (64 hex digits). It is
meant for test fixtures and reproducible examples: a seed on a command line
is visible to other users of the machine.

Exit status: 0 on success, 2 on a usage or I/O error.`,
		Example: `  aghcheck keygen --nickname patch-worker --out patch-worker.key.json
  aghcheck keygen --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f --nickname patch-worker
  aghcheck keygen --nickname ci-bot --out bot.key.json --format json`,
		Args: nArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			usage := func(err error) error { return &exitError{code: exitUsageErr, err: err} }
			if format != "text" && format != "json" {
				return usage(fmt.Errorf("--format must be text or json, not %q", format))
			}
			if nickname != "" && !trust.ValidNickname(nickname) {
				return usage(fmt.Errorf("--nickname %q does not match [a-z0-9_-]{1,32}", nickname))
			}
			var (
				priv ed25519.PrivateKey
				err  error
			)
			if cmd.Flags().Changed("seed") {
				if priv, err = trust.KeyFromHex(seedHex); err != nil {
					return usage(fmt.Errorf("--seed: %w", err))
				}
			} else {
				if out == "" {
					return usage(errors.New("a random key needs --out FILE, or its private half would be lost (use --seed for a reproducible key)"))
				}
				if _, priv, err = ed25519.GenerateKey(rand.Reader); err != nil {
					return usage(fmt.Errorf("generating a key: %w", err))
				}
			}
			pub := priv.Public().(ed25519.PublicKey)
			info := keyInfo{Pubkey: trust.PublicKeyString(pub), KeyID: trust.KeyID(pub), Fingerprint: trust.Fingerprint(pub)}
			if nickname != "" {
				info.Handle = trust.Handle(nickname, pub)
			}
			if out != "" {
				if err := writeKeyFile(out, priv, nickname, force); err != nil {
					return usage(err)
				}
				info.KeyFile = out
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				b, _ := json.MarshalIndent(info, "", "  ")
				_, err = fmt.Fprintf(w, "%s\n", b)
				return err
			}
			fmt.Fprintf(w, "pubkey:      %s\nkey_id:      %s\nfingerprint: %s\n", info.Pubkey, info.KeyID, info.Fingerprint)
			if info.Handle != "" {
				fmt.Fprintf(w, "handle:      %s\n", info.Handle)
			}
			if info.KeyFile != "" {
				fmt.Fprintf(w, "key file:    %s (private, mode 0600)\n", info.KeyFile)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&seedHex, "seed", "", "derive the key from this 32-byte seed (64 hex digits) instead of at random")
	f.StringVar(&nickname, "nickname", "", "nickname for the handle nickname@fingerprint ([a-z0-9_-]{1,32}); stored in the key file")
	f.StringVarP(&out, "out", "o", "", "write the private key to this file (mode 0600)")
	f.BoolVar(&force, "force", false, "overwrite the --out file if it exists")
	f.StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// writeKeyFile creates the key file with mode 0600 from the start, so the
// key is never readable by others, not even for a moment. Without force it
// refuses an existing file atomically (O_EXCL); with force it writes a
// private temporary file and renames it over the old one.
func writeKeyFile(path string, priv ed25519.PrivateKey, nickname string, force bool) error {
	data, err := trust.MarshalKeyFile(priv, nickname)
	if err != nil {
		return err
	}
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s already exists (use --force to overwrite it)", path)
		}
		if err != nil {
			return fmt.Errorf("writing key file: %w", err)
		}
		if _, err = f.Write(data); err == nil {
			err = f.Close()
		} else {
			f.Close()
		}
		if err != nil {
			os.Remove(path) // a partial key is worse than none
			return fmt.Errorf("writing key file: %w", err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".aghcheck-key-*") // CreateTemp uses mode 0600
	if err != nil {
		return fmt.Errorf("writing key file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing key file: %w", err)
	}
	return nil
}
