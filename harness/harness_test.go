package harness

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/testiut"
	"github.com/aghcheck/aghcheck/suites"
)

// The test binary doubles as the IUT: with AGHCHECK_TEST_IUT set it becomes
// the reference peer (optionally with faults) or a misbehaving one.
func TestMain(m *testing.M) { testiut.Main(m, runTestIUT) }

func runTestIUT(mode string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := peer.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	name, arg, _ := strings.Cut(mode, ":")
	switch name {
	case "peer", "plain-peer", "orderless-peer", "peer-long-work", "plain-peer-long-work":
		var faults []string
		if arg != "" {
			faults = strings.Split(arg, ",")
		}
		if name == "orderless-peer" {
			return testiut.Peer(faults, true, "no-orders")
		}
		if base, long := strings.CutSuffix(name, "-long-work"); long {
			return testiut.Peer(faults, base == "plain-peer", "long-work")
		}
		return testiut.Peer(faults, name == "plain-peer")
	case "welcoming-peer", "reaching-peer", "impersonating-peer", "flip-flop-peer":
		// The reference peer, plus what some peers do when another joins
		// (ask the newcomer who it is), or plus a connection of its
		// credentials that reaches past the run's subjects or speaks as
		// the harness's peers.
		beside := welcome
		switch name {
		case "reaching-peer":
			beside = reachOut
		case "impersonating-peer":
			beside = impersonate
		case "flip-flop-peer":
			beside = flipFlop
		}
		stop, err := beside(cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer stop()
		if err := peer.Run(ctx, cfg); err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "peer:", err)
			return 1
		}
		return 0
	default:
		return misbehave(ctx, name, cfg)
	}
}

func loadSuites(t testing.TB) []*scenario.Scenario {
	t.Helper()
	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	return set.Scenarios
}

func selfIUT(t testing.TB) []string {
	t.Helper()
	return []string{testiut.Self(t), "-test.run=^$"}
}

func runAgainst(t *testing.T, mode string, cfg config) *report.Report {
	t.Helper()
	peerMode := strings.HasPrefix(mode, "peer") || strings.HasPrefix(mode, "plain-peer") || strings.HasPrefix(mode, "orderless-peer")
	if cfg.Scenarios == nil {
		cfg.Scenarios = loadSuites(t)
		if !peerMode {
			// A misbehaving IUT is judged on how the run copes (ends in
			// time, blames the right thing), which the hand-written
			// scenarios show; the generated receiver cases would only
			// multiply the sends a flooded connection must flush.
			cfg.Scenarios = slices.DeleteFunc(cfg.Scenarios, func(sc *scenario.Scenario) bool {
				return strings.HasPrefix(sc.ID, "receiver.")
			})
		}
	}
	if cfg.Parallel == 0 && peerMode {
		// Many runs share the machine under -race: with every scenario
		// started at once the reference peer's backlog outlasts silence
		// windows and step timeouts, and verdicts would measure the machine.
		// (Misbehaving IUTs are judged on how fast the run ends: unlimited.)
		cfg.Parallel = 48
	}
	cfg.Command = selfIUT(t)
	cfg.Env = append(cfg.Env, "AGHCHECK_TEST_IUT="+mode)
	if cfg.MaxRestarts == 0 {
		// What aghcheck run and aghtest give: a dead IUT is started again.
		// (No test here asks for a run that never restarts.)
		cfg.MaxRestarts = DefaultMaxRestarts
	}
	if cfg.GreetTimeout == 0 {
		cfg.GreetTimeout = 10 * time.Second
	}
	if cfg.StepTimeout == 0 {
		// A ceiling, not a deadline: faulty peers that never answer would
		// otherwise hold every test for the 30 s default.
		cfg.StepTimeout = 3 * time.Second
	}
	rep, err := runConfig(context.Background(), cfg)
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	return rep
}

func dump(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Pass {
			continue
		}
		t.Logf("%s %s: %s %v", sc.Outcome, sc.ID, sc.Message, sc.Notes)
		for _, st := range sc.Steps {
			if st.Outcome != report.Pass {
				t.Logf("   step %d %s %s arrived=%v", st.Index, st.Outcome, st.Message, st.Arrived)
			}
		}
	}
	for _, f := range rep.Passive.Findings {
		t.Logf("passive %s x%d: %s", f.Rule, f.Count, f.Example)
	}
}

// Played twice (--repeat 2) against the one peer: every verdict holds on
// both runs, so none is unstable.
func TestReferencePeerPassesEverything(t *testing.T) {
	// Not parallel: many scenarios against one peer, under step ceilings
	// that the other tests' load would decide.
	rep := runAgainst(t, "peer", config{Repeat: 2})
	dump(t, rep)
	if rep.Error != "" {
		t.Fatalf("harness error: %s\nstderr: %s", rep.Error, rep.IUT.Stderr)
	}
	if s := rep.Summary; s.Fail+s.Error+s.Warn+s.Skip > 0 || s.Pass != len(rep.Scenarios) {
		t.Errorf("summary %+v, want every scenario to pass", s)
	}
	if rep.Summary.Claim != "Full Peer" || !rep.Summary.Passed {
		t.Errorf("claim %q passed=%v, want Full Peer", rep.Summary.Claim, rep.Summary.Passed)
	}
	if rep.Passive.Outcome != report.Pass || rep.Passive.Envelopes == 0 {
		t.Errorf("passive %+v", rep.Passive)
	}
	if s := rep.Summary; s.Repeat != 2 || len(s.Unstable) > 0 {
		t.Errorf("repeat %d, unstable %v: want 2 runs, none unstable", s.Repeat, s.Unstable)
	}
}
