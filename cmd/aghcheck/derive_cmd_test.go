package main

import (
	"strings"
	"testing"
)

func TestDeriveCommands(t *testing.T) {
	const fx = "../../fixtures/agh/"
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   string // exact stdout
		err   string // substring of stderr
	}{
		{"route token", "", []string{"derive", "route-token", "reviewer.sess-xyz"}, 0, "790dd5515558f7784877abcbca51c5ba\n", ""},
		{"route token of a handle", "", []string{"derive", "route-token", "patch-worker@56475aa75463474c0285df5dbf2bcab7"}, 0, "56475aa75463474c0285df5dbf2bcab7\n", ""},
		{"route token bad peer", "", []string{"derive", "route-token", "Not A Peer"}, 2, "", "is not a Peer ID"},
		{"direct id", "", []string{"derive", "direct-id", "ws_alpha", "builders", "patch-worker.session-19", "ops-coordinator.session-42"}, 0, "direct_a610973e3c0d915853982f4bfe1534e8\n", ""},
		{"direct id same peer", "", []string{"derive", "direct-id", "ws_alpha", "builders", "a.b", "a.b"}, 2, "", "two different peers"},
		{"direct id bad channel", "", []string{"derive", "direct-id", "ws_alpha", "Builders", "a", "b"}, 2, "", "channel"},
		{"direct id bad workspace", "", []string{"derive", "direct-id", "ws.alpha", "builders", "a", "b"}, 2, "", "workspace id"},
		{"direct id arity", "", []string{"derive", "direct-id", "ws_alpha"}, 2, "", "takes 4 argument"},
		{"digest bare document", `{"id":"build-site","summary":"Build the landing page.","outcome":"A finished landing page.","version":"1.0.0","context_needed":["repo"],"execution_outline":["Inspect","Build"]}`,
			[]string{"derive", "digest", "-"}, 0, "sha256:56756e530d86ff5ec3dbdf2a0034fdcd69dae0f8d676dd04faca07f46b63c225\n", ""},
		{"digest envelope that matches", "", []string{"derive", "digest", fx + "valid/capability-thread.json"}, 0, "sha256:1c5fdbe4bf5494ac0e20aba6a30dd51f38a4a27b68ca2d0aa55ce8afe7c58a7b\n", ""},
		{"digest seed envelope (erratum 2)", "", []string{"derive", "digest", fx + "seed/001-capability.json"}, 1, "sha256:", "canonical digest is sha256:"},
		{"digest not a capability", "", []string{"derive", "digest", fx + "valid/say-thread-broadcast.json"}, 2, "", "without body.capability"},
		{"digest missing file", "", []string{"derive", "digest", fx + "nope.json"}, 2, "", "no such file"},
		{"digest duplicate keys", `{"id":"a","id":"b"}`, []string{"derive", "digest", "-"}, 2, "", "standard input"},
		{"subject broadcast", "", []string{"derive", "subject", fx + "valid/greet-full.json"}, 0, "agh.network.v0.ws_alpha.builders.broadcast\n", ""},
		{"subject directed", "", []string{"derive", "subject", fx + "valid/trace-working.json"}, 0, "agh.network.v0.ws_alpha.builders.peer.f83a0b5c43de20c9ca3e347e1e482e78\n", ""},
		{"subject bad workspace", `{"workspace_id":"a.b","channel":"c"}`, []string{"derive", "subject", "-"}, 2, "", "workspace_id"},
		{"no derivation", "", []string{"derive"}, 2, "", "needs a derivation"},
		{"unknown derivation", "", []string{"derive", "colour"}, 2, "", "unknown derivation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
			if tc.out != "" && !(out == tc.out || (strings.HasSuffix(tc.out, ":") && strings.HasPrefix(out, tc.out))) {
				t.Errorf("stdout %q, want %q", out, tc.out)
			}
			if !strings.Contains(errOut, tc.err) || (tc.err == "" && errOut != "") {
				t.Errorf("stderr %q, want it to contain %q", errOut, tc.err)
			}
			if strings.Count(errOut, "\n") > 1 {
				t.Errorf("error is more than one line: %q", errOut)
			}
		})
	}
}
