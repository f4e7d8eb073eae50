package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/jsontest"
)

// TestMonitorCommand: the monitor on a real broker reports a trace that
// moves work back to submitted as JSON lines, closes with a summary line,
// and exits 1 under --fail-on-error. The traffic is published again and
// again until the monitor stops, so it does not matter when it subscribed:
// repeats of the same envelopes are judged once.
func TestMonitorCommand(t *testing.T) {
	b, err := broker.Start(broker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	nc, err := b.Connect("publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	now := time.Now().Unix()
	open := `{"protocol":"agh-network/v0","id":"msg_open_1","workspace_id":"ws_cli","kind":"say","channel":"ops","surface":"thread","thread_id":"thread_cli_1","from":"alice.s1","to":"bob.s1","work_id":"work_cli_1","ts":NOW,"body":{"text":"go"},"proof":null}`
	working := `{"protocol":"agh-network/v0","id":"msg_trace_1","workspace_id":"ws_cli","kind":"trace","channel":"ops","surface":"thread","thread_id":"thread_cli_1","from":"bob.s1","to":"alice.s1","work_id":"work_cli_1","ts":NOW,"body":{"state":"working"},"proof":null}`
	back := `{"protocol":"agh-network/v0","id":"msg_trace_2","workspace_id":"ws_cli","kind":"trace","channel":"ops","surface":"thread","thread_id":"thread_cli_1","from":"bob.s1","to":"alice.s1","work_id":"work_cli_1","ts":NOW,"body":{"state":"submitted"},"proof":null}`
	ts := func(s string) []byte { return []byte(strings.ReplaceAll(s, "NOW", strconv.FormatInt(now, 10))) }
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			_ = nc.Publish(agh.PeerSubject("ws_cli", "ops", "bob.s1"), ts(open))
			_ = nc.Publish(agh.PeerSubject("ws_cli", "ops", "alice.s1"), ts(working))
			_ = nc.Publish(agh.PeerSubject("ws_cli", "ops", "alice.s1"), ts(back))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	code, out, stderr := runCLI(t, "", "monitor", "--nats-url", b.URL, "--nats-token", b.Token,
		"--workspace", "ws_cli", "--duration", "1s", "--fail-on-error")
	close(done)
	if code != exitInvalid {
		t.Fatalf("exit %d, want 1; stderr %s\n%s", code, stderr, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var transitions int
	for _, l := range lines[:len(lines)-1] {
		f := jsontest.Object(t, []byte(l))
		if f["type"] != "finding" {
			t.Errorf("not a finding line: %s", l)
		}
		if f["rule"] == "LIFE-TRANSITIONS" && f["peer"] == "bob.s1" && f["id"] == "msg_trace_2" {
			transitions++
		}
	}
	if transitions != 1 || len(lines) != 2 {
		t.Errorf("want exactly one LIFE-TRANSITIONS finding, then the summary:\n%s", out)
	}
	sum := jsontest.Object(t, []byte(lines[len(lines)-1]))
	if sum["type"] != "summary" || sum["errors"] != json.Number("1") || sum["dropped"] != json.Number("0") {
		t.Errorf("summary line: %s", lines[len(lines)-1])
	}
}

func TestMonitorUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"channel-without-workspace", []string{"monitor", "--channel", "ops"}},
		{"bad-workspace", []string{"monitor", "--workspace", "a.b"}},
		{"unknown-format", []string{"monitor", "--format", "yaml"}},
		{"unknown-compat", []string{"monitor", "--compat", "other"}},
		{"unreachable-broker", []string{"monitor", "--nats-url", "nats://127.0.0.1:1", "--duration", "1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, _ := runCLI(t, "", tc.args...); code != exitUsageErr {
				t.Errorf("%v: exit %d, want 2", tc.args, code)
			}
		})
	}
}
