package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// harnessEnv is what `aghcheck run` gives an IUT (docs/harness.md).
var harnessEnv = map[string]string{
	envURL:       "nats://127.0.0.1:4222",
	envToken:     "secret",
	envWorkspace: "aghcheck-1a2b3c4d",
	envChannel:   "conformance",
	envPeerID:    "iut.1a2b3c4d",
}

func TestParseConfig(t *testing.T) {
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range harnessEnv {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want config
	}{
		{"the harness environment", harnessEnv, nil, config{
			URLs: "nats://127.0.0.1:4222", Token: "secret", Workspace: "aghcheck-1a2b3c4d",
			Channel: "conformance", PeerID: "iut.1a2b3c4d",
			GreetInterval: 30 * time.Second, ReplayAge: 300 * time.Second,
		}},
		{"flags override the environment", harnessEnv,
			[]string{"--nats-url", "nats://a:1,nats://b:2", "--workspace", "ws", "--channel", "ch", "--peer-id", "p.1", "--greet-interval", "1.5", "--replay-age", "2m"},
			config{
				URLs: "nats://a:1,nats://b:2", Token: "secret", Workspace: "ws", Channel: "ch", PeerID: "p.1",
				GreetInterval: 1500 * time.Millisecond, ReplayAge: 2 * time.Minute,
			}},
		{"user credentials and a greet interval from the environment",
			map[string]string{envURL: " nats://h:1 ", envUser: "u", envPassword: "pw", envWorkspace: "ws", envGreetInterval: "250ms"},
			nil, config{
				URLs: "nats://h:1", User: "u", Password: "pw", Workspace: "ws", Channel: defaultChannel, PeerID: defaultPeerID,
				GreetInterval: 250 * time.Millisecond, ReplayAge: defaultReplayAge,
			}},
		{"blank channel and peer id take the defaults", with(map[string]string{envChannel: " ", envPeerID: ""}), nil, config{
			URLs: "nats://127.0.0.1:4222", Token: "secret", Workspace: "aghcheck-1a2b3c4d",
			Channel: defaultChannel, PeerID: defaultPeerID,
			GreetInterval: defaultGreetInterval, ReplayAge: defaultReplayAge,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, envOf(tt.env))
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no URL", map[string]string{envWorkspace: "ws"}, nil, "no NATS URL (set --nats-url or AGH_NATS_URL)"},
		{"blank URL flag", harnessEnv, []string{"--nats-url", "  "}, "no NATS URL"},
		{"no workspace", map[string]string{envURL: "nats://h:1"}, nil, "no workspace id (set --workspace or AGH_WORKSPACE_ID)"},
		{"greet interval not a duration", harnessEnv, []string{"--greet-interval", "soon"}, `greet interval "soon" is neither seconds nor a duration`},
		{"greet interval from the environment", map[string]string{envURL: "x", envWorkspace: "ws", envGreetInterval: "0"}, nil, `greet interval "0" must be positive`},
		{"negative replay age", harnessEnv, []string{"--replay-age", "-5s"}, `replay age "-5s" must be positive`},
		{"unknown flag", harnessEnv, []string{"--faults", "x"}, "flag provided but not defined: -faults"},
		{"stray argument", harnessEnv, []string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, envOf(tt.env))
			if !errors.Is(err, errUsage) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("err = %q, want one line containing %q", msg, tt.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	flagOutput = &out
	t.Cleanup(func() { flagOutput = os.Stderr })
	if _, err := parseConfig([]string{"-h"}, envOf(nil)); !errors.Is(err, errHelp) {
		t.Fatalf("err = %v, want errHelp", err)
	}
	for _, flag := range []string{"-nats-url", "-workspace", "-channel", "-peer-id", "-greet-interval", "-replay-age"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("help lacks %s:\n%s", flag, out.String())
		}
	}
	if code := mainExit([]string{"--help"}, envOf(nil)); code != 0 {
		t.Errorf("--help exits %d, want 0", code)
	}
}

// Built in aghcheck's module the adapter has no runtime: a usage-class exit
// with the way to build the real one, never a run.
func TestWithoutRuntime(t *testing.T) {
	if code := mainExit(nil, envOf(harnessEnv)); code != 2 {
		t.Errorf("exit = %d, want 2", code)
	}
	if code := mainExit(nil, envOf(nil)); code != 2 {
		t.Errorf("exit without environment = %d, want 2", code)
	}
	if !strings.Contains(errNoRuntime.Error(), "make reference REF=") {
		t.Errorf("errNoRuntime = %q does not say how to build the adapter", errNoRuntime)
	}
}

// The script refuses a REF or a BASELINE it cannot use with one line and
// exit 2, before building anything (no network, no Go build).
func TestScriptRefusesBadRef(t *testing.T) {
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	script, err := filepath.Abs("../../scripts/reference.sh")
	if err != nil {
		t.Fatal(err)
	}
	notGit := t.TempDir()
	emptyRepo := t.TempDir()
	if out, err := exec.Command("git", "init", "--quiet", "--bare", emptyRepo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	tests := []struct {
		ref, want string
		env       []string
	}{
		{filepath.Join(notGit, "absent"), "is not a directory", nil},
		{notGit, "is not a git checkout or git directory", nil},
		{emptyRepo, "has neither v0.0.5 nor commit cd4b1551", nil},
		// The baseline is checked before REF, let alone a build.
		{emptyRepo, "no baseline at " + filepath.Join(notGit, "absent.yaml"), []string{"BASELINE=" + filepath.Join(notGit, "absent.yaml")}},
		{emptyRepo, "BASELINE is empty", []string{"BASELINE="}},
		{emptyRepo, "no baseline at " + filepath.Join(notGit, "absent.yaml") + " (BASELINE= for none)",
			[]string{"BASELINE=" + filepath.Join(notGit, "absent.yaml"), "WRITE_BASELINE=" + filepath.Join(notGit, "new.yaml")}},
		// Writing without a baseline to lend reasons is fine: REF is next.
		{emptyRepo, "has neither v0.0.5 nor commit cd4b1551", []string{"BASELINE=", "WRITE_BASELINE=" + filepath.Join(notGit, "new.yaml")}},
	}
	for _, tt := range tests {
		scratch := t.TempDir()
		cmd := exec.Command("bash", script)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "BASELINE=") && !strings.HasPrefix(kv, "WRITE_BASELINE=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(append(cmd.Env, "REF="+tt.ref, "TMPDIR="+scratch), tt.env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("REF=%s: err = %v, want exit 2", tt.ref, err)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], tt.want) || stdout.Len() != 0 {
			t.Errorf("REF=%s: stderr %q stdout %q, want one line containing %q", tt.ref, stderr.String(), stdout.String(), tt.want)
		}
		if left, _ := os.ReadDir(scratch); len(left) != 0 {
			t.Errorf("REF=%s: the script left %s behind", tt.ref, left[0].Name())
		}
	}
}
