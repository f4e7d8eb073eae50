package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
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
			if !reflect.DeepEqual(got, tt.want) {
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

// AGH_INITIATE (or --initiate) names the start-up file of initiation
// orders; it is read, and checked, before anything runs, and a file that
// cannot be used is a usage error.
func TestParseConfigInitiate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "orders.json")
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(file, []byte(`{"orders":[{"to":"alice.1","kind":"say","surface":"thread","answer":"staging"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(`{"orders":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range harnessEnv {
		env[k] = v
	}
	env[envInitiate] = " " + file + " "
	got, err := parseConfig(nil, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	want := []order{{To: "alice.1", Kind: "say", Surface: "thread", Answer: "staging"}}
	if got.Initiate != file || !reflect.DeepEqual(got.Orders, want) {
		t.Errorf("from %s: Initiate %q, Orders %+v", envInitiate, got.Initiate, got.Orders)
	}
	if got, err := parseConfig([]string{"--initiate", other}, envOf(env)); err != nil || got.Initiate != other || len(got.Orders) != 0 {
		t.Errorf("--initiate overrides %s: %+v, %v", envInitiate, got, err)
	}
	// The harness sets it empty when the run has no orders.
	env[envInitiate] = ""
	if got, err := parseConfig(nil, envOf(env)); err != nil || got.Initiate != "" || got.Orders != nil {
		t.Errorf("empty %s: %+v, %v", envInitiate, got, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"orders":[{"to":"alice.1","kind":"say","surface":"room"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, msg := range map[string]string{
		bad:                             `order 1: surface "room" is not thread or direct`,
		filepath.Join(dir, "none.json"): "read orders",
	} {
		env[envInitiate] = path
		_, err := parseConfig(nil, envOf(env))
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want a one-line usage error containing %q", path, err, msg)
		}
		if code := mainExit(nil, envOf(env)); code != 2 {
			t.Errorf("%s: exit %d, want 2", path, code)
		}
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	flagOutput = &out
	t.Cleanup(func() { flagOutput = os.Stderr })
	if _, err := parseConfig([]string{"-h"}, envOf(nil)); !errors.Is(err, errHelp) {
		t.Fatalf("err = %v, want errHelp", err)
	}
	for _, flag := range []string{"-nats-url", "-workspace", "-channel", "-peer-id", "-greet-interval", "-replay-age", "-initiate"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("help lacks %s:\n%s", flag, out.String())
		}
	}
	if code := mainExit([]string{"--help"}, envOf(nil)); code != 0 {
		t.Errorf("--help exits %d, want 0", code)
	}
}

// --version prints the runtime version the build was stamped with, and
// exits 0 without running.
func TestVersion(t *testing.T) {
	var out bytes.Buffer
	flagOutput = &out
	t.Cleanup(func() { flagOutput, runtimeVersion = os.Stderr, "unknown" })
	runtimeVersion = "v0.0.5-3-g8cb155af-dirty"
	if code := mainExit([]string{"--version"}, envOf(nil)); code != 0 || out.String() != "v0.0.5-3-g8cb155af-dirty\n" {
		t.Errorf("--version: exit %d, printed %q", code, out.String())
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

// runScript runs scripts/reference.sh with env added to a clean copy of
// the environment (no REF, REV or baseline settings of the caller's; no
// module downloads), in a scratch TMPDIR it checks is left empty.
// TestMain removes the aghcheck builtAghcheck made.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// builtAghcheck is this repository's aghcheck, built once per test binary.
func builtAghcheck(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "aghcheck-reference-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "aghcheck")
		cmd := exec.Command("go", "build", "-o", built.path, "../../cmd/aghcheck")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build aghcheck: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func runScript(t *testing.T, env ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runScriptNamed(t, "reference.sh", env...)
}

func runScriptNamed(t *testing.T, name string, env ...string) (code int, stdout, stderr string) {
	t.Helper()
	for _, tool := range []string{"bash", "git", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	script, err := filepath.Abs("../../scripts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	cmd := exec.Command("bash", script)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "REF", "REV", "REVS", "OUT", "REPORTS", "BASELINE", "WRITE_BASELINE", "RUN_ARGS", "KEEP", "GOFLAGS", "GOPROXY":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "TMPDIR="+scratch, "GOFLAGS=-mod=readonly", "GOPROXY=off"), env...)
	if name == "reference.sh" {
		// One aghcheck for every run of the script (AGHCHECK), not a
		// build in each.
		cmd.Env = append(cmd.Env, "AGHCHECK="+builtAghcheck(t))
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(scratch); len(left) != 0 {
		t.Errorf("the script left %s behind", left[0].Name())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// git runs git in dir, failing the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fakeRuntime is a git working tree claiming the runtime's module path but
// holding none of its code: enough for the script to name what it tests,
// copy it and fail to build the adapter in it, without any download.
// Tag v9.9.9, then one more commit.
func fakeRuntime(t *testing.T, module string) string {
	dir := t.TempDir()
	git(t, dir, "init", "--quiet")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+module+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "--quiet", "-m", "one")
	git(t, dir, "tag", "v9.9.9")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "commit", "--quiet", "-am", "two")
	return dir
}

// The script refuses a REF, REV or BASELINE it cannot use with one line and
// exit 2, before building anything (no network, no Go build).
func TestScriptRefusesBadRef(t *testing.T) {
	notGit := t.TempDir()
	emptyRepo := t.TempDir()
	git(t, emptyRepo, "init", "--quiet", "--bare")
	other := fakeRuntime(t, "example.org/other")
	pinless := fakeRuntime(t, "github.com/compozy/agh")
	git(t, pinless, "tag", "v0.0.5")
	absent := filepath.Join(notGit, "absent.yaml")
	tests := []struct {
		want string
		env  []string
	}{
		{"is not a directory", []string{"REF=" + filepath.Join(notGit, "absent")}},
		{"is not a git working tree or git directory", []string{"REF=" + notGit}},
		{"has no HEAD commit (pass REV=<commit, tag or branch>, e.g. REV=v0.0.5)", []string{"REF=" + emptyRepo}},
		{"REV=v0.0.4 needs REF=", []string{"REV=v0.0.4"}},
		{"has no commit, tag or branch v0.0.4 (git fetch it there first)", []string{"REF=" + emptyRepo, "REV=v0.0.4"}},
		{"the working tree " + other + " at commit", []string{"REF=" + other}},
		{"is not github.com/compozy/agh (its go.mod names module example.org/other)", []string{"REF=" + other}},
		{"(v9.9.9) from the git directory of " + other, []string{"REF=" + other, "REV=v9.9.9"}},
		// The baseline is checked before REF, let alone a build.
		{"no baseline at " + absent, []string{"REF=" + emptyRepo, "BASELINE=" + absent}},
		{"BASELINE is empty", []string{"REF=" + emptyRepo, "BASELINE="}},
		{"no baseline at " + absent + " (BASELINE= for none)", []string{"REF=" + emptyRepo, "BASELINE=" + absent, "WRITE_BASELINE=" + filepath.Join(notGit, "new.yaml")}},
		// Writing without a baseline to lend reasons is fine: REF is next.
		{"has no HEAD commit", []string{"REF=" + emptyRepo, "BASELINE=", "WRITE_BASELINE=" + filepath.Join(notGit, "new.yaml")}},
		// REV=v0.0.5 must name the pinned commit the baseline records.
		{"v0.0.5 in " + pinless + " is commit ", []string{"REF=" + pinless, "REV=v0.0.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			code, stdout, stderr := runScript(t, tt.env...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tt.want) || stdout != "" {
				t.Errorf("%v: exit %d, stderr %q stdout %q, want exit 2 and one line containing %q", tt.env, code, stderr, stdout, tt.want)
			}
		})
	}
}

// What is tested is named before anything is built: a working tree at its
// commit (-dirty with its uncommitted and untracked files listed), or the
// commit REV names. The fake tree cannot build the adapter, which stops the
// script with exit 2 after it said so; REF is left as it was.
func TestScriptNamesWhatItTests(t *testing.T) {
	dir := fakeRuntime(t, "github.com/compozy/agh")
	head := git(t, dir, "rev-parse", "HEAD")
	tagged := git(t, dir, "rev-parse", "v9.9.9^{commit}")
	short := func(sha string) string { return sha[:8] }
	check := func(name string, env []string, want ...string) {
		t.Helper()
		code, stdout, stderr := runScript(t, env...)
		if code != 2 || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want exit 2 and nothing on stdout", name, code, stdout)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", name, w, stderr)
			}
		}
	}
	check("clean tree", []string{"REF=" + dir},
		"reference: testing github.com/compozy/agh v9.9.9-1-g"+short(head)+": the working tree "+dir+" at commit "+head+"\n",
		"reference: building the adapter inside github.com/compozy/agh v9.9.9-1-g"+short(head)+" failed")
	check("REV", []string{"REF=" + filepath.Join(dir, ".git"), "REV=v9.9.9"},
		"reference: testing github.com/compozy/agh v9.9.9-0-g"+short(tagged)+": commit "+tagged+" (v9.9.9)\n")
	// A git directory alone: its HEAD, said so; the baseline's ids are
	// checked before the runtime's source is copied or built.
	branch := git(t, dir, "symbolic-ref", "--short", "HEAD")
	check("git dir", []string{"REF=" + filepath.Join(dir, ".git")},
		"reference: testing github.com/compozy/agh v9.9.9-1-g"+short(head)+": commit "+head+", the HEAD ("+branch+") of the git directory "+filepath.Join(dir, ".git")+" (REV=v0.0.5 for the pinned release)\n",
		"reference: checked the baseline's ids: ")

	// A baseline naming a retired id stops the script (exit 1, as the run
	// would for a stale entry) before the runtime is copied or built.
	retired := filepath.Join(t.TempDir(), "retired.yaml")
	if err := os.WriteFile(retired, []byte("entries: [{id: envelope.duplicate-member-refused, outcome: fail, reason: r}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runScript(t, "REF="+dir, "BASELINE="+retired)
	if code != 1 || stdout != "" || !strings.Contains(stderr, retired+":1: envelope.duplicate-member-refused") ||
		!strings.Contains(stderr, "the baseline names retired ids") || strings.Contains(stderr, "copied its source") {
		t.Errorf("retired id: exit %d, stdout %q, stderr:\n%s\nwant exit 1 before the source is copied", code, stdout, stderr)
	}

	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.go"), []byte("package agh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := git(t, dir, "status", "--porcelain")
	check("dirty tree", []string{"REF=" + dir},
		"reference: testing github.com/compozy/agh v9.9.9-1-g"+short(head)+"-dirty: the working tree "+dir+" at commit "+head+", with uncommitted changes:\n",
		"reference:      M README\n", "reference:     ?? new.go\n",
		"inside github.com/compozy/agh v9.9.9-1-g"+short(head)+"-dirty failed")
	if after := git(t, dir, "status", "--porcelain"); after != before {
		t.Errorf("the script changed REF: status %q, was %q", after, before)
	}
}

// The matrix script needs REF and REVS, and says so before building.
func TestMatrixScriptRefuses(t *testing.T) {
	for _, tt := range []struct {
		want string
		env  []string
	}{
		{"REF is empty", []string{"REVS=v0.0.5"}},
		{"REVS is empty", []string{"REF=" + t.TempDir()}},
	} {
		t.Run(tt.want, func(t *testing.T) {
			code, stdout, stderr := runScriptNamed(t, "reference-matrix.sh", tt.env...)
			if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "reference-matrix: "+tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%v: exit %d, stderr %q, want exit 2 and one line starting %q", tt.env, code, stderr, tt.want)
			}
		})
	}
}
