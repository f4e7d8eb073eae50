package fuzz

import (
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/testiut"
)

// The test binary doubles as the IUT: with AGHCHECK_TEST_IUT=peer[:FAULT,...]
// it is the reference peer, with those faults.
func TestMain(m *testing.M) { testiut.Main(m, runPeer) }

func runPeer(mode string) int {
	var faults []string
	if _, f, _ := strings.Cut(mode, ":"); f != "" {
		faults = strings.Split(f, ",")
	}
	return testiut.Peer(faults, false)
}

// against is a harness configuration whose IUT is the reference peer with
// faults (none for the correct peer).
func against(t testing.TB, faults ...string) harness.Target {
	t.Helper()
	exe := testiut.Self(t)
	mode := "peer"
	if len(faults) > 0 {
		mode += ":" + strings.Join(faults, ",")
	}
	return harness.Target{Command: []string{exe, "-test.run=^$"}, Env: []string{"AGHCHECK_TEST_IUT=" + mode},
		GreetTimeout: 10 * time.Second, StepTimeout: 2 * time.Second, MaxRestarts: DefaultMaxRestarts}
}
