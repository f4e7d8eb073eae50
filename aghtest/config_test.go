package aghtest

import (
	"strings"
	"testing"
)

// A configuration that cannot run is refused before anything starts, with
// one line.
func TestConfigErrors(t *testing.T) {
	peer := []string{"sh"}
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"no IUT":        {Config{}, "give exactly one of Config.Command and Config.Start"},
		"two IUTs":      {Config{Command: peer, Start: func(Settings) (func(), error) { return nil, nil }}, "give exactly one of"},
		"level":         {Config{Command: peer, Level: "gold"}, `Config.Level: "gold": want core-sender, core-receiver, core, trust, nats or full`},
		"run syntax":    {Config{Command: peer, Run: "("}, "Config.Run: error parsing regexp"},
		"run matching":  {Config{Command: peer, Run: "^lifecyle\\."}, `Config.Run: "^lifecyle\\." matches no scenario id`},
		"command":       {Config{Command: []string{"no-such-agent-xyz"}}, `Config.Command: "no-such-agent-xyz" is not a command on PATH`},
		"suite":         {Config{Command: peer, Suites: []string{"/no/such/dir"}}, "/no/such/dir: not a directory"},
		"baseline file": {Config{Command: peer, Baseline: "/no/such/baseline.yaml"}, "Config.Baseline: baseline: open /no/such/baseline.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := newRun(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%+v: %v, want one line with %q", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestSettingsOf(t *testing.T) {
	env := []string{"AGH_NATS_URL=nats://127.0.0.1:1", "AGH_NATS_TOKEN=tok", "AGH_NATS_USER=", "AGH_WORKSPACE_ID=ws", "AGH_CHANNEL=ch", "AGH_PEER_ID=iut.1", "AGH_INITIATE=/tmp/orders.json", "X=y"}
	s := settingsOf(env)
	if s.NATSURL != "nats://127.0.0.1:1" || s.Token != "tok" || s.Workspace != "ws" || s.Channel != "ch" || s.PeerID != "iut.1" || s.Orders != "/tmp/orders.json" || len(s.Env) != len(env) {
		t.Errorf("%+v", s)
	}
	// The confined IUT's own user on the embedded broker.
	s = settingsOf([]string{"AGH_NATS_URL=nats://127.0.0.1:1", "AGH_NATS_TOKEN=", "AGH_NATS_USER=iut", "AGH_NATS_PASSWORD=pw"})
	if s.Token != "" || s.User != "iut" || s.Password != "pw" {
		t.Errorf("%+v", s)
	}
}
