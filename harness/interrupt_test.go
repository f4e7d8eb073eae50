package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// An interrupted run (Ctrl-C) is a harness condition: the scenarios it
// cut short are errors, never failures blamed on the IUT, no claim is
// earned and Run reports a harness error (exit status 2).
func TestInterruptedRunBlamesNobody(t *testing.T) {
	t.Parallel()
	cfg := config{Target: Target{Command: selfIUT(t), Env: []string{"AGHCHECK_TEST_IUT=silent"},
		GreetTimeout: 10 * time.Second, StepTimeout: time.Second}, Scenarios: loadSuites(t),
		Parallel: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Progress = func(*report.ScenarioResult) { cancel() } // interrupt once the first scenarios end
	rep, err := runConfig(ctx, cfg)
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	var he *HarnessError
	if !errors.As(err, &he) || rep.Error == "" {
		t.Errorf("err %v, report error %q: want a harness error", err, rep.Error)
	}
	if rep.Summary.Passed || rep.Summary.Claim != "none" {
		t.Errorf("summary %+v: an interrupted run earns nothing", rep.Summary)
	}
	interrupted := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Error {
			interrupted++
		}
	}
	if interrupted == 0 {
		t.Error("no scenario was recorded as cut short by the interrupt")
	}
	// Only the scenarios that ended before the interrupt (at most the
	// two in flight) may have failed.
	if n := rep.Summary.Fail + rep.Summary.Warn; n > 2 {
		t.Errorf("%d scenarios failed or warned: the interrupt was blamed on the IUT", n)
	}
	noGoInternals(t, rep)
}

// Interrupted while waiting for the greet (once the IUT has started): the
// report says so in words.
func TestInterruptedBeforeGreet(t *testing.T) {
	t.Parallel()
	started := filepath.Join(t.TempDir(), "started")
	cfg := config{Target: Target{Command: []string{"sh", "-c", `: > "$0"; exec sleep 30`, started}, GreetTimeout: 20 * time.Second}, Scenarios: loadSuites(t)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		testwait.Until(20*time.Second, func() bool { _, err := os.Stat(started); return err == nil })
		cancel()
	}()
	interruptedSaysSo(t, ctx, cfg, "terminated by signal SIGTERM")
}

// Interrupted before the run has its broker link (the JetStream stream,
// say, still being made): "run interrupted", never Go's "context
// canceled", and no IUT was started.
func TestInterruptedBeforeConnecting(t *testing.T) {
	t.Parallel()
	cfg := config{Target: Target{Command: []string{"sh", "-c", "exec sleep 30"}}, Scenarios: loadSuites(t)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	interruptedSaysSo(t, ctx, cfg, "") // no IUT was started
}

// interruptedSaysSo runs cfg until ctx is cancelled and checks that the
// report says "run interrupted" in words, with the IUT's exit as wantExit.
func interruptedSaysSo(t *testing.T, ctx context.Context, cfg config, wantExit string) {
	t.Helper()
	rep, err := runConfig(ctx, cfg)
	if rep == nil || err == nil {
		t.Fatalf("report %v, err %v: want both", rep != nil, err)
	}
	if rep.Error != "run interrupted" {
		t.Errorf("error %q, want %q", rep.Error, "run interrupted")
	}
	if rep.IUT.Exit != wantExit {
		t.Errorf("IUT exit %q, want %q", rep.IUT.Exit, wantExit)
	}
	noGoInternals(t, rep)
}

// noGoInternals fails when a Go error string meant for programmers
// reaches the report.
func noGoInternals(t *testing.T, rep *report.Report) {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"context canceled", "context deadline exceeded", "fork/exec", "killed by"} {
		if strings.Contains(string(b), s) {
			t.Errorf("the report says %q", s)
		}
	}
}
