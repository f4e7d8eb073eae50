package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"github.com/aghcheck/aghcheck/internal/jsontest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/trust"
)

const (
	trustFixtures = "../../fixtures/trust"
	goldenSeedHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(trustFixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestKeygenGolden(t *testing.T) {
	code, out, errs := runCLI(t, "", "keygen", "--seed", goldenSeedHex, "--nickname", "patch-worker")
	want := `pubkey:      A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg
key_id:      sha256:56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c
fingerprint: 56475aa75463474c0285df5dbf2bcab7
handle:      patch-worker@56475aa75463474c0285df5dbf2bcab7
`
	if code != 0 || out != want || errs != "" {
		t.Fatalf("code %d\n%s\nstderr %q", code, out, errs)
	}
	code, out, _ = runCLI(t, "", "keygen", "--seed", goldenSeedHex, "--format", "json")
	wantJSON := `{
  "pubkey": "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg",
  "key_id": "sha256:56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c",
  "fingerprint": "56475aa75463474c0285df5dbf2bcab7"
}
`
	if code != 0 || out != wantJSON {
		t.Fatalf("json: code %d\n%s", code, out)
	}
}

func TestKeygenWritesPrivateKeyOnlyToFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.json")
	code, out, errs := runCLI(t, "", "keygen", "--seed", goldenSeedHex, "--nickname", "patch-worker", "--out", path)
	if code != 0 || errs != "" {
		t.Fatalf("code %d: %s", code, errs)
	}
	if strings.Contains(out, goldenSeedHex) {
		t.Error("stdout contains the private seed")
	}
	if !strings.Contains(out, "key file:    "+path) {
		t.Errorf("stdout does not name the key file:\n%s", out)
	}
	got, _ := os.ReadFile(path)
	if want := readFixture(t, "keys/patch-worker.key.json"); string(got) != want {
		t.Errorf("key file:\n%s\nwant\n%s", got, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}

	// An existing file is kept unless --force.
	other := strings.Repeat("2a", 32)
	code, out, errs = runCLI(t, "", "keygen", "--seed", other, "--out", path)
	if code != exitUsageErr || out != "" || !strings.Contains(errs, "already exists") || strings.Count(errs, "\n") != 1 {
		t.Errorf("overwrite without --force: code %d out %q err %q", code, out, errs)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, got) {
		t.Error("the existing key file was changed")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs = runCLI(t, "", "keygen", "--seed", other, "--out", path, "--force"); code != 0 {
		t.Fatalf("--force: %s", errs)
	}
	after, _ := os.ReadFile(path)
	if bytes.Equal(after, got) || !strings.Contains(string(after), other) {
		t.Error("--force did not replace the key")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after --force %v", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".aghcheck-key-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestKeygenRandom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	code, out, errs := runCLI(t, "", "keygen", "--out", path, "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var info keyInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	priv, nick, err := trust.ParseKeyFile(data)
	if err != nil || nick != "" {
		t.Fatalf("%v %q", err, nick)
	}
	var kf trust.KeyFile
	_ = json.Unmarshal(data, &kf)
	if strings.Contains(out, kf.Seed) {
		t.Error("stdout contains the private seed")
	}
	pub := priv.Public().(ed25519.PublicKey)
	if info.Pubkey != trust.PublicKeyString(pub) || info.KeyID != trust.KeyID(pub) || info.KeyFile != path || info.Handle != "" {
		t.Errorf("printed %+v does not describe the written key", info)
	}
}

// Every refusal exits 2 with exactly one line on stderr and nothing on stdout.
func TestTrustCommandErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	greet := filepath.Join(trustFixtures, "unsigned/greet.json")
	key := filepath.Join(trustFixtures, "keys/patch-worker.key.json")
	dup := write("dup.json", `{"kind":"say","kind":"greet"}`)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"keygen bad seed", []string{"keygen", "--seed", "abc"}, "--seed"},
		{"keygen short seed", []string{"keygen", "--seed", "0011"}, "seed is 2 bytes"},
		{"keygen bad nickname", []string{"keygen", "--seed", goldenSeedHex, "--nickname", "Bad"}, "--nickname"},
		{"keygen random without out", []string{"keygen"}, "needs --out"},
		{"keygen bad format", []string{"keygen", "--seed", goldenSeedHex, "--format", "yaml"}, "--format"},
		{"keygen extra argument", []string{"keygen", "x"}, "takes 0 argument"},
		{"keygen unwritable", []string{"keygen", "--seed", goldenSeedHex, "--out", filepath.Join(dir, "no", "such", "k.json")}, "writing key file"},
		{"sign no key", []string{"sign", greet}, "no signing key"},
		{"sign key and seed", []string{"sign", "--key", key, "--seed", goldenSeedHex, greet}, "alternatives"},
		{"sign seed without nickname", []string{"sign", "--seed", goldenSeedHex, greet}, "no nickname"},
		{"sign bad nickname", []string{"sign", "--key", key, "--nickname", "a@b", greet}, "--nickname"},
		{"sign missing key file", []string{"sign", "--key", filepath.Join(dir, "none"), greet}, "reading key"},
		{"sign corrupt key file", []string{"sign", "--key", write("bad.key", `{"format":"x"}`), greet}, "format"},
		{"sign unknown profile", []string{"sign", "--profile", "xml", "--key", key, greet}, "not supported"},
		{"sign missing input", []string{"sign", "--key", key, filepath.Join(dir, "missing.json")}, "no such file"},
		{"sign empty input", []string{"sign", "--key", key, write("empty.json", "")}, "empty input"},
		{"sign not json", []string{"sign", "--key", key, write("bad.json", "{")}, "not I-JSON"},
		{"sign not an object", []string{"sign", "--key", key, write("arr.json", "[1]")}, "not a JSON object"},
		{"sign duplicate member", []string{"sign", "--key", key, dup}, "INPUT-DUPLICATE-KEY"},
		{"sign no argument", []string{"sign", "--key", key}, "takes 1 argument"},
		{"canonicalize duplicate member", []string{"canonicalize", dup}, "INPUT-DUPLICATE-KEY"},
		{"canonicalize bad number", []string{"canonicalize", write("n.json", "[1e400]")}, "canonicalize"},
		{"canonicalize missing", []string{"canonicalize", filepath.Join(dir, "missing.json")}, "no such file"},
		{"canonicalize two args", []string{"canonicalize", dup, dup}, "takes 1 argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", tc.args...)
			if code != exitUsageErr || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "aghcheck: ") || !strings.Contains(errs, tc.want) {
				t.Errorf("code %d, stdout %q, stderr %q (want one line containing %q)", code, out, errs, tc.want)
			}
		})
	}
}

// The sign command's output is the golden signed fixture byte for byte, with
// a key file, with --seed, and from standard input.
func TestSignGolden(t *testing.T) {
	key := filepath.Join(trustFixtures, "keys/patch-worker.key.json")
	for _, kind := range []string{"greet", "say", "whois-response"} {
		t.Run(kind, func(t *testing.T) {
			in := filepath.Join(trustFixtures, "unsigned", kind+".json")
			want := readFixture(t, "valid/"+kind+"-signed.json")
			for name, args := range map[string][]string{
				"key file": {"sign", "--key", key, in},
				"seed":     {"sign", "--seed", goldenSeedHex, "--nickname", "patch-worker", in},
				"stdin":    {"sign", "--key", key, "--profile", "agh", "-"},
			} {
				t.Run(name, func(t *testing.T) {
					code, out, errs := runCLI(t, readFixture(t, "unsigned/"+kind+".json"), args...)
					if code != 0 || errs != "" || out != want {
						t.Errorf("code %d, stderr %q\n%s", code, errs, out)
					}
				})
			}
		})
	}
	code, out, _ := runCLI(t, "", "sign", "--key", key, "--compact", filepath.Join(trustFixtures, "unsigned/greet.json"))
	if want := readFixture(t, "canonical/greet-signed.jcs") + "\n"; code != 0 || out != want {
		t.Errorf("--compact:\n%s\nwant\n%s", out, want)
	}
	// --nickname overrides the key file's, and the result verifies.
	code, out, _ = runCLI(t, "", "sign", "--key", key, "--nickname", "reviewer", filepath.Join(trustFixtures, "unsigned/say.json"))
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	env := jsontest.Object(t, []byte(out))
	if env["from"] != "reviewer@56475aa75463474c0285df5dbf2bcab7" {
		t.Errorf("from = %v", env["from"])
	}
	if st, fs := trust.Evaluate(env); st != trust.Verified {
		t.Errorf("%s %v", st, fs)
	}
}

func TestCanonicalizeGolden(t *testing.T) {
	want := readFixture(t, "canonical/greet-signed.jcs")
	in := filepath.Join(trustFixtures, "valid/greet-signed.json")
	if code, out, errs := runCLI(t, "", "canonicalize", in); code != 0 || out != want || errs != "" {
		t.Errorf("file: code %d %q\n%s", code, errs, out)
	}
	if code, out, _ := runCLI(t, readFixture(t, "valid/greet-signed.json"), "canonicalize", "--newline", "-"); code != 0 || out != want+"\n" {
		t.Errorf("stdin --newline: code %d\n%q", code, out)
	}
	if code, out, _ := runCLI(t, `{"b":[1.50,1e3,"\u00e9\/"],"a":null}`, "canonicalize", "-"); code != 0 || out != `{"a":null,"b":[1.5,1000,"é/"]}` {
		t.Errorf("numbers and escapes: code %d %q", code, out)
	}
}

func TestTrustCommandsHelp(t *testing.T) {
	for _, name := range []string{"keygen", "sign", "canonicalize"} {
		t.Run(name, func(t *testing.T) {
			code, out, _ := runCLI(t, "", name, "--help")
			if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "aghcheck "+name) || !strings.Contains(out, "Exit status") {
				t.Errorf("code %d\n%s", code, out)
			}
		})
	}
}
