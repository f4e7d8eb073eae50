package testiut

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Mode is the environment variable that turns a test binary into the IUT
// of the runs its tests start (its value names what it plays).
const Mode = "AGHCHECK_TEST_IUT"

// Main is the TestMain of a package whose test binary doubles as the IUT:
// with Mode set it plays iut(mode) and exits with its status; otherwise it
// runs the tests, then removes the IUT copy Self built.
func Main(m *testing.M, iut func(mode string) int) {
	if mode := os.Getenv(Mode); mode != "" {
		os.Exit(iut(mode))
	}
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Self is the program that starts this test binary as an IUT (its TestMain
// must be Main): the binary itself, or, when it was built with the race
// detector, a copy of its package's tests built without it, once per
// process.
//
// Why: the race detector instruments the code under test, the harness that
// plays and judges in the test's own process. The IUT is a fixture (the
// reference peer, with faults, or a misbehaving program), started hundreds
// of times by the mutation and robustness tests; instrumented, each start
// and each of its replies costs several times the CPU, which made up a
// large part of make test's time. The peer's own races are found by
// internal/peer's tests, which run it in their process under the detector.
// When the copy cannot be built (no go command, say), the binary itself is
// used, which is slower and just as correct.
func Self(tb testing.TB) string {
	tb.Helper()
	exe, err := Binary()
	if err != nil {
		self.warn.Do(func() { tb.Logf("the IUT is this race-enabled test binary: %v", err) })
	}
	if exe == "" {
		tb.Fatal(err)
	}
	return exe
}

// Binary is Self for a TestMain, which has no testing.TB: the program, and
// why it is this test binary when a copy could not be built.
func Binary() (string, error) {
	exe, err := os.Executable()
	if err != nil || !raceEnabled {
		return exe, err
	}
	self.once.Do(func() { self.path, self.err = buildCopy() })
	if self.err != nil {
		return exe, self.err
	}
	return self.path, nil
}

var self struct {
	once, warn sync.Once
	path, dir  string
	err        error
}

// buildCopy builds the tests of the package in the working directory (go
// test runs a test binary in its package's directory) without the race
// detector, into a temporary directory.
func buildCopy() (string, error) {
	gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gotool); err != nil {
		if gotool, err = exec.LookPath("go"); err != nil {
			return "", fmt.Errorf("no go command to build a copy without the race detector: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "aghcheck-iut-")
	if err != nil {
		return "", fmt.Errorf("a copy without the race detector: %w", err)
	}
	self.dir = dir
	path := filepath.Join(dir, "iut.test")
	cmd := exec.Command(gotool, "test", "-c", "-o", path, ".")
	cmd.Env = append(os.Environ(), "GOFLAGS="+withoutRace(os.Getenv("GOFLAGS")))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test -c without the race detector: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return path, nil
}

// withoutRace is GOFLAGS less any -race.
func withoutRace(flags string) string {
	var keep []string
	for _, f := range strings.Fields(flags) {
		if f != "-race" && f != "-race=true" {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}

// Cleanup removes the copy Binary built; a TestMain that is not Main
// calls it after its tests.
func Cleanup() {
	if self.dir != "" {
		os.RemoveAll(self.dir)
	}
}
