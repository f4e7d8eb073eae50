package aghtest

import (
	"strings"
	"testing"
)

// A configuration that cannot run is refused before anything starts, with
// one line.
func TestConfigErrors(t *testing.T) {
	peer := []string{"sh"}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "give exactly one of Config.Command and Config.Start"},
		{Config{Command: peer, Start: func(Settings) (func(), error) { return nil, nil }}, "give exactly one of"},
		{Config{Command: peer, Level: "gold"}, `Config.Level "gold": want core, trust or full`},
		{Config{Command: peer, Run: "("}, "Config.Run: error parsing regexp"},
		{Config{Command: []string{"no-such-agent-xyz"}}, `Config.Command: "no-such-agent-xyz" is not a command on PATH`},
		{Config{Command: peer, Suites: []string{"/no/such/dir"}}, "/no/such/dir: not a directory"},
		{Config{Command: peer, Baseline: "/no/such/baseline.yaml"}, "baseline: open /no/such/baseline.yaml"},
	} {
		_, err := newRun(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line with %q", tc.cfg, err, tc.want)
		}
	}
}

func TestSettingsOf(t *testing.T) {
	env := []string{"AGH_NATS_URL=nats://127.0.0.1:1", "AGH_NATS_TOKEN=tok", "AGH_NATS_USER=", "AGH_WORKSPACE_ID=ws", "AGH_CHANNEL=ch", "AGH_PEER_ID=iut.1", "X=y"}
	s := settingsOf(env)
	if s.NATSURL != "nats://127.0.0.1:1" || s.Token != "tok" || s.Workspace != "ws" || s.Channel != "ch" || s.PeerID != "iut.1" || len(s.Env) != len(env) {
		t.Errorf("%+v", s)
	}
}
