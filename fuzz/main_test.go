package fuzz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/peer"
)

// The test binary doubles as the IUT: with AGHCHECK_TEST_IUT=peer[:FAULT,...]
// it is the reference peer, with those faults.
func TestMain(m *testing.M) {
	if mode := os.Getenv("AGHCHECK_TEST_IUT"); mode != "" {
		os.Exit(runPeer(mode))
	}
	os.Exit(m.Run())
}

func runPeer(mode string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := peer.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, faults, _ := strings.Cut(mode, ":"); faults != "" {
		cfg.Faults = strings.Split(faults, ",")
	}
	if err := peer.Run(ctx, cfg); err != nil && ctx.Err() == nil {
		if errors.Is(err, peer.ErrCrashed) {
			return peer.CrashExitCode
		}
		fmt.Fprintln(os.Stderr, "peer:", err)
		return 1
	}
	return 0
}

// against is a harness configuration whose IUT is the reference peer with
// faults (none for the correct peer).
func against(t testing.TB, faults ...string) harness.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mode := "peer"
	if len(faults) > 0 {
		mode += ":" + strings.Join(faults, ",")
	}
	return harness.Config{Command: []string{exe, "-test.run=^$"}, Env: []string{"AGHCHECK_TEST_IUT=" + mode},
		GreetTimeout: 10 * time.Second, StepTimeout: 2 * time.Second}
}
