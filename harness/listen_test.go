package harness

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
)

// checkUnheard asserts what a run of a peer that listens on no subject
// its directed envelopes reach says: NATS-PEER-SUBJECT, on the scenarios
// that check it and nowhere else; every other scenario that would send the
// IUT directed traffic not played (an error, never a failure) without a
// step that waited for an answer; no claim earned.
func checkUnheard(t *testing.T, rep *report.Report, why string) {
	t.Helper()
	rule := requirements.NATSListen.ID
	named, unplayed := 0, 0
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Kind == "expect" && st.Outcome == report.Fail && strings.Contains(st.Message, "no matching") {
				t.Errorf("%s step %d waited for an answer nobody could send: %s", sc.ID, st.Index, st.Message)
			}
		}
		switch {
		case sc.Outcome == report.Fail && slices.Contains(sc.Requirements, rule):
			named++
			if !strings.Contains(sc.Message, rule+": nobody subscribes to the IUT's peer subject") || !strings.Contains(sc.Message, why) {
				t.Errorf("%s fails with %q, want %s named with why (%s)", sc.ID, sc.Message, rule, why)
			}
		case sc.Outcome == report.Fail:
			t.Errorf("%s fails with %q, want only the scenarios that check %s to fail", sc.ID, sc.Message, rule)
		case sc.Outcome == report.Error:
			unplayed++
			if !strings.HasPrefix(sc.Message, "not played: nobody subscribes to the IUT's peer subject") {
				t.Errorf("%s: error %q, want not played for nobody listening", sc.ID, sc.Message)
			}
		}
	}
	if named == 0 || unplayed == 0 {
		t.Errorf("%d scenarios name %s, %d not played: want both", named, rule, unplayed)
	}
	if !rep.Summary.Incomplete || rep.Summary.Passed || rep.Summary.Claim != "none" {
		t.Errorf("summary %+v, want an incomplete run that earns no claim", rep.Summary)
	}
	for _, c := range rep.Claims {
		if c.Earned {
			t.Errorf("claim %s earned", c.Name)
		}
	}
}

// A peer that subscribes to a peer subject of its own making, not the
// one its route token names, is named at once for NATS-PEER-SUBJECT, with
// the subject it does listen on; what needs directed delivery is not
// played, not failed.
func TestNobodyListensOnThePeerSubject(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "peer:listen-wrong-route", config{})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	dump(t, rep)
	// The embedded broker shows where the IUT listens instead.
	checkUnheard(t, rep, "the IUT's connections subscribe to ")
}

// On a broker the run did not start, nobody listening is told by the
// broker's no-responders answer, for an attached peer too.
func TestNobodyListensOnAnExternalBroker(t *testing.T) {
	t.Parallel()
	// It greets on its interval: the harness's whois, on its peer subject,
	// never reaches it.
	rep := runAttachedPeer(t, "ws_unheard", "unheard-peer.session-1", "listen-wrong-route", 5*time.Second, `^(kinds|nats)\.`)
	dump(t, rep)
	checkUnheard(t, rep, "the broker answered a message published there with no responders")
}

// On a broker the run did not start, a peer whose subscription to its
// own subject closed (deaf on it, still connected and greeting) is told
// deaf by the broker's no-responders answer at the first unanswered
// probe, not after a window without answers.
func TestDeafOnAnExternalBrokerIsToldByNoResponders(t *testing.T) {
	t.Parallel()
	rep := runAttachedPeer(t, "ws_deafened", "deafened-peer.session-1", "deaf-on:whois-query-type", 2*time.Second, `^receiver\.WHOIS-QUERY-TYPE\.number$`)
	dump(t, rep)
	deaf := false
	for _, ev := range rep.IUT.Events {
		if ev.Kind == report.LifeDeaf {
			deaf = true
			if !strings.Contains(ev.Cause, "it no longer subscribes to its peer subject") || !strings.Contains(ev.Cause, "no responders") {
				t.Errorf("deafness %s, want it told by the broker's no responders", ev)
			}
		}
	}
	if !deaf {
		t.Errorf("events %+v, want the IUT named deaf", rep.IUT.Events)
	}
}

// runAttachedPeer runs the scenarios sel selects against a built-in peer
// with fault, started on a broker the run did not start and attached to by
// its id in workspace ws, and stops the peer when the run ends.
func runAttachedPeer(t *testing.T, ws, id, fault string, greet time.Duration, sel string) *report.Report {
	t.Helper()
	ep := startPasswordServer(t)
	const ch = "builders"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- peer.Run(ctx, peer.Config{URL: ep.URL, User: ep.User, Password: ep.Password, Workspace: ws, Channel: ch, PeerID: id,
			GreetInterval: 200 * time.Millisecond, Faults: []string{fault}})
	}()
	defer func() { cancel(); <-done }()
	rep, err := runConfig(context.Background(), config{Target: Target{External: &ep, IUTPeer: id, Workspace: ws, Channel: ch,
		GreetTimeout: greet, StepTimeout: 3 * time.Second}, Scenarios: loadSuites(t), Select: regexp.MustCompile(sel)})
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	return rep
}
