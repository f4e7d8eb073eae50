package harness

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

func TestParseFleet(t *testing.T) {
	if f, err := parseFleet("load-1:2/3"); err != nil || *f != (fleetSpec{Name: "load-1", Member: 2, Size: 3}) {
		t.Errorf("load-1:2/3 = %+v, %v", f, err)
	}
	for _, bad := range []string{"x", "x:1", "x:0/3", "x:4/3", "x:1/1", "X Y:1/2", ":1/2"} {
		if _, err := parseFleet(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Three aghcheck runs, each on its own node of a three-node cluster, play
// the concurrency scenarios together as one fleet against one peer: their
// bursts leave together, member 1's report folds the three members'
// verdicts and load figures, and a peer whose dedupe races fails there as
// it fails one run.
func TestFleetOnACluster(t *testing.T) {
	// Not parallel: many scenarios against one peer, under step ceilings
	// that the other tests' load would decide.
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	nodes := startCluster(t, "A", "B", "C")
	var conc []*scenario.Scenario
	for _, sc := range loadSuites(t) {
		if strings.HasPrefix(sc.ID, "concurrency.") {
			conc = append(conc, sc)
		}
	}
	play := func(t *testing.T, name string, faults ...string) *report.Report {
		ws, ch, id := "ws_"+strings.ReplaceAll(name, "-", "_"), "fleet", "fleet-peer.session-1"
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- peer.Run(ctx, peer.Config{URL: nodes[0].url(), User: clusterUser, Password: clusterPassword,
				Workspace: ws, Channel: ch, PeerID: id, Faults: faults})
		}()
		defer func() {
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("peer: %v", err)
			}
		}()
		reps := make([]*report.Report, len(nodes))
		var wg sync.WaitGroup
		for k, n := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ep := broker.Endpoint{URL: n.url(), User: clusterUser, Password: clusterPassword}
				rep, err := runConfig(context.Background(), config{Target: Target{External: &ep, IUTPeer: id, Workspace: ws, Channel: ch,
					GreetTimeout: 10 * time.Second}, Scenarios: conc, Fleet: &fleetSpec{Name: name, Member: k + 1, Size: len(nodes)}})
				if rep == nil || rep.Error != "" {
					t.Errorf("member %d: %v %v", k+1, err, rep)
				}
				reps[k] = rep
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		one := reps[0]
		if f := one.Fleet; f == nil || f.Members != 3 || len(f.Notes) > 0 {
			t.Fatalf("fleet %+v, want the three members' verdicts", one.Fleet)
		}
		for k, rep := range reps[1:] {
			if rep.Fleet != nil {
				t.Errorf("member %d's report says it is the fleet's", k+2)
			}
		}
		if l, alone := one.Summary.Load, reps[1].Summary.Load; l == nil || alone == nil || l.Messages != 3*alone.Messages {
			t.Errorf("fleet load %+v, want three times one member's %+v", l, alone)
		}
		return one
	}

	t.Run("correct", func(t *testing.T) {
		rep := play(t, "fleet-ok")
		for _, sc := range rep.Scenarios {
			if sc.Outcome != report.Pass || len(sc.Notes) < 2 {
				t.Errorf("%s: %s %s %v", sc.ID, sc.Outcome, sc.Message, sc.Notes)
			}
		}
	})
	t.Run("racy-dedupe", func(t *testing.T) {
		rep := play(t, "fleet-racy", "racy-dedupe")
		for _, sc := range rep.Scenarios {
			if sc.ID == "concurrency.opening-copies-at-once" && sc.Outcome != report.Fail {
				t.Errorf("%s: %s %s, want a fail", sc.ID, sc.Outcome, sc.Message)
			}
		}
	})
}

// A request of a member's verdicts that member 1 never answers (lost on
// the way) is sent again: the verdicts reach member 1 on a later one, not
// after the five-minute deadline.
func TestFleetVerdictsSentAgain(t *testing.T) {
	t.Parallel()
	srv := brokertest.Start(t, &server.Options{})
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	two := &fleet{fleetSpec: fleetSpec{Name: "lossy", Member: 2, Size: 2}, nc: nc}
	var asked atomic.Int32
	sub, err := nc.Subscribe(two.subject("results"), func(m *nats.Msg) {
		if asked.Add(1) > 1 { // the first request is lost
			_ = m.Respond([]byte("ok"))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Scenarios: []*report.ScenarioResult{{ID: "concurrency.x", Outcome: report.Pass}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := two.send(ctx, rep, []int{0}); err != nil {
		t.Fatalf("send: %v", err)
	}
	if n := asked.Load(); n != 2 {
		t.Fatalf("member 1 was asked %d times, want 2", n)
	}
}
