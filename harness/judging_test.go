package harness

import (
	"encoding/json"
	"github.com/aghcheck/aghcheck/internal/randid"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// welcome answers every greet but the IUT's own with a directed whois
// request from the IUT's peer id: discovery traffic a scenario's greet
// causes, which no scenario may take for an answer.
func welcome(cfg peer.Config) (func(), error) {
	opts := []nats.Option{}
	opts = append(opts, cfg.Auth()...)
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, err
	}
	_, err = nc.Subscribe(agh.BroadcastSubject(cfg.Workspace, cfg.Channel), func(m *nats.Msg) {
		var g struct{ Kind, From string }
		if json.Unmarshal(m.Data, &g) != nil || g.Kind != "greet" || g.From == cfg.PeerID {
			return
		}
		ask, _ := json.Marshal(map[string]any{
			"protocol": agh.Protocol, "id": randid.UUID(), "workspace_id": cfg.Workspace,
			"kind": "whois", "channel": cfg.Channel, "from": cfg.PeerID, "to": g.From, "ts": time.Now().Unix(),
			"proof": nil, "body": map[string]any{"type": "request", "query": g.From},
		})
		_ = nc.Publish(agh.PeerSubject(cfg.Workspace, cfg.Channel, g.From), ask)
	})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return nc.Close, nc.Flush()
}

// A peer that answers work with traces only, never the accepted receipt (a
// SHOULD of the lifecycle), keeps every claim: the steps that ask for the
// receipt warn, every MUST part of their scenarios passes.
func TestTracesOnlyPeerKeepsItsClaims(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "peer:no-accepted-receipt", config{})
	dump(t, rep)
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	s := rep.Summary
	if !s.Passed || s.Claim != "Full Peer" || s.Fail+s.Error > 0 || s.Warn == 0 {
		t.Fatalf("summary %+v, want Full Peer earned with warnings and no failure", s)
	}
	for _, rr := range rep.Requirements {
		switch {
		case rr.ID == "LIFE-RECEIPT-ON-OPEN":
			if rr.Outcome != report.Warn {
				t.Errorf("%s: %s, want warn", rr.ID, rr.Outcome)
			}
		case rr.Level == "MUST" && rr.Outcome != report.Pass:
			t.Errorf("%s: %s, want pass: only the SHOULD was missed", rr.ID, rr.Outcome)
		}
	}
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Skip && strings.Contains(sc.Message, "not offered") {
			t.Errorf("%s skipped as %q: a SHOULD not met is a warning", sc.ID, sc.Message)
		}
	}
}

// A peer that drops everything is silent too: no silence step earns it
// credit, and no requirement only silence can show passes.
func TestDroppingPeerEarnsNoCreditForSilence(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "silent", config{Target: Target{StepTimeout: 300 * time.Millisecond}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	silences := 0
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if st.Kind != "expect_silence" {
				continue
			}
			silences++
			if st.Outcome == report.Pass {
				t.Errorf("%s step %d: a silence passed for a peer that drops everything", sc.ID, st.Index)
			}
		}
	}
	if silences == 0 {
		t.Fatal("no silence step was played")
	}
	for _, id := range []string{"LIFE-NO-INVENTED-WORK", "ENV-KIND-DIRECT", "DELIV-EXPIRED-REJECT", "LIFE-TERMINAL-FINAL", "NATS-PEER-SUBJECT"} {
		if rr := requirement(rep, id); rr.Outcome == report.Pass {
			t.Errorf("%s passed for a peer that drops everything", id)
		}
	}
	// Its card lists no trust profile: the trust cases are not played, and
	// the claim is not earned.
	for _, sc := range rep.Scenarios {
		if sc.Claim == "trust" && (sc.Outcome != report.Skip || !strings.Contains(sc.Message, "does not advertise profile agh-network.trust.ed25519-jcs/v1")) {
			t.Errorf("%s: %s %q, want skipped for the trust profile it does not advertise", sc.ID, sc.Outcome, sc.Message)
		}
	}
	if c := claim(rep, "Trust Peer"); c.Earned {
		t.Errorf("Trust Peer earned without a trust case played")
	}
}

// Test peers greet before their scenario's first send (unless the scenario
// wants strangers), and the discovery traffic those greets cause (here: the
// IUT asks every newcomer who it is) breaks no scenario.
func TestTestPeersGreet(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "welcoming-peer", config{})
	dump(t, rep)
	if s := rep.Summary; !s.Passed || s.Claim != "Full Peer" || s.Fail+s.Warn+s.Error > 0 {
		t.Fatalf("summary %+v, want Full Peer with no warning", s)
	}

	sc := func(id string, greet bool) *scenario.Scenario {
		c := &scenario.Scenario{ID: id, Title: id, Requirements: []string{"LIFE-NO-INVENTED-WORK"}, Level: "MUST",
			Claim: "core-receiver", Peers: []scenario.Peer{{Name: "alice"}, {Name: "signer", Key: true}}, Greet: &greet}
		c.Steps = []scenario.Step{{Wait: scenario.Duration(time.Millisecond)}, {Send: &scenario.Send{To: "iut",
			Envelope: map[string]any{"kind": "say", "surface": "thread", "thread_id": "{{thread.t}}", "body": map[string]any{"text": "hi"}}}}}
		return c
	}
	rep = runAgainst(t, "peer", config{Scenarios: []*scenario.Scenario{sc("greets", true), sc("stranger", false)}, Level: "core"})
	ck, err := agh.NewChecker(agh.Options{Now: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Scenarios {
		var sent []string
		for _, e := range res.Exchanged {
			if e.Direction != "sent" {
				continue
			}
			var env struct{ Kind string }
			_ = json.Unmarshal(e.Envelope, &env)
			sent = append(sent, e.Peer+":"+env.Kind)
			if r := ck.CheckBytes(e.Envelope); env.Kind == "greet" && (len(r.Findings) > 0 || r.Trust == "rejected") {
				t.Errorf("%s: %s's greet is not valid (trust %s): %v", res.ID, e.Peer, r.Trust, r.Findings)
			}
		}
		got, want := strings.Join(sent, " "), "alice:greet signer:greet alice:say"
		if res.ID == "stranger" {
			want = "alice:say"
		}
		if got != want {
			t.Errorf("%s sent %q, want %q", res.ID, got, want)
		}
	}
	if rep.Passive.Outcome == report.Fail {
		t.Errorf("passive %+v", rep.Passive.Findings)
	}
}
