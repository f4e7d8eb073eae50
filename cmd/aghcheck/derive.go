package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/trust"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newDeriveCmd) }

func newDeriveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "derive",
		Short: "Compute AGH Network v0 derived values: route tokens, direct-room ids, digests, subjects",
		Long: `derive computes the values AGH Network v0 peers derive from others, exactly as
aghcheck's rule engine does when it checks an envelope. Use it to find out what
a value should have been when validate reports a mismatch, or to build
fixtures by hand.

  route-token PEER                 NATS route token of a peer
  direct-id WS CHANNEL PEER PEER   direct-room id of two peers in a channel
  digest FILE                      canonical digest of a capability document
  subject FILE                     NATS subject an envelope is published on
  signing-input FILE               the bytes a trust proof signs (JCS, without proof.sig)

docs/protocol.md spells out each derivation, with these commands as its
test vectors.`,
		Example: `  aghcheck derive route-token reviewer.sess-xyz
  aghcheck derive direct-id ws_alpha builders ops-coordinator.session-42 patch-worker.session-19
  aghcheck derive digest capability.json
  aghcheck derive subject envelope.json
  aghcheck derive signing-input --sha256 signed.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("unknown derivation %q (see aghcheck derive --help)", args[0])}
			}
			return &exitError{code: exitUsageErr, err: errors.New("derive needs a derivation: route-token, direct-id, digest, subject or signing-input")}
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(newDeriveRouteTokenCmd(), newDeriveDirectIDCmd(), newDeriveDigestCmd(), newDeriveSubjectCmd(), newDeriveSigningInputCmd())
	return cmd
}

func newDeriveRouteTokenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "route-token PEER",
		Short: "Print the NATS route token of a peer",
		Long: `route-token prints the token that names a peer in its direct NATS subject
(agh.network.v0.<workspace>.<channel>.peer.<token>). For a verified handle
(nickname@fingerprint) it is the fingerprint; for any other peer id it is the
first 32 lowercase hex characters of SHA-256 of the id's UTF-8 bytes.`,
		Example: `  aghcheck derive route-token reviewer.sess-xyz
  # 790dd5515558f7784877abcbca51c5ba
  aghcheck derive route-token patch-worker@56475aa75463474c0285df5dbf2bcab7`,
		Args: nArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkPeerArg(args[0]); err != nil {
				return err
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), agh.RouteToken(args[0]))
			return err
		},
	}
}

func newDeriveDirectIDCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "direct-id WORKSPACE CHANNEL PEER_A PEER_B",
		Short: "Print the direct-room id of two peers in a workspace channel",
		Long: `direct-id prints the direct_id of the restricted two-party room of two
different peers in one workspace channel: "direct_" followed by the first 32
hex characters of SHA-256 over the domain "agh-network/direct-room/v0", the
workspace id, the channel and the two peer ids sorted byte-wise, separated by
NUL bytes. The order of PEER_A and PEER_B does not matter.`,
		Example: `  aghcheck derive direct-id ws_alpha builders ops-coordinator.session-42 patch-worker.session-19
  # direct_a610973e3c0d915853982f4bfe1534e8`,
		Args: nArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, ch, a, b := args[0], args[1], args[2], args[3]
			if err := checkWorkspaceChannel(ws, ch); err != nil {
				return err
			}
			for _, p := range []string{a, b} {
				if err := checkPeerArg(p); err != nil {
					return err
				}
			}
			id, err := agh.DirectID(ws, ch, a, b)
			if err != nil {
				return &exitError{code: exitUsageErr, err: err}
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), id)
			return err
		},
	}
}

func newDeriveDigestCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "digest FILE",
		Short: "Print the canonical digest of a capability document",
		Long: `digest prints the canonical digest ("sha256:" + 64 hex digits) of a capability
document. FILE holds either the bare capability object or a whole capability
envelope (the document is then body.capability); - reads standard input.

The digest covers id, summary, outcome, version, context_needed,
artifacts_expected, execution_outline, constraints, examples and requirements
in that order, with strings trimmed, empty values left out and requirements
sorted; other members (digest itself, workspace_id, ...) are not covered.

Exit status: 0 when the digest was printed and the document's own digest (if
any) matches it, 1 when the document carries a different digest, 2 when the
input cannot be read or is not a capability document.`,
		Example: `  aghcheck derive digest capability.json
  aghcheck derive digest fixtures/agh/seed/001-capability.json   # exits 1: erratum 2
  jq .body.capability envelope.json | aghcheck derive digest -`,
		Args: nArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := readObjectArg(cmd, args[0])
			if err != nil {
				return err
			}
			capDoc := doc
			if body, ok := doc["body"].(map[string]any); ok {
				if c, ok := body["capability"].(map[string]any); ok {
					capDoc = c
				} else {
					return &exitError{code: exitUsageErr, err: fmt.Errorf("%s: an envelope without body.capability", argFileName(args[0]))}
				}
			}
			digest, err := agh.CapabilityDigest(capDoc)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("%s: %w", argFileName(args[0]), err)}
			}
			if _, err := fmt.Fprintln(cmd.OutOrStdout(), digest); err != nil {
				return err
			}
			if have, ok := capDoc["digest"].(string); ok && have != digest {
				return &exitError{code: exitInvalid, err: fmt.Errorf("%s carries digest %s, the canonical digest is %s", argFileName(args[0]), have, digest)}
			}
			return nil
		},
	}
}

func newDeriveSubjectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "subject FILE",
		Short: "Print the NATS subject an envelope must be published on",
		Long: `subject prints the NATS subject of an envelope: the channel broadcast subject
agh.network.v0.<workspace_id>.<channel>.broadcast when to is null or absent,
else the peer subject agh.network.v0.<workspace_id>.<channel>.peer.<route
token of to>. FILE may be - for standard input. The envelope is not otherwise
validated (use aghcheck validate for that).`,
		Example: `  aghcheck derive subject envelope.json
  # agh.network.v0.ws_alpha.builders.peer.c1cc4fe4b7b176627e58384f1a402819`,
		Args: nArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := readObjectArg(cmd, args[0])
			if err != nil {
				return err
			}
			subject, err := agh.Subject(env)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("%s: %w", argFileName(args[0]), err)}
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), subject)
			return err
		},
	}
}

func newDeriveSigningInputCmd() *cobra.Command {
	var digest bool
	cmd := &cobra.Command{
		Use:   "signing-input FILE",
		Short: "Print the bytes the trust proof of an envelope signs",
		Long: `signing-input prints the bytes an agh-network.trust.ed25519-jcs/v1 proof
signs: the RFC 8785 (JCS) canonical form of the whole envelope with only
proof.sig removed (members present as null stay), followed by a newline.
With --sha256 it prints "sha256:" and the hex SHA-256 of those bytes
instead, which is the quickest comparison with another implementation.
FILE may be - for standard input. The proof is not verified (use aghcheck
validate for that).`,
		Example: `  aghcheck derive signing-input fixtures/trust/valid/greet-signed.json
  aghcheck derive signing-input --sha256 fixtures/trust/valid/greet-signed.json`,
		Args: nArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := readObjectArg(cmd, args[0])
			if err != nil {
				return err
			}
			in, err := trust.SigningInput(env)
			if err != nil {
				return &exitError{code: exitUsageErr, err: fmt.Errorf("%s: %w", argFileName(args[0]), err)}
			}
			if digest {
				sum := sha256.Sum256(in)
				_, err = fmt.Fprintln(cmd.OutOrStdout(), "sha256:"+hex.EncodeToString(sum[:]))
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", in)
			return err
		},
	}
	cmd.Flags().BoolVar(&digest, "sha256", false, "print the SHA-256 of the bytes instead of the bytes")
	return cmd
}

func readObjectArg(cmd *cobra.Command, path string) (map[string]any, error) {
	raw, err := readArgFile(cmd, path)
	if err != nil {
		return nil, &exitError{code: exitUsageErr, err: err}
	}
	doc, err := decodeStrictObject(raw)
	if err != nil {
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("%s: %w", argFileName(path), err)}
	}
	return doc, nil
}

func checkPeerArg(p string) error {
	if !agh.IsPeer(p) {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("%q is not a Peer ID ([a-z0-9][a-z0-9._-]{0,127}) or nickname@fingerprint handle", p)}
	}
	return nil
}

func checkWorkspaceChannel(ws, ch string) error {
	if !agh.ValidWorkspaceID(ws) {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("workspace id %q must be non-empty without '.', '*', '>' or whitespace", ws)}
	}
	if !agh.ValidChannel(ch) {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("channel %q does not match [a-z0-9][a-z0-9_-]{0,63}", ch)}
	}
	return nil
}
