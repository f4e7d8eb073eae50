package harness

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
)

// TestAttachToRunningPeer certifies a peer that is already on a broker the
// harness did not start (--nats-url with user credentials, --iut-peer): the
// way a user certifies a peer that runs elsewhere.
func TestAttachToRunningPeer(t *testing.T) {
	t.Parallel()
	ep := startPasswordServer(t)

	const ws, ch, id = "ws_attach", "builders", "remote-peer.session-1"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- peer.Run(ctx, peer.Config{
			URL: ep.URL, User: ep.User, Password: ep.Password,
			Workspace: ws, Channel: ch, PeerID: id,
		})
	}()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("peer: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("peer did not stop")
		}
	}()

	rep, err := runConfig(context.Background(), config{Target: Target{External: &ep,
		IUTPeer:   id,
		Workspace: ws,
		Channel:   ch,

		GreetTimeout: 10 * time.Second}, Scenarios: loadSuites(t),

		Select: regexp.MustCompile(`^(kinds|lifecycle|initiator)\.`),
	})
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	dump(t, rep)
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	if rep.IUT.PeerID != id {
		t.Errorf("attached to %q, want %q", rep.IUT.PeerID, id)
	}
	s := rep.Summary
	if s.Pass == 0 || s.Fail+s.Error+s.Warn > 0 {
		t.Errorf("summary %+v, want only passes", s)
	}
	// An attached peer has no start-up file: it is asked in band, and
	// plays the initiator all the same.
	if rep.IUT.Initiation != formInBand {
		t.Errorf("initiation %q, want %q", rep.IUT.Initiation, formInBand)
	}
	initiated := 0
	for _, sc := range rep.Scenarios {
		if strings.HasPrefix(sc.ID, "initiator.") && sc.Outcome == report.Pass {
			initiated++
		}
	}
	if initiated < 15 {
		t.Errorf("%d initiator scenarios passed in band, want at least 15", initiated)
	}
}

// Attaching with the wrong credentials is a harness error, not an IUT failure.
func TestAttachWithBadCredentialsIsHarnessError(t *testing.T) {
	t.Parallel()
	ep := startPasswordServer(t)
	ep.Password = "wrong"
	rep, err := runConfig(context.Background(), config{Target: Target{External: &ep, IUTPeer: "nobody.session-1",
		GreetTimeout: 2 * time.Second}, Scenarios: loadSuites(t),
	})
	var he *HarnessError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a HarnessError", err)
	}
	if rep != nil && rep.Summary.Fail > 0 {
		t.Errorf("bad credentials blamed on the IUT: %+v", rep.Summary)
	}
}

// startPasswordServer starts a nats-server that only user ci / s3cret may
// use, standing in for a deployment the harness did not start, and returns
// its endpoint. It is shut down when the test ends.
func startPasswordServer(t *testing.T) broker.Endpoint {
	t.Helper()
	srv := brokertest.Start(t, &server.Options{Username: "ci", Password: "s3cret"})
	return broker.Endpoint{URL: srv.ClientURL(), User: "ci", Password: "s3cret"}
}

// On a shared broker the IUT's peer id may also be at work in another
// workspace; that traffic is not part of the run (it would otherwise be
// taken for the IUT's answer to the harness's whois, or counted as its
// publications).
func TestAttachIgnoresOtherWorkspaces(t *testing.T) {
	bus := newBus(time.Now(), "ws_run", "builders", false, floodBudget{100, defaultFloodBytes}, time.Now)
	bus.expectIUT("remote-peer.session-1")
	other := []byte(`{"protocol":"agh-network/v0","id":"m1","workspace_id":"ws_other","kind":"greet","channel":"builders",` +
		`"from":"remote-peer.session-1","ts":1,"body":{"peer_card":{"peer_id":"remote-peer.session-1","profiles_supported":[],` +
		`"capabilities":[],"artifacts_supported":[],"trust_modes_supported":[]}}}`)
	bus.receive("agh.network.v0.ws_other.builders.broadcast", other)
	if len(bus.passive) != 0 || bus.iutCount != 0 {
		t.Fatalf("another workspace's traffic was attributed to the IUT: %d passive, %d counted", len(bus.passive), bus.iutCount)
	}
	select {
	case m := <-bus.greeted:
		t.Fatalf("took a greet from another workspace for the IUT's: %s", m.subject)
	default:
	}
	// The same envelope in this run's workspace is the IUT's.
	mine := bytes.Replace(other, []byte("ws_other"), []byte("ws_run"), 1)
	bus.receive("agh.network.v0.ws_run.builders.broadcast", mine)
	if len(bus.passive) != 1 {
		t.Fatalf("the IUT's own greet was not attributed: %d passive", len(bus.passive))
	}
}

// An attached peer that goes away mid-run is seen by the whois probes it
// no longer answers (no process, no embedded broker to watch): named deaf,
// awaited for a new greet, then gone; what it could not play is an error
// and the run is incomplete.
func TestAttachedPeerThatLeavesIsNamed(t *testing.T) {
	t.Parallel()
	ep := startPasswordServer(t)
	const ws, ch, id = "ws_leave", "builders", "leaving-peer.session-1"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- peer.Run(ctx, peer.Config{URL: ep.URL, User: ep.User, Password: ep.Password, Workspace: ws, Channel: ch, PeerID: id})
	}()
	defer func() { cancel(); <-done }()

	rep, err := runConfig(context.Background(), config{Target: Target{External: &ep, IUTPeer: id, Workspace: ws, Channel: ch,

		StepTimeout:  time.Second,
		GreetTimeout: time.Second}, Scenarios: loadSuites(t),
		Select:   regexp.MustCompile(`^kinds\.`),
		Parallel: 1,

		Progress: func(*report.ScenarioResult) { cancel() }, // the peer leaves after the first scenario
	})
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	kinds := map[string]bool{}
	for _, ev := range rep.IUT.Events {
		kinds[ev.Kind] = true
	}
	if !kinds[report.LifeDeaf] || !kinds[report.LifeGone] {
		t.Errorf("events %v, want deaf then gone", rep.IUT.Events)
	}
	errs := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Error {
			errs++
		}
		if sc.Outcome == report.Fail && !bytes.Contains([]byte(sc.Message), []byte("IUT")) {
			t.Errorf("%s fails with %q, naming no death", sc.ID, sc.Message)
		}
	}
	if errs == 0 || !rep.Summary.Incomplete || rep.Summary.Passed {
		t.Errorf("summary %+v (%d errors), want an incomplete run with errors that earns nothing", rep.Summary, errs)
	}
}

// --iut-peer alone is enough: the run finds the peer's workspace and
// channel from its own traffic, and its presence greet stands for the join
// greet it sent before the run. A peer that sends nothing is named with
// the flags that would tell the run where it is.
func TestAttachFindsThePeer(t *testing.T) {
	t.Parallel()
	ep := startPasswordServer(t)
	const ws, ch, id = "ws_alpha", "builders", "my-agent.peer-1"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- peer.Run(ctx, peer.Config{URL: ep.URL, User: ep.User, Password: ep.Password, Workspace: ws, Channel: ch, PeerID: id,
			NoControl: true, GreetInterval: time.Second})
	}()
	defer func() { cancel(); <-done }()

	rep, err := runConfig(context.Background(), config{Target: Target{External: &ep, IUTPeer: id,
		GreetTimeout: 5 * time.Second}, Scenarios: loadSuites(t),
		Select: regexp.MustCompile(`^kinds\.`)})
	if rep == nil || rep.Error != "" {
		t.Fatalf("no run: %v", err)
	}
	if rep.Broker.Workspace != ws || rep.Broker.Channel != ch {
		t.Errorf("run in %s/%s, want the peer's %s/%s", rep.Broker.Workspace, rep.Broker.Channel, ws, ch)
	}
	for _, sc := range rep.Scenarios {
		if sc.ID == "kinds.greet-announces-card" && sc.Outcome != report.Pass {
			t.Errorf("%s: %s %q, want its presence greet judged as its join greet", sc.ID, sc.Outcome, sc.Message)
		}
	}

	rep, err = runConfig(context.Background(), config{Target: Target{External: &ep, IUTPeer: "nobody.peer-9", GreetTimeout: 500 * time.Millisecond}, Scenarios: loadSuites(t)})
	var he *HarnessError
	if !errors.As(err, &he) || !bytes.Contains([]byte(rep.Error), []byte("--workspace and --channel")) {
		t.Errorf("err %v, report error %q: want a harness error naming --workspace and --channel", err, rep.Error)
	}
}
