package harness

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// An IUT the caller starts itself (Config.Start): it gets the contract's
// environment, is identified by its greet, can be dropped by the embedded
// broker like a spawned one, and is stopped before the broker closes.
func TestStartInProcess(t *testing.T) {
	t.Parallel()
	var env []string
	stopped, peerErr := false, make(chan error, 1)
	cfg := config{Target: Target{Start: func(e []string) (func(), error) {
		env = e
		get := func(key string) string {
			for _, kv := range e {
				if v, ok := strings.CutPrefix(kv, key+"="); ok {
					return v
				}
			}
			return ""
		}
		pc := peer.Config{URL: get(iutenv.NATSURL), Token: get(iutenv.NATSToken), User: get(iutenv.NATSUser), Password: get(iutenv.NATSPassword), Workspace: get(iutenv.WorkspaceID),
			Channel: get(iutenv.Channel), PeerID: get(iutenv.PeerID)}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { peerErr <- peer.Run(ctx, pc) }()
		return func() { cancel(); stopped = true; <-peerErr }, nil
	}}, Scenarios: loadSuites(t), Select: regexp.MustCompile(`^nats\.(greet-after-reconnect|directed-replies)`),
	}
	rep, err := runConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !stopped {
		t.Error("the started IUT was not stopped")
	}
	if !strings.HasPrefix(rep.IUT.PeerID, "iut.") || len(rep.IUT.Command) != 0 {
		t.Errorf("IUT %+v", rep.IUT)
	}
	for _, want := range []string{"AGH_NATS_URL=nats://127.0.0.1:", "AGH_WORKSPACE_ID=" + rep.Broker.Workspace, "AGH_PEER_ID=" + rep.IUT.PeerID} {
		if !strings.Contains(strings.Join(env, "\n"), want) {
			t.Errorf("environment %q lacks %s", env, want)
		}
	}
	played := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome != report.Skip {
			played++
			if sc.Outcome != report.Pass {
				t.Errorf("%s: %s %s", sc.ID, sc.Outcome, sc.Message)
			}
		}
	}
	if played != 2 {
		t.Errorf("%d scenarios played, want 2", played)
	}

	// Exactly one way to the IUT.
	cfg.Command = []string{"x"}
	if _, err := runConfig(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "exactly one of") {
		t.Errorf("Start and Command: %v", err)
	}
}

// The IUT is told a broker user of its own (no token, not the harness's
// password), which every output redacts; the embedded broker's JetStream
// store sits under the run's own directory, removed when the run ends.
func TestConfinedIUTContract(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.MkdirTemp's default: the run's directory lands here
	var env iutenv.Env
	var stores []string
	peerErr := make(chan error, 1)
	cfg := config{Target: Target{Start: func(e []string) (func(), error) {
		env = iutenv.Parse(e)
		stores, _ = filepath.Glob(filepath.Join(tmp, "aghcheck-run-*", "aghcheck-js-*"))
		pc := peer.Config{URL: env.URL, Token: env.Token, User: env.User, Password: env.Password, Workspace: env.Workspace,
			Channel: env.Channel, PeerID: env.PeerID}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { peerErr <- peer.Run(ctx, pc) }()
		return func() { cancel(); <-peerErr }, nil
	}}, Scenarios: loadSuites(t), Select: regexp.MustCompile(`^jetstream\.`),
	}
	rep, err := runConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if env.User != broker.IUTUser || env.Password == "" || env.Token != "" {
		t.Errorf("the IUT was told %+v, want a user of its own and no token", env)
	}
	if got := sanitize.Redact("pw=" + env.Password); strings.Contains(got, env.Password) {
		t.Errorf("the IUT's password is not redacted: %s", got)
	}
	if !rep.Broker.JetStream || rep.Summary.Pass != 1 {
		t.Errorf("JetStream %v, summary %+v", rep.Broker.JetStream, rep.Summary)
	}
	if len(stores) != 1 {
		t.Errorf("JetStream stores under the run's directory in %s while the IUT ran: %q, want one", tmp, stores)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v in %s", left, tmp)
	}
}
