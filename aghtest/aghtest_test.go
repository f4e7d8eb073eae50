package aghtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/harness"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/aghtest"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/testiut"
)

// TestMain puts an "aghcheck" on PATH that is this package's test binary: run as
// `aghcheck peer [--fault F]...` it becomes the built-in peer, as the real
// command would, without a separate build.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "aghcheck" {
		os.Exit(fakeAghcheck(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "aghtest-path-")
	if err != nil {
		panic(err)
	}
	// The peer is a fixture: without the race detector when a copy can
	// be built (testiut.Self says why).
	exe, err := testiut.Binary()
	if exe == "" {
		panic(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "aghcheck")); err != nil {
		panic(err)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	os.RemoveAll(dir)
	testiut.Cleanup()
	os.Exit(code)
}

func fakeAghcheck(args []string) int {
	if len(args) == 0 || args[0] != "peer" {
		fmt.Fprintln(os.Stderr, "this aghcheck only plays `aghcheck peer [--fault F]...`")
		return 2
	}
	var faults []string
	for i := 1; i < len(args); i++ {
		if args[i] != "--fault" || i+1 == len(args) {
			fmt.Fprintf(os.Stderr, "unknown argument %q\n", args[i])
			return 2
		}
		i++
		faults = append(faults, args[i])
	}
	return testiut.Peer(faults, false)
}

// The built-in peer, started as a command, passes every scenario and earns
// Full Peer (the JSON report says so once the subtests are done).
func TestBuiltinPeer(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report.json")
	aghtest.TestPeer(t, aghtest.Config{Command: []string{"aghcheck", "peer"}, ReportJSON: report})
	t.Cleanup(func() {
		var rep struct {
			Summary struct {
				Pass  int    `json:"pass"`
				Claim string `json:"claim"`
			} `json:"summary"`
		}
		data, err := os.ReadFile(report)
		if err == nil {
			err = json.Unmarshal(data, &rep)
		}
		if err != nil || rep.Summary.Claim != "Full Peer" || rep.Summary.Pass < 150 {
			t.Errorf("report: %+v (%v)", rep.Summary, err)
		}
	})
}

// A peer the test runs in its own process, through Config.Start; Run
// narrows the suites (the reconnect scenario shows the broker can drop a
// started peer's connection as it drops a command's).
func TestInProcessPeer(t *testing.T) {
	aghtest.TestPeer(t, aghtest.Config{
		Run: `^(nats|lifecycle)\.`,
		Start: func(s aghtest.Settings) (func(), error) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- peer.Run(ctx, peer.Config{URL: s.NATSURL, Token: s.Token, User: s.User, Password: s.Password, Workspace: s.Workspace, Channel: s.Channel, PeerID: s.PeerID})
			}()
			return func() { cancel(); <-done }, nil
		},
		Implementation: "in-process peer", ImplementationVersion: "test",
	})
}

// TestFaultyPeer is run by TestFailuresAreReported in a child process,
// where its failures are the point.
func TestFaultyPeer(t *testing.T) {
	fault := os.Getenv("AGHTEST_FAULT")
	if fault == "" {
		t.Skip("run by TestFailuresAreReported")
	}
	// The fault never sends the expired receipt a SHOULD step waits for:
	// a short ceiling ends that wait sooner, and decides nothing else.
	aghtest.TestPeer(t, aghtest.Config{Command: []string{"aghcheck", "peer", "--fault", fault},
		Strict: os.Getenv("AGHTEST_STRICT") != "", StepTimeout: 3 * time.Second})
}

// A MUST broken fails the subtest named by the scenario id, with the text
// aghcheck run prints for it; -run selects subtests, and the run plays
// those alone; a SHOULD not met is only logged unless Strict.
func TestFailuresAreReported(t *testing.T) {
	// The child go test checks what aghtest reports; it is built without
	// the race detector, which watches aghtest in this process's tests.
	exe := testiut.Self(t)
	child := func(fault, run string, strict bool) (string, error) {
		cmd := exec.Command(exe, "-test.run", "^TestFaultyPeer$/"+run, "-test.v")
		cmd.Env = append(os.Environ(), "AGHTEST_FAULT="+fault)
		if strict {
			cmd.Env = append(cmd.Env, "AGHTEST_STRICT=1")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child("accept-expired", `^delivery\.`, false)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("a peer accepting expired work passed:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestFaultyPeer/delivery.expired-refused ",
		"  FAIL  delivery.expired-refused  ",                                            // the text report's details
		"step 3 (expect_silence): expected silence, but the IUT sent receipt(accepted)", // and its message
		"--- PASS: TestFaultyPeer/delivery.duplicate-id ",
		"a SHOULD not met:", // delivery.replay-age only warns: logged
		"aghtest.go:",       // each subtest logs its scenario's own time …
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`: (pass|fail|warn) in \d+m?s\n`).MatchString(out) { // … "pass in 12ms"
		t.Errorf("no subtest logs its scenario's time:\n%s", out)
	}
	// Only the seven selected scenarios (delivery.*) were played.
	if !regexp.MustCompile(`NOT PASSED  4 pass, 1 fail, 2 warn, \d+ skip, 0 error;`).MatchString(out) {
		t.Errorf("not the seven selected scenarios played:\n%s", out)
	}
	if regexp.MustCompile(`--- \w+: TestFaultyPeer/(receiver|lifecycle|nats)`).MatchString(out) {
		t.Errorf("a subtest -run did not select ran:\n%s", out)
	}
	if strings.Contains(out, "--- FAIL: TestFaultyPeer/delivery.replay-age") {
		t.Errorf("a SHOULD not met failed without Strict:\n%s", out)
	}

	out, err = child("accept-expired", `^delivery\.replay-age$`, true)
	if !errors.As(err, &exit) || !strings.Contains(out, "--- FAIL: TestFaultyPeer/delivery.replay-age ") {
		t.Errorf("Strict: a SHOULD not met did not fail (%v):\n%s", err, out)
	}
}

// TestTypoRun is the child of TestRunMatchingNothing: a Run pattern with a
// typo, which must fail the test rather than pass having played nothing.
func TestTypoRun(t *testing.T) {
	if os.Getenv("AGHTEST_TYPO") == "" {
		t.Skip("run by TestRunMatchingNothing")
	}
	aghtest.TestPeer(t, aghtest.Config{Command: []string{"aghcheck", "peer"}, Run: `^lifecyle\.`})
}

// A Run pattern that matches no scenario fails the test with the words
// aghcheck run uses for --run, naming Config.Run instead of the flag.
func TestRunMatchingNothing(t *testing.T) {
	cmd := exec.Command(testiut.Self(t), "-test.run", "^TestTypoRun$", "-test.v")
	cmd.Env = append(os.Environ(), "AGHTEST_TYPO=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("a Run pattern matching nothing passed:\n%s", out)
	}
	_, perr := harness.Options{Target: harness.Target{Command: []string{"aghcheck", "peer"}}, Run: `^lifecyle\.`}.Plan()
	var oe *harness.OptionError
	if !errors.As(perr, &oe) || oe.Option != "run" {
		t.Fatalf("the CLI's plan: %v, want a --run option error", perr)
	}
	if want := "Config.Run: " + oe.Err.Error(); !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(string(out), "--- FAIL: TestTypoRun") {
		t.Errorf("TestTypoRun did not fail:\n%s", out)
	}
}
