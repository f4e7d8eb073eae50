package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/olympus"
)

// TestSignOlympusRoundTrip signs an Olympus envelope through the CLI and
// checks the signature with the Olympus profile itself, so the command and
// the validator agree on the canonical content.
func TestSignOlympusRoundTrip(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "olympus.key")
	if err := os.WriteFile(keyFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../fixtures/olympus/valid/result-to-tech-lead.json")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, string(doc), "sign", "--profile", "olympus", "--hmac-key-file", keyFile, "-")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	v, findings, ok := jsonx.Decode([]byte(out))
	if !ok || len(findings) > 0 {
		t.Fatalf("signed output does not decode: %v", findings)
	}
	signed := v.(map[string]any)
	sig, _ := signed["authentication"].(map[string]any)["signature"].(string)
	want, err := olympus.Signature(signed, []byte("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	if sig == "" || sig != want {
		t.Fatalf("signature %q, want %q", sig, want)
	}

	p, err := olympus.New(olympus.Options{HMACKey: []byte("s3cret"), AttachmentsRoot: "../../fixtures/olympus/attachments"})
	if err != nil {
		t.Fatal(err)
	}
	if fs := p.Check([]byte(out), v); len(fs) != 0 {
		t.Fatalf("signed envelope has findings: %v", fs)
	}
	wrong, _ := olympus.New(olympus.Options{HMACKey: []byte("other")})
	if fs := wrong.Check([]byte(out), v); len(fs) == 0 {
		t.Fatal("a different key still verifies the signature")
	}
}

func TestSignOlympusNeedsKey(t *testing.T) {
	t.Setenv(olympus.KeyEnv, "")
	code, _, errOut := runCLI(t, "{}", "sign", "--profile", "olympus", "-")
	if code != exitUsageErr || !strings.Contains(errOut, "no HMAC key") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// Signing a direct-room envelope changes from, so its direct_id no longer
// names the room: sign says so (and how to fix it) instead of leaving the
// user to discover ENV-DIRECT-ID-DERIVATION later.
func TestSignWarnsOfStaleDirectID(t *testing.T) {
	env := `{"protocol":"agh-network/v0","id":"m1","workspace_id":"ws_alpha","kind":"say","channel":"builders",` +
		`"surface":"direct","direct_id":"direct_a610973e3c0d915853982f4bfe1534e8","from":"ops-coordinator.session-42",` +
		`"to":"patch-worker.session-19","ts":1776366140,"body":{"text":"hi"},"proof":null}`
	seed := strings.Repeat("00", 32)
	code, out, errOut := runCLI(t, env, "sign", "--seed", seed, "--nickname", "ops", "-")
	if code != exitOK || out == "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "direct room's id is direct_") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("stderr %q, want one note about the direct room id", errOut)
	}
	code, _, errOut = runCLI(t, strings.Replace(env, `"surface":"direct","direct_id":"direct_a610973e3c0d915853982f4bfe1534e8"`, `"surface":"thread","thread_id":"thread_x"`, 1),
		"sign", "--seed", seed, "--nickname", "ops", "-")
	if code != exitOK || errOut != "" {
		t.Fatalf("thread envelope: exit %d, stderr %q", code, errOut)
	}
}
