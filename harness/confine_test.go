package harness

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// streamName is the run's JetStream stream for workspace ws (setupJetStream).
func streamName(ws string) string {
	return "AGHCHECK_" + strings.NewReplacer("-", "_", ".", "_").Replace(ws)
}

// reachOut does, with the IUT's credentials and beside the reference peer,
// what a hostile IUT would: delete the run's stream, ask the broker's
// system account, publish on a channel-only subject, listen to $SYS and
// to every workspace. The confined IUT is refused each of them.
func reachOut(cfg peer.Config) (func(), error) {
	opts := []nats.Option{nats.Name("helper"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})}
	opts = append(opts, cfg.Auth()...)
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, err
	}
	for _, s := range []string{"$JS.API.STREAM.DELETE." + streamName(cfg.Workspace), "$SYS.REQ.SERVER.PING", agh.SubjectPrefix + "." + cfg.Channel + ".broadcast"} {
		_ = nc.Publish(s, []byte("{}"))
	}
	for _, s := range []string{"$SYS.>", agh.SubjectPrefix + ".>"} {
		_, _ = nc.SubscribeSync(s)
	}
	return nc.Close, nc.Flush()
}

// What the confined IUT was refused is in the report; the run's stream
// survives its attempt to delete it (the JetStream scenario passes); a
// publish on a protocol subject outside the workspace fails
// NATS-WORKSPACE-SUBJECT once, passively; the rest ($JS.API, $SYS) is
// listed and judged by no rule.
func TestConfinedIUTIsRefused(t *testing.T) {
	t.Parallel()
	rep := passingRun(t, "reaching-peer", "the run's stream must outlive the IUT's attempt to delete it",
		"jetstream.ack-is-not-receipt", "lifecycle.work-completes")
	ws := rep.Broker.Workspace
	want := []string{
		"publish on $JS.API.STREAM.DELETE." + streamName(ws),
		"publish on $SYS.REQ.SERVER.PING",
		"publish on agh.network.v0." + rep.Broker.Channel + ".broadcast",
		"subscribe to $SYS.>",
		"subscribe to agh.network.v0.>",
	}
	for _, w := range want {
		if !slices.Contains(rep.IUT.Refused, w) {
			t.Errorf("refused %q is not listed: %q", w, rep.IUT.Refused)
		}
	}
	var found []report.PassiveFinding
	for _, f := range rep.Passive.Findings {
		if f.Rule == requirements.NATSWorkspaceSubject.ID {
			found = append(found, f)
		}
	}
	if len(found) != 1 || found[0].Count != 1 || !strings.Contains(found[0].Example, ".broadcast") || rep.Passive.Outcome != report.Fail {
		t.Errorf("passive %s findings %+v (outcome %s), want one, for the channel-only publish", requirements.NATSWorkspaceSubject.ID, found, rep.Passive.Outcome)
	}
	if rep.Broker.Unconfined {
		t.Error("the embedded broker's report says the IUT is unconfined")
	}
}

// impersonate publishes, with the IUT's credentials beside the reference
// peer, a greet of every test peer that greets, as that peer: the same
// card under a new id, so it is no replay.
func impersonate(cfg peer.Config) (func(), error) {
	opts := []nats.Option{nats.Name("helper")}
	opts = append(opts, cfg.Auth()...)
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, err
	}
	bcast := agh.BroadcastSubject(cfg.Workspace, cfg.Channel)
	_, err = nc.Subscribe(bcast, func(m *nats.Msg) {
		var g map[string]any
		if json.Unmarshal(m.Data, &g) != nil || g["kind"] != "greet" || g["from"] == cfg.PeerID || g["proof"] != nil {
			return
		}
		g["id"], g["ts"] = randid.UUID(), time.Now().Unix()
		forged, _ := json.Marshal(g)
		_ = nc.Publish(bcast, forged)
	})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return nc.Close, nc.Flush()
}

// An envelope the IUT publishes as one of the harness's test peers is a
// sender finding of its own (ENV-FROM-SENDER), counted once in the passive
// verdict and no scenario's receiver verdict: every scenario still passes.
func TestImpersonationIsAFinding(t *testing.T) {
	t.Parallel()
	rep := passingRun(t, "impersonating-peer", "impersonation is the sender's defect, judged passively",
		"lifecycle.work-completes", "kinds.whois-directed-answered")
	var found []report.PassiveFinding
	for _, f := range rep.Passive.Findings {
		if f.Rule == requirements.SenderFromSelf.ID {
			found = append(found, f)
		}
	}
	if len(found) != 1 || found[0].Count < len(rep.Scenarios) || found[0].Level != "MUST" || rep.Passive.Outcome != report.Fail || rep.Summary.Passed {
		t.Fatalf("passive %s findings %+v (outcome %s, passed %v), want one, counting each forged greet", requirements.SenderFromSelf.ID, found, rep.Passive.Outcome, rep.Summary.Passed)
	}
	if !strings.Contains(found[0].Example, "a test peer of aghcheck's") {
		t.Errorf("example %q does not say whom it spoke as", found[0].Example)
	}
}

// passingRun plays the scenarios ids against the test IUT mode, and wants
// every one to pass, for the reason why.
func passingRun(t *testing.T, mode, why string, ids ...string) *report.Report {
	t.Helper()
	scs := slices.DeleteFunc(loadSuites(t), func(sc *scenario.Scenario) bool { return !slices.Contains(ids, sc.ID) })
	rep := runAgainst(t, mode, config{Scenarios: scs})
	dump(t, rep)
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	for _, sc := range rep.Scenarios {
		if sc.Outcome != report.Pass {
			t.Errorf("%s: %s %s (%s)", sc.ID, sc.Outcome, sc.Message, why)
		}
	}
	return rep
}
