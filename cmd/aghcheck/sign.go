package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/agh"
	"io"
	"os"

	"github.com/aghcheck/aghcheck/internal/jcs"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/olympus"
	"github.com/aghcheck/aghcheck/internal/trust"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newSignCmd) }

// signOptions holds every sign flag. Each --profile reads its own flags in
// its own method; adding a profile is a new case in run, its flags in
// newSignCmd, and its method.
type signOptions struct {
	profile string
	compact bool

	// --profile agh
	keyFile, seedHex, nickname string
	// --profile olympus
	hmacKeyFile string
}

func newSignCmd() *cobra.Command {
	o := &signOptions{}
	cmd := &cobra.Command{
		Use:   "sign (--key FILE | --seed HEX --nickname N | --profile olympus [--hmac-key-file FILE]) DOCUMENT.json",
		Short: "Sign an AGH Network envelope (Ed25519 + JCS) or an Olympus envelope (HMAC-SHA256)",
		Long: `sign signs one AGH Network envelope under agh-network.trust.ed25519-jcs/v1 and
prints the signed envelope. It sets from to the verified handle
nickname@fingerprint (and body.peer_card.peer_id on greet and on whois
responses, which must equal from), replaces proof with a fresh proof
{profile, alg, key_id, pubkey, sig}, and computes the Ed25519 signature last,
over the RFC 8785 canonical bytes of the whole envelope without proof.sig.

The key comes from a key file written by 'aghcheck keygen --out' (or a file
holding just the 64-hex-digit seed; --key - reads it from standard input),
or from --seed for fixtures (a flag value shows in ps). The nickname comes
from --nickname, else from the key file.

Nothing else is changed or checked (except that a note on stderr says when the
new from makes a direct room's direct_id stale): run 'aghcheck validate' on the output to
check the envelope itself. The output is indented JSON with members in
canonical order; --compact prints the canonical bytes themselves. Either way
a trailing newline follows. ENVELOPE.json may be - for standard input.

Exit status: 0 when the signed envelope was printed, 2 on a usage or I/O
error or an input that is not a JSON object with a canonical form.`,
		Example: `  aghcheck keygen --nickname patch-worker --out patch-worker.key.json
  aghcheck sign --key patch-worker.key.json greet.json > greet.signed.json
  aghcheck sign --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f --nickname patch-worker --compact say.json
  cat say.json | aghcheck sign --key patch-worker.key.json - | aghcheck validate -
  aghcheck sign --profile olympus --hmac-key-file olympus.key assign.json`,
		Args: nArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.profile, "profile", "agh", "signing profile: agh (Ed25519 + JCS trust profile) or olympus (HMAC-SHA256 over the canonical envelope content)")
	f.BoolVar(&o.compact, "compact", false, "print the canonical (JCS) bytes instead of indented JSON")
	f.StringVar(&o.keyFile, "key", "", "agh: key `FILE` from 'aghcheck keygen --out', or holding the 64-hex-digit seed; - reads it from standard input")
	f.StringVar(&o.seedHex, "seed", "", "agh: 32-byte Ed25519 seed as 64 hex digits, for fixtures only (a flag value shows in ps: use --key for a real key)")
	f.StringVar(&o.nickname, "nickname", "", "agh: nickname of the handle nickname@fingerprint (default: the key file's)")
	f.StringVar(&o.hmacKeyFile, "hmac-key-file", "", "olympus: HMAC-SHA256 key in `FILE` (default: $"+olympus.KeyEnv+"; never a flag value)")
	_ = cmd.RegisterFlagCompletionFunc("profile", cobra.FixedCompletions([]string{"agh", "olympus"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *signOptions) run(cmd *cobra.Command, path string) error {
	var sign func(env map[string]any) error
	switch o.profile {
	case "agh":
		if o.keyFile == "-" && path == "-" {
			return &exitError{code: exitUsageErr, err: errors.New("--key - and DOCUMENT - both read standard input; give one of them as a file")}
		}
		priv, nickname, err := o.aghKey(cmd.InOrStdin())
		if err != nil {
			return &exitError{code: exitUsageErr, err: err}
		}
		sign = func(env map[string]any) error {
			if err := trust.Sign(env, priv, nickname); err != nil {
				return err
			}
			warnStaleDirectID(cmd, env)
			return nil
		}
	case "olympus":
		key, err := olympus.LoadKey(o.hmacKeyFile)
		if err == nil && key == nil {
			err = fmt.Errorf("no HMAC key: give --hmac-key-file FILE or set $%s", olympus.KeyEnv)
		}
		if err != nil {
			return &exitError{code: exitUsageErr, err: err}
		}
		sign = func(doc map[string]any) error { return olympus.Sign(doc, key) }
	default:
		return &exitError{code: exitUsageErr, err: fmt.Errorf("--profile %q is not supported (supported: agh, olympus)", o.profile)}
	}

	raw, err := readArgFile(cmd, path)
	if err != nil {
		return &exitError{code: exitUsageErr, err: err}
	}
	env, err := decodeStrictObject(raw)
	if err == nil {
		err = sign(env)
	}
	var out []byte
	if err == nil {
		out, err = renderCanonicalJSON(env, o.compact)
	}
	if err != nil {
		return &exitError{code: exitUsageErr, err: fmt.Errorf("sign %s: %w", argFileName(path), err)}
	}
	_, err = cmd.OutOrStdout().Write(out)
	return err
}

// aghKey resolves the Ed25519 key and nickname from --key or --seed.
func (o *signOptions) aghKey(stdin io.Reader) (ed25519.PrivateKey, string, error) {
	var (
		priv     ed25519.PrivateKey
		fileNick string
		err      error
	)
	switch {
	case o.keyFile != "" && o.seedHex != "":
		return nil, "", errors.New("--key and --seed are alternatives; give one")
	case o.keyFile != "":
		var data []byte
		var rerr error
		if o.keyFile == "-" {
			data, rerr = io.ReadAll(io.LimitReader(stdin, 1<<20))
		} else {
			data, rerr = os.ReadFile(o.keyFile)
		}
		if rerr != nil {
			var pe *os.PathError
			if errors.As(rerr, &pe) {
				rerr = pe.Err
			}
			return nil, "", fmt.Errorf("reading key %s: %w", o.keyFile, rerr)
		}
		if priv, fileNick, err = trust.ParseKeyFile(data); err != nil {
			return nil, "", fmt.Errorf("%s: %w", o.keyFile, err)
		}
	case o.seedHex != "":
		if priv, err = trust.KeyFromHex(o.seedHex); err != nil {
			return nil, "", fmt.Errorf("--seed: %w", err)
		}
	default:
		return nil, "", errors.New("no signing key: give --key FILE or --seed HEX")
	}
	nickname := o.nickname
	if nickname == "" {
		nickname = fileNick
	}
	if nickname == "" {
		return nil, "", errors.New("no nickname: give --nickname N (the key has none)")
	}
	if !trust.ValidNickname(nickname) {
		return nil, "", fmt.Errorf("--nickname %q does not match [a-z0-9_-]{1,32}", nickname)
	}
	return priv, nickname, nil
}

// decodeStrictObject decodes strictly: signing a document whose duplicate
// members different receivers read differently would sign an ambiguity.
func decodeStrictObject(raw []byte) (map[string]any, error) {
	v, findings, ok := jsonx.Decode(raw)
	if len(findings) > 0 {
		return nil, fmt.Errorf("input is not I-JSON: %s", findings[0])
	}
	if !ok {
		return nil, errors.New("input is not JSON")
	}
	env, isObj := v.(map[string]any)
	if !isObj {
		return nil, errors.New("input is not a JSON object")
	}
	return env, nil
}

// renderCanonicalJSON prints v in canonical member order: compact is the JCS bytes
// themselves, otherwise the same indented. Both end with a newline.
func renderCanonicalJSON(v any, compact bool) ([]byte, error) {
	c, err := jcs.Canonicalize(v)
	if err != nil {
		return nil, err
	}
	if compact {
		return append(c, '\n'), nil
	}
	var b bytes.Buffer
	if err := json.Indent(&b, c, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// warnStaleDirectID says so when signing changed from under a direct-room
// envelope: the room is derived from the two peers, so the envelope's
// direct_id no longer names it and validate will report it.
func warnStaleDirectID(cmd *cobra.Command, env map[string]any) {
	if env["surface"] != "direct" {
		return
	}
	ws, _ := env["workspace_id"].(string)
	ch, _ := env["channel"].(string)
	from, _ := env["from"].(string)
	to, _ := env["to"].(string)
	want, err := agh.DirectID(ws, ch, from, to)
	if err != nil || env["direct_id"] == want {
		return
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "aghcheck: note: from is now %s, so this direct room's id is %s (the envelope says %v); set direct_id and sign again\n", from, want, env["direct_id"])
}
