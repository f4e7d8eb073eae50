package harness

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// outageRun plays cfg with the built-in test IUT in mode against a single
// node the test controls, and calls midRun from the progress callback after
// the after-th scenario ends (the next scenario is held back meanwhile).
func outageRun(t *testing.T, n *node, mode string, cfg config, after int, midRun func() error) *report.Report {
	t.Helper()
	ep := broker.Endpoint{URL: n.url(), User: n.opts.Username, Password: n.opts.Password, Token: n.opts.Authorization}
	cfg.External = &ep
	var (
		mu   sync.Mutex
		done int
		err  error
	)
	cfg.Progress = func(*report.ScenarioResult) {
		mu.Lock()
		defer mu.Unlock()
		if done++; done == after {
			err = midRun()
		}
	}
	rep := runAgainst(t, mode, cfg)
	dump(t, rep)
	if err != nil {
		t.Fatal(err)
	}
	if done < after {
		t.Fatalf("only %d scenarios ended; the outage was never made", done)
	}
	return rep
}

// A broker restart in the middle of a run: the IUT reconnects and greets
// again, the report says so, the scenarios in flight are errors (not
// judged, never failures), every scenario after the restart passes, and
// the run ends.
func TestBrokerRestartMidRun(t *testing.T) {
	t.Parallel()
	n := startNode(t, "solo")
	// The concurrency group is left out: its bursts, published while the
	// IUT's own reconnect is still under way (the harness's link comes back
	// first), can be lost without the outage counting them in flight (a
	// known gap of the outage window, which ends when the harness, not the
	// IUT, is back).
	scs := slices.DeleteFunc(loadSuites(t), func(sc *scenario.Scenario) bool { return sc.Suite == "concurrency" })
	rep := outageRun(t, n, "peer", config{Target: Target{GreetTimeout: 10 * time.Second}, Parallel: 4, Scenarios: scs}, 6, func() error {
		return n.restart(50*time.Millisecond, "aghcheck-harness")
	})
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	if len(rep.Broker.Outages) != 1 {
		t.Fatalf("outages %+v, want one", rep.Broker.Outages)
	}
	o := rep.Broker.Outages[0]
	if !(o.Lost > 0 && o.Restored > o.Lost && o.IUTGreeted > o.Restored) {
		t.Errorf("outage %+v: want lost < restored < the IUT's greet", o)
	}
	voided := map[string]bool{}
	for _, id := range o.Scenarios {
		voided[id] = true
	}
	if len(voided) > 3 {
		t.Errorf("%d scenarios voided, but at most 3 were in flight: %v", len(voided), o.Scenarios)
	}
	for _, sc := range rep.Scenarios {
		switch {
		case voided[sc.ID]:
			if sc.Outcome != report.Error || !strings.Contains(sc.Message, "not judged: the broker connection was lost") {
				t.Errorf("%s: %s %q, want an error that says the broker connection was lost", sc.ID, sc.Outcome, sc.Message)
			}
		case sc.Outcome == report.Skip:
			if sc.Claim != "jetstream" && sc.Message != noDisconnect {
				t.Errorf("%s skipped: %s", sc.ID, sc.Message)
			}
		case sc.Outcome != report.Pass:
			t.Errorf("%s: %s %s, want pass: only scenarios in flight during the outage lose traffic", sc.ID, sc.Outcome, sc.Message)
		}
	}
	for _, f := range rep.Passive.Findings {
		if f.Rule == requirements.NATSRegreet.ID {
			t.Errorf("the IUT greeted again, yet: %+v", f)
		}
	}
}

// An IUT that reconnects without greeting again misses a SHOULD of the NATS
// binding: a passive warning; the run waits the outage timeout for it, no
// longer.
func TestNoGreetAfterReconnectWarns(t *testing.T) {
	t.Parallel()
	n := &node{name: "token", opts: nodeOptions("token")}
	n.opts.Username, n.opts.Password, n.opts.Authorization = "", "", "t0ken" // the silent IUT speaks token auth
	n.start(t)
	cfg := config{Target: Target{OutageTimeout: time.Second, StepTimeout: 300 * time.Millisecond}, Parallel: 1, Select: regexp.MustCompile(`^kinds\.`)}
	rep := outageRun(t, n, "silent", cfg, 1, func() error {
		return n.restart(50*time.Millisecond, "aghcheck-harness")
	})
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	if len(rep.Broker.Outages) != 1 || rep.Broker.Outages[0].Restored == 0 || rep.Broker.Outages[0].IUTGreeted != 0 {
		t.Fatalf("outages %+v, want one, restored, with no greet after it", rep.Broker.Outages)
	}
	var found bool
	for _, f := range rep.Passive.Findings {
		found = found || (f.Rule == requirements.NATSRegreet.ID && f.Level == "SHOULD" && f.Count == 1)
	}
	if !found || rep.Passive.Outcome == report.Pass {
		t.Errorf("passive %s %+v, want a %s warning", rep.Passive.Outcome, rep.Passive.Findings, requirements.NATSRegreet.ID)
	}
	// It waited the outage timeout for the greet, no longer: the scenarios
	// after the outage were played (not held until the run's end).
	if played := playedAfter(rep, rep.Broker.Outages[0].Restored); played == 0 {
		t.Errorf("no scenario was played after the broker came back")
	}
}

// playedAfter counts the scenarios whose steps were played (pass, fail or
// warn) after at, by when they sent or received something.
func playedAfter(rep *report.Report, at report.Millis) int {
	n := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Error || sc.Outcome == report.Skip {
			continue
		}
		for _, x := range sc.Exchanged {
			if x.At > at {
				n++
				break
			}
		}
	}
	return n
}

// A broker that does not come back ends the run as a harness error within
// the outage timeout, with nothing blamed on the IUT.
func TestBrokerGoneEndsRun(t *testing.T) {
	t.Parallel()
	n := startNode(t, "gone")
	cfg := config{Target: Target{OutageTimeout: time.Second}, Parallel: 4}
	rep := outageRun(t, n, "peer", cfg, 4, func() error { n.stop(); return nil })
	if !strings.Contains(rep.Error, "broker connection was lost") || !strings.Contains(rep.Error, "not restored within 1s") {
		t.Errorf("error %q, want the lost broker connection named", rep.Error)
	}
	if rep.Summary.Fail != 0 || rep.Summary.Passed {
		t.Errorf("summary %+v: want no failure blamed on the IUT and no pass", rep.Summary)
	}
	// The run ended at the outage timeout: what was in flight is not
	// judged, and nothing was started once the broker was gone (each
	// scenario after it is not played, none waited out its steps).
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Error && !strings.HasPrefix(sc.Message, "not judged: the broker connection was lost") && !strings.HasPrefix(sc.Message, "not played") {
			t.Errorf("%s: error %q, want not judged (in flight at the loss) or not played", sc.ID, sc.Message)
		}
	}
	if waited := ceilingEnded(rep); len(waited) > 0 {
		t.Errorf("steps that waited out a ceiling: %v", waited)
	}
}
