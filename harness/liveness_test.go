package harness

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// outcomes maps scenario id → outcome.
func outcomes(rep *report.Report) map[string]report.Outcome {
	out := map[string]report.Outcome{}
	for _, sc := range rep.Scenarios {
		out[sc.ID] = sc.Outcome
	}
	return out
}

// A peer that answers everything late earns exactly the verdicts of the
// same peer answering at once: no verdict rests on a reply deadline. The
// same slow peer with a MUST fault still fails for it.
func TestSlowPeerEarnsTheSameVerdicts(t *testing.T) {
	t.Parallel() // it mostly waits on the slow peer
	// The full slow run and the runs with a fault are independent: side by side.
	t.Run("full-suite", func(t *testing.T) {
		t.Parallel()
		// At once, the reference peer passes every scenario
		// (TestReferencePeerPassesEverything): so must it, late.
		slow := runAgainst(t, "peer:slow:300ms", config{Target: Target{StepTimeout: 10 * time.Second}, Parallel: 1000})
		if slow.Error != "" {
			t.Fatal(slow.Error)
		}
		for id, got := range outcomes(slow) {
			if got != report.Pass {
				t.Errorf("%s: %s when slow, pass at once", id, got)
			}
		}
		if slow.Summary.Claim != "Full Peer" {
			dump(t, slow)
			t.Errorf("slow peer earned %q, want Full Peer; events %+v", slow.Summary.Claim, slow.IUT.Events)
		}
		l := slow.Summary.Latency
		if l == nil || l.Median.D() < 300*time.Millisecond || l.Count == 0 {
			t.Errorf("run latency %+v, want a median of at least the peer's 300ms delay", l)
		}
	})
	for _, c := range []struct{ fault, scenario string }{
		{"accept-expired", "delivery.expired-refused"},
		{"reopen-terminal", "lifecycle.terminal-is-final"},
		{"emit:RECEIPT-REASON-REQUIRED", "receiver.RECEIPT-REASON-REQUIRED.rejected"},
	} {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, "peer:slow:300ms,"+c.fault, config{Target: Target{StepTimeout: 3 * time.Second}, Parallel: 1000,
				Select: regexp.MustCompile(`^` + regexp.QuoteMeta(c.scenario) + `$`)})
			if o := outcomes(rep)[c.scenario]; o != report.Fail {
				t.Errorf("slow peer with %s: %s %s, want fail", c.fault, c.scenario, o)
			}
		})
	}
}

// A peer whose connection dies on one input, its process lingering: the
// death is named with the scenario that causes it, only that scenario
// fails (played alone), the run goes on after a restart, and the
// reproducer replays: it fails the faulty peer and passes a correct one.
func TestKillerIsNamedAndTheRunGoesOn(t *testing.T) {
	t.Parallel() // it mostly waits for the IUT to come back
	dir := t.TempDir()
	some := regexp.MustCompile(`^(kinds|delivery|receiver\.(WHOIS|ENV-ID|ENV-KIND))`)
	// The correct peer's run only gives the pass count to compare with: it
	// runs beside the faulty one (they share nothing but the machine).
	var correct *report.Report
	correctDone := make(chan struct{})
	go func() {
		defer close(correctDone)
		correct = runAgainst(t, "peer", config{Select: some})
	}()
	rep := runAgainst(t, "peer:disconnect-on:whois-query-type", config{Target: Target{GreetTimeout: 3 * time.Second, BackTimeout: 300 * time.Millisecond}, Select: some, ReproDir: dir})
	<-correctDone
	if correct == nil {
		t.FailNow() // runAgainst said why
	}
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	dump(t, rep)
	if len(rep.IUT.Killers) == 0 {
		t.Fatal("no killer named")
	}
	for _, k := range rep.IUT.Killers {
		if !strings.HasPrefix(k.Scenario, "receiver.WHOIS-QUERY-TYPE.") || k.Event != report.LifeDisconnected {
			t.Errorf("killer %+v, want a receiver.WHOIS-QUERY-TYPE case that closed the connection", k)
		}
		if k.Reproducer == "" {
			t.Errorf("killer %s: no reproducer written", k.Scenario)
		}
	}
	fails := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Fail {
			fails++
			if !strings.Contains(sc.Message, "kills the IUT") || !strings.Contains(sc.Message, "broker connection closed") {
				t.Errorf("%s fails with %q, want the death named", sc.ID, sc.Message)
			}
		}
	}
	if fails == 0 || fails > 6 {
		t.Errorf("%d scenarios fail, want 1 to 6", fails)
	}
	if rep.Summary.Pass < correct.Summary.Pass-10 {
		t.Errorf("%d pass, want at most 10 fewer than the correct peer's %d", rep.Summary.Pass, correct.Summary.Pass)
	}
	deaths := 0
	for _, ev := range rep.IUT.Events {
		if ev.Death() {
			deaths++
			if len(ev.Stderr) == 0 {
				t.Errorf("death %s without the IUT's last stderr lines", ev)
			}
		}
	}
	if deaths == 0 || rep.IUT.Restarts == 0 || rep.Summary.Incomplete || rep.Summary.Error > 0 {
		t.Errorf("deaths %d, restarts %d, incomplete %v: want deaths, restarts and a complete run", deaths, rep.IUT.Restarts, rep.Summary.Incomplete)
	}
	// The deaths are charged once, to the scenarios that cause them: not
	// again to what the IUT sent.
	if hasFinding(rep, "PEER-SURVIVES-INPUT") {
		t.Error("a passive PEER-SURVIVES-INPUT finding for deaths the killer scenarios already fail")
	}

	set := scenario.LoadFS(os.DirFS(dir), ".", dir+"/")
	if err := set.Err(); err != nil || len(set.Scenarios) == 0 {
		t.Fatalf("reproducers do not load: %v (%d scenarios)", err, len(set.Scenarios))
	}
	// The two replays are independent runs: side by side.
	t.Run("replay-faulty", func(t *testing.T) {
		t.Parallel()
		replay := runAgainst(t, "peer:disconnect-on:whois-query-type", config{Target: Target{GreetTimeout: 3 * time.Second, BackTimeout: 300 * time.Millisecond}, Scenarios: set.Scenarios})
		if replay.Summary.Fail != len(set.Scenarios) {
			t.Errorf("replayed against the faulty peer: %+v, want every reproducer to fail", replay.Summary)
		}
	})
	t.Run("replay-correct", func(t *testing.T) {
		t.Parallel()
		replay := runAgainst(t, "peer", config{Scenarios: set.Scenarios})
		if replay.Summary.Pass != len(set.Scenarios) {
			t.Errorf("replayed against the correct peer: %+v, want every reproducer to pass", replay.Summary)
		}
	})
}

// A peer that drops its connection after each greet and comes back: the
// disconnects are named, and no failure rests on "nothing arrived".
func TestDropIsNamed(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "peer:drop-after-greet:250ms,slow:100ms", config{Parallel: 2,
		Select: regexp.MustCompile(`^(delivery|lifecycle|kinds)\.`)})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	dropped := false
	for _, ev := range rep.IUT.Events {
		dropped = dropped || ev.Kind == report.LifeDisconnected
	}
	if !dropped {
		t.Error("no disconnect named")
	}
	for _, sc := range rep.Scenarios {
		if (sc.Outcome == report.Fail || sc.Outcome == report.Error) && !strings.Contains(sc.Message, "IUT") {
			t.Errorf("%s: %s %q names no death", sc.ID, sc.Outcome, sc.Message)
		}
	}
}

// A process that exits, and one that goes deaf, are named as such.
func TestExitAndDeafnessAreNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mode, kind, cause string }{
		{"peer:crash-on:garbage", report.LifeExited, "exit status"},
		{"peer:deaf-after:10", report.LifeDeaf, "probe"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, c.mode, config{Target: Target{StepTimeout: time.Second, GreetTimeout: 2 * time.Second, MaxRestarts: 3},
				Select: regexp.MustCompile(`^(delivery\.garbage-survived|kinds\.)`), deafAfter: testDeafAfter})
			found := false
			for _, ev := range rep.IUT.Events {
				found = found || (ev.Kind == c.kind && strings.Contains(ev.Cause, c.cause))
			}
			if !found {
				t.Errorf("events %+v, want %s naming %q", rep.IUT.Events, c.kind, c.cause)
			}
		})
	}
}

func hasFinding(rep *report.Report, rule string) bool {
	for _, f := range rep.Passive.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}
