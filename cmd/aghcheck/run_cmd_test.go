package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runAghcheck is runCLI for tests that only read stdout and the exit code.
func runAghcheck(t *testing.T, args ...string) (string, int) {
	t.Helper()
	code, out, _ := runCLI(t, "", args...)
	return out, code
}

func TestListAndLintEmbedded(t *testing.T) {
	out, code := runAghcheck(t, "list", "--level", "core")
	if code != 0 || !strings.Contains(out, "lifecycle.work-completes") || !strings.Contains(out, "skip (level)") {
		t.Fatalf("list exit %d:\n%s", code, out)
	}
	out, code = runAghcheck(t, "lint-suite", "--embedded")
	if code != 0 || !strings.Contains(out, " ok\n") {
		t.Fatalf("lint-suite exit %d:\n%s", code, out)
	}
}

func TestLintSuiteFindsProblems(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.yaml"), []byte("scenarios:\n  - id: lifecycle.work-completes\n    title: t\n    requirements: [NOPE]\n    level: MUST\n    claim: core-receiver\n    steps: [{wait: 1ms}]\n"), 0o644)
	out, code := runAghcheck(t, "lint-suite", dir)
	if code != exitInvalid || !strings.Contains(out, "NOPE is not a registered rule") || !strings.Contains(out, "id already used") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, code := runAghcheck(t, "lint-suite", filepath.Join(dir, "missing")); code != exitUsageErr {
		t.Fatalf("missing dir: exit %d", code)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unknown-level", []string{"run", "--level", "gold"}},
		{"bad-run-pattern", []string{"run", "--run", "("}},
		{"unknown-format", []string{"run", "--format", "yaml"}},
		{"iut-and-iut-peer", []string{"run", "--iut", "x", "--iut-peer", "y"}},
		{"iut-peer-alone", []string{"run", "--iut-peer", "y"}},
		{"unterminated-quote", []string{"run", "--iut", "'unterminated"}},
		{"record-extension", []string{"run", "--record", "record.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, code := runAghcheck(t, tc.args...); code != exitUsageErr {
				t.Errorf("%v: exit %d, want 2", tc.args, code)
			}
		})
	}
}

// The IUT command "aghcheck" maps to this executable; a test binary is
// not aghcheck, so the real end-to-end run lives in harness tests and
// scripts/bench-run.sh. Here: a selected run against an IUT that exits at
// once ends with exit 2 and a JSON report saying why.
func TestRunIUTExitsAtOnce(t *testing.T) {
	out, code := runAghcheck(t, "run", "--iut", "sh -c 'exit 4'", "--format", "json")
	if code != exitUsageErr {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Error   string         `json:"error"`
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(rep.Error, "exited before greeting (exit status 4)") {
		t.Fatalf("error %q", rep.Error)
	}
	for _, k := range []string{"pass", "fail", "warn", "skip", "error", "claim"} {
		if _, ok := rep.Summary[k]; !ok {
			t.Errorf("summary lacks %s", k)
		}
	}
}

func TestIUTCommandMapsAghcheck(t *testing.T) {
	argv, err := iutCommand("aghcheck peer --fault no-dedupe")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if argv[0] != exe || argv[1] != "peer" || len(argv) != 4 {
		t.Fatalf("%q", argv)
	}
}

// --run that matches nothing is a usage error, caught before any broker or
// IUT is started.
func TestRunSelectionMatchingNothing(t *testing.T) {
	code, _, errOut := runCLI(t, "", "run", "--run", "^no-such-scenario$")
	if code != exitUsageErr || !strings.Contains(errOut, "matches no scenario id") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, _, _ = runCLI(t, "", "list", "--run", "^no-such-scenario$")
	if code != exitUsageErr {
		t.Fatalf("list: exit %d, want %d", code, exitUsageErr)
	}
}

// An impossible setting is refused before the broker or the IUT starts:
// exit 2, one line naming the flag and the grammar or the missing file,
// well inside the second a greet wait would otherwise hide it behind.
func TestRunSettingsCheckedFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"channel", []string{"run", "--channel", "UP"}, `--channel: "UP" is not a channel name: want [a-z0-9][a-z0-9_-]{0,63}`},
		{"workspace", []string{"run", "--workspace", "ws.a"}, `--workspace: "ws.a" is not a workspace id`},
		{"iut-peer", []string{"run", "--nats-url", "nats://127.0.0.1:1", "--iut-peer", "Bad Id"}, `--iut-peer: "Bad Id" is not a peer id`},
		{"nats-creds", []string{"run", "--nats-url", "nats://127.0.0.1:1", "--iut-peer", "p.1", "--nats-creds", "/nonexistent/ci.creds"}, "--nats-creds: reading /nonexistent/ci.creds: open /nonexistent/ci.creds: no such file or directory"},
		{"fuzz-channel", []string{"fuzz", "--channel", "UP"}, `--channel: "UP" is not a channel name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The flag's own message, not a connection's: refused before
			// anything was dialled or started.
			code, _, stderr := runCLI(t, "", tc.args...)
			if code != exitUsageErr || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, stderr, tc.want)
			}
		})
	}
}

// lint-suite renders every template as a run would, with a sample binding:
// an unclosed template or an unknown name is a problem there, not an error
// of the run that plays it.
func TestLintSuiteRendersTemplates(t *testing.T) {
	dir := t.TempDir()
	const sc = `scenarios:
  - id: acme.templates
    title: t
    requirements: [LIFE-CORRELATION]
    level: MUST
    claim: core-receiver
    peers: [alice]
    steps:
      - send: {from: alice, to: iut, envelope: {kind: say, id: "{{id.open}"}}
      - send: {from: alice, to: iut, envelope: {kind: say, body: {text: "{{nope.x}}"}}}
      - expect: {match: {body: {"{{thread.x": 1}}}
`
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runAghcheck(t, "lint-suite", dir)
	if code != exitInvalid || !strings.Contains(out, `step 1: unclosed {{ in "{{id.open}"`) ||
		!strings.Contains(out, "step 2: unknown template {{nope.x}}") || !strings.Contains(out, `step 3: unclosed {{ in "{{thread.x"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// A scenario file is data: lint-suite refuses a send on any subject but
// the run's own (its workspace's, a workspace named after it, the
// channel-only subjects of its channel), and a reply subject but those and
// an inbox, naming the file, the line and the step.
func TestLintSuiteConfinesSubjects(t *testing.T) {
	dir := t.TempDir()
	const sc = `scenarios:
  - id: acme.subjects
    title: t
    requirements: [LIFE-CORRELATION]
    level: MUST
    claim: core-receiver
    peers: [alice]
    steps:
      - send: {from: alice, to: iut, subject: "{{iut.subject}}", envelope: {kind: say}}
      - send: {from: alice, to: iut, subject: "agh.network.v0.{{ws}}-other.{{channel}}.peer.{{iut.route}}", envelope: {kind: say}}
      - send: {from: alice, to: iut, subject: "agh.network.v0.{{channel}}.broadcast", envelope: {kind: say}, reply: "_INBOX.x.{{id.a}}"}
      - send: {from: alice, to: iut, subject: "$JS.API.STREAM.DELETE.PROD_ORDERS", envelope: {kind: say}}
      - send: {from: alice, to: iut, subject: "orders.evil", envelope: {kind: say}}
      - send: {from: alice, to: iut, subject: "agh.network.v0.prod.{{channel}}.broadcast", envelope: {kind: say}}
      - send: {from: alice, to: iut, subject: "agh.network.v0.{{ws}}.>", envelope: {kind: say}}
      - send: {from: alice, to: iut, envelope: {kind: say}, reply: "$JS.API.STREAM.PURGE.PROD_ORDERS"}
`
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runAghcheck(t, "lint-suite", dir)
	if code != exitInvalid {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		`s.yaml:12:9: scenario acme.subjects: step 4: send: subject "$JS.API.STREAM.DELETE.PROD_ORDERS" is not one of the run's subjects`,
		`s.yaml:13:9: scenario acme.subjects: step 5: send: subject "orders.evil" is not one`,
		`step 6: send: subject "agh.network.v0.prod.{{channel}}.broadcast" is not one`,
		`step 7: send: subject "agh.network.v0.{{ws}}.>" is not one`,
		`step 8: send: reply subject "$JS.API.STREAM.PURGE.PROD_ORDERS" is not one`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, step := range []string{"step 1:", "step 2:", "step 3:"} {
		if strings.Contains(out, step) {
			t.Errorf("the run's own subject refused (%s):\n%s", step, out)
		}
	}
}
