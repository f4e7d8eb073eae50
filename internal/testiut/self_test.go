package testiut

import (
	"debug/buildinfo"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The copy plays a mode by exiting with the number it names.
func TestMain(m *testing.M) {
	Main(m, func(mode string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(mode, "exit-"))
		if err != nil {
			return 2
		}
		return n
	})
}

// The IUT a test starts is never instrumented by the race detector (under
// -race a copy built without it, otherwise the binary itself), and it is
// this package's tests: run with Mode set, it plays the mode Main was given.
func TestSelfIsTheTestsWithoutTheRaceDetector(t *testing.T) {
	exe := Self(t)
	if _, err := Binary(); err != nil {
		t.Fatalf("no copy without the race detector: %v", err)
	}
	bi, err := buildinfo.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			t.Fatalf("the IUT %s is built with the race detector", exe)
		}
	}
	if own, _ := os.Executable(); raceEnabled == (own == exe) {
		t.Fatalf("race detector %v, yet the IUT is %s and this binary %s", raceEnabled, exe, own)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), Mode+"=exit-7")
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("the IUT with %s=exit-7: %v, want exit status 7", Mode, err)
	}
}

func TestWithoutRace(t *testing.T) {
	for in, want := range map[string]string{"": "", "-race": "", "-mod=mod -race -trimpath": "-mod=mod -trimpath", "-race=true -v": "-v"} {
		if got := withoutRace(in); got != want {
			t.Errorf("withoutRace(%q) = %q, want %q", in, got, want)
		}
	}
}
