package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/validate"
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

// TestFormatsThroughValidator runs every fixture through the real validator
// with the profiles the flags build: detection picks the right profile, and
// the verdict follows the fixture's directory.
func TestFormatsThroughValidator(t *testing.T) {
	fix := filepath.Join("..", "..", "fixtures")
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	mk := addFormatFlags(fs)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fs.Parse([]string{"--attachments-root", filepath.Join(fix, "olympus", "attachments"),
		"--hmac-key-file", filepath.Join(fix, "olympus", "hmac.key"),
		"--registry", filepath.Join(fix, "redkey", "registry.yaml")}))
	ps, err := mk()
	must(err)
	for _, strict := range []bool{false, true} {
		v, err := validate.New(validate.Options{Profiles: ps, Strict: strict})
		must(err)
		files, _ := filepath.Glob(filepath.Join(fix, "*", "*", "*.json"))
		n := 0
		for _, file := range files {
			dir := filepath.Base(filepath.Dir(file))
			format := filepath.Base(filepath.Dir(filepath.Dir(file)))
			if (format != "olympus" && format != "redkey") || (dir != "valid" && dir != "invalid") {
				continue
			}
			n++
			raw, err := os.ReadFile(file)
			must(err)
			d := v.CheckDocument(raw, 1)
			name := filepath.Base(file)
			wantProfile := "olympus"
			switch {
			case strings.HasPrefix(name, "RKW-"), strings.HasPrefix(name, "wire-"):
				wantProfile = "redkey-wire"
			case strings.HasPrefix(name, "RKC-"), strings.HasPrefix(name, "card-"):
				wantProfile = "redkey-card"
			}
			if d.Profile != wantProfile {
				t.Errorf("%s: profile %q, want %q", name, d.Profile, wantProfile)
			}
			wantValid := dir == "valid" || (!strict && strings.HasPrefix(name, "RKW-PAYLOAD-MEMBER__"))
			if d.Valid != wantValid {
				t.Errorf("%s (strict=%v): valid=%v, findings %v", name, strict, d.Valid, d.Findings)
			}
		}
		if n < 100 {
			t.Fatalf("only %d fixtures", n)
		}
	}
	// Forcing the wrong profile judges the document by that profile's rules.
	v, err := validate.New(validate.Options{Profiles: ps, Force: "redkey-card"})
	must(err)
	raw, err := os.ReadFile(filepath.Join(fix, "redkey", "valid", "wire-claim.json"))
	must(err)
	if d := v.CheckDocument(raw, 1); d.Valid || d.Profile != "redkey-card" {
		t.Errorf("forced redkey-card on a wire message: %+v", d)
	}
}
