package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aghcheck/aghcheck/internal/jcs"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newCanonicalizeCmd) }

func newCanonicalizeCmd() *cobra.Command {
	var newline bool
	cmd := &cobra.Command{
		Use:   "canonicalize FILE",
		Short: "Print the RFC 8785 (JCS) canonical bytes of a JSON document",
		Long: `canonicalize prints the RFC 8785 JSON Canonicalization Scheme form of one JSON
document: members sorted by UTF-16 code units, no whitespace, numbers as
ECMAScript prints them, minimal string escaping. These are the bytes the AGH
trust profile signs (after removing proof.sig), so comparing them with another
implementation's output is the quickest way to find a signing mismatch.

The input is read strictly: duplicate member names, invalid UTF-8 and numbers
outside the IEEE 754 double range have no canonical form and are refused.
FILE may be - for standard input. Nothing follows the last byte unless
--newline is given, so the output can be hashed as is.

Exit status: 0 when the canonical form was printed, 2 when the input could
not be read or has no canonical form.`,
		Example: `  aghcheck canonicalize envelope.json
  aghcheck canonicalize envelope.json | sha256sum
  echo '{"b":1,"a":[1.50,1e3]}' | aghcheck canonicalize --newline -`,
		Args: nArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := readArgFile(cmd, args[0])
			if err != nil {
				return &exitError{code: exitUsageErr, err: err}
			}
			out, err := jcs.Transform(raw)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("canonicalize %s: %w", argFileName(args[0]), err)}
			}
			if newline {
				out = append(out, '\n')
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	cmd.Flags().BoolVar(&newline, "newline", false, "end the output with a newline")
	return cmd
}

// readArgFile reads a file argument, with "-" meaning standard input.
func readArgFile(cmd *cobra.Command, path string) ([]byte, error) {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		b, err = io.ReadAll(cmd.InOrStdin())
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		// os errors name the path again; one mention is enough.
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("reading %s: %w", argFileName(path), err)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("reading %s: empty input", argFileName(path))
	}
	return b, nil
}

func argFileName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// nArgs is cobra.ExactArgs with our usage exit code and one clear line.
func nArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return &exitError{code: exitUsageErr, err: fmt.Errorf("%s takes %d argument(s), got %d (usage: %s)", cmd.Name(), n, len(args), cmd.UseLine())}
		}
		return nil
	}
}
