package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
)

// senderRun plays the scenarios run selects (all for "") at the built-in
// peer, started in-process with faults, judged by a harness whose clock is
// skew behind the peer's (a peer whose clock runs skew ahead).
func senderRun(t *testing.T, run string, skew time.Duration, faults ...string) *report.Report {
	t.Helper()
	done := make(chan error, 1)
	start := func(env []string) (func(), error) {
		e := iutenv.Parse(env)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			done <- peer.Run(ctx, peer.Config{URL: e.URL, Token: e.Token, User: e.User, Password: e.Password,
				Workspace: e.Workspace, Channel: e.Channel, PeerID: e.PeerID, OrdersFile: e.Initiate, Faults: faults})
		}()
		return func() { cancel(); <-done }, nil
	}
	opts := harness.Options{
		Target: harness.Target{Start: start, Now: func() time.Time { return time.Now().Add(-skew) }},
		Run:    run,
	}
	plan, err := opts.Plan()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func coreSender(t *testing.T, rep *report.Report) report.ClaimResult {
	t.Helper()
	i := slices.IndexFunc(rep.Claims, func(c report.ClaimResult) bool { return c.Name == "Core Sender" })
	if i < 0 {
		t.Fatalf("no Core Sender claim in %+v", rep.Claims)
	}
	return rep.Claims[i]
}

func passiveLevel(rep *report.Report, rule string) string {
	for _, f := range rep.Passive.Findings {
		if f.Rule == rule {
			return f.Level
		}
	}
	return ""
}

// A sender whose ts is in milliseconds (emit:ENV-TS-SECONDS: its receipts
// say the year 58,000) breaks the Envelope page's "MUST be Unix time in
// seconds": it fails passive validation at MUST, and with it Core Sender.
// A peer whose clock is two minutes ahead sends seconds all the same: a
// SHOULD (ENV-TS-CLOCK) that warns and costs no claim.
func TestSenderTimesInMillisecondsFailCoreSender(t *testing.T) {
	t.Parallel()
	t.Run("milliseconds", func(t *testing.T) {
		t.Parallel()
		rep := senderRun(t, `^(lifecycle\.work-completes|kinds\.whois-directed-answered)$`, 0, peer.FaultEmit+"ENV-TS-SECONDS")
		if got := passiveLevel(rep, "ENV-TS-SECONDS"); got != "MUST" {
			t.Errorf("passive ENV-TS-SECONDS %q, want MUST (findings %+v)", got, rep.Passive.Findings)
		}
		if rep.Passive.Outcome != report.Fail {
			t.Errorf("passive validation %s, want fail", rep.Passive.Outcome)
		}
		if cs := coreSender(t, rep); cs.Earned || !strings.Contains(strings.Join(cs.Why, "; "), "ENV-TS-SECONDS") {
			t.Errorf("Core Sender earned %t, why %q: want it lost to ENV-TS-SECONDS", cs.Earned, cs.Why)
		}
	})
	t.Run("clock two minutes ahead", func(t *testing.T) {
		t.Parallel()
		// Every scenario, so that the claim can be earned: what the test
		// peers send is two minutes old to the peer, well inside its
		// 300 s replay age, and no expiry they set is nearer than that.
		rep := senderRun(t, "", 2*time.Minute)
		if got := passiveLevel(rep, "ENV-TS-CLOCK"); got != "SHOULD" {
			t.Errorf("passive ENV-TS-CLOCK %q, want SHOULD (findings %+v)", got, rep.Passive.Findings)
		}
		if got := passiveLevel(rep, "ENV-TS-SECONDS"); got != "" {
			t.Errorf("a skewed clock drew ENV-TS-SECONDS (%s)", got)
		}
		if rep.Passive.Outcome != report.Warn {
			t.Errorf("passive validation %s, want warn", rep.Passive.Outcome)
		}
		if cs := coreSender(t, rep); !cs.Earned {
			t.Errorf("Core Sender not earned: %q", cs.Why)
		}
	})
}
