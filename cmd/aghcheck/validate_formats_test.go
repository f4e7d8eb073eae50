package main

import (
	"fmt"
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
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"missing-attachments-root", []string{"--attachments-root", filepath.Join(fix, "no-such-dir")}},
		{"missing-hmac-key-file", []string{"--hmac-key-file", filepath.Join(fix, "no-such.key")}},
		{"bad-registry", []string{"--registry", bad}},
		{"plain-hmac-key", []string{"--hmac-key", "secret"}}, // keys never come from a plain flag value
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := build(tc.args...); err == nil {
				t.Errorf("%v: want an error", tc.args)
			} else if strings.Contains(err.Error(), "\n") {
				t.Errorf("%v: error is not one line: %q", tc.args, err)
			}
		})
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
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			v, err := validate.New(validate.Options{Profiles: ps, Strict: strict})
			if err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(fix, "*", "*", "*.json"))
			n := 0
			for _, file := range files {
				dir := filepath.Base(filepath.Dir(file))
				format := filepath.Base(filepath.Dir(filepath.Dir(file)))
				if (format != "olympus" && format != "redkey") || (dir != "valid" && dir != "invalid") {
					continue
				}
				n++
				name := filepath.Base(file)
				t.Run(format+"/"+dir+"/"+name, func(t *testing.T) {
					raw, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					d := v.CheckDocument(raw, 1)
					wantProfile := "olympus"
					switch {
					case strings.HasPrefix(name, "RKW-"), strings.HasPrefix(name, "wire-"):
						wantProfile = "redkey-wire"
					case strings.HasPrefix(name, "RKC-"), strings.HasPrefix(name, "card-"):
						wantProfile = "redkey-card"
					}
					if d.Profile != wantProfile {
						t.Errorf("profile %q, want %q", d.Profile, wantProfile)
					}
					wantValid := dir == "valid" || (!strict && strings.HasPrefix(name, "RKW-PAYLOAD-MEMBER__"))
					if d.Valid != wantValid {
						t.Errorf("valid=%v, findings %v", d.Valid, d.Findings)
					}
				})
			}
			if n < 100 {
				t.Fatalf("only %d fixtures", n)
			}
		})
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
