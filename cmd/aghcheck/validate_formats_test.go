package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestFormatFlags(t *testing.T) {
	fix := filepath.Join("..", "..", "fixtures")
	build := func(args ...string) ([]string, error) {
		fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
		mk := addFormatFlags(fs)
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		ps, err := mk()
		var names []string
		for _, p := range ps {
			names = append(names, p.Name())
		}
		return names, err
	}
	t.Setenv("AGHCHECK_OLYMPUS_HMAC_KEY", "")
	names, err := build("--attachments-root", filepath.Join(fix, "olympus", "attachments"),
		"--hmac-key-file", filepath.Join(fix, "olympus", "hmac.key"),
		"--registry", filepath.Join(fix, "redkey", "registry.yaml"), "--role-topic")
	if err != nil || strings.Join(names, ",") != "olympus,redkey-wire,redkey-card" {
		t.Fatalf("profiles %v, %v", names, err)
	}
	if names, err := build(); err != nil || len(names) != 3 {
		t.Fatalf("no flags: %v, %v", names, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("agent: [x]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--attachments-root", filepath.Join(fix, "no-such-dir")},
		{"--hmac-key-file", filepath.Join(fix, "no-such.key")},
		{"--registry", bad},
		{"--hmac-key", "secret"}, // keys never come from a plain flag value
	} {
		if _, err := build(args...); err == nil {
			t.Errorf("%v: want an error", args)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error is not one line: %q", args, err)
		}
	}
}
