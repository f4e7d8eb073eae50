package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/jsontest"
	"github.com/aghcheck/aghcheck/internal/monitor"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// TestMonitorCommand: the monitor on a real broker reports a trace that
// moves work back to submitted as JSON lines, closes with a summary line,
// and exits 1 under --fail-on-error. The traffic is published once the
// monitor listens, in order on one connection: published before, a round
// could reach it from its middle (the backward trace first), which moves
// nothing back.
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
	go func() {
		listening := func() bool { ok, _ := b.Subscribed(agh.PeerSubject("ws_cli", "ops", "bob.s1"), 0); return ok }
		if testwait.Until(10*time.Second, listening) {
			publishRound(nc)
		}
	}()
	code, out, stderr := runCLI(t, "", "monitor", "--nats-url", b.URL, "--nats-token", b.Token,
		"--workspace", "ws_cli", "--duration", "2s", "--fail-on-error")
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

// republish publishes a work unit of ws_cli whose trace moves it back to
// submitted, again and again until done is closed.
func republish(nc *nats.Conn) (done chan struct{}) {
	done = make(chan struct{})
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			publishRound(nc)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return done
}

// publishRound publishes, once, a work unit of ws_cli whose trace moves it
// back to submitted.
func publishRound(nc *nats.Conn) {
	now := time.Now().Unix()
	open := `{"protocol":"agh-network/v0","id":"msg_open_1","workspace_id":"ws_cli","kind":"say","channel":"ops","surface":"thread","thread_id":"thread_cli_1","from":"alice.s1","to":"bob.s1","work_id":"work_cli_1","ts":NOW,"body":{"text":"go"},"proof":null}`
	working := `{"protocol":"agh-network/v0","id":"msg_trace_1","workspace_id":"ws_cli","kind":"trace","channel":"ops","surface":"thread","thread_id":"thread_cli_1","from":"bob.s1","to":"alice.s1","work_id":"work_cli_1","ts":NOW,"body":{"state":"working"},"proof":null}`
	back := `{"protocol":"agh-network/v0","id":"msg_trace_2","workspace_id":"ws_cli","kind":"trace","channel":"ops","surface":"thread","thread_id":"thread_cli_1","from":"bob.s1","to":"alice.s1","work_id":"work_cli_1","ts":NOW,"body":{"state":"submitted"},"proof":null}`
	ts := func(s string) []byte { return []byte(strings.ReplaceAll(s, "NOW", strconv.FormatInt(now, 10))) }
	_ = nc.Publish(agh.PeerSubject("ws_cli", "ops", "bob.s1"), ts(open))
	_ = nc.Publish(agh.PeerSubject("ws_cli", "ops", "alice.s1"), ts(working))
	_ = nc.Publish(agh.PeerSubject("ws_cli", "ops", "alice.s1"), ts(back))
	_ = nc.Flush()
}

// TestMonitorShardCommand: on a broker configured as docs/monitor.md says,
// the monitor of ws_cli's shard reads it from the shard's stream and
// reports the trace that moves work back to submitted; its summary names
// the shard and the stream.
func TestMonitorShardCommand(t *testing.T) {
	o, err := server.ProcessConfigFile("../../internal/monitor/testdata/shard-accounts.conf")
	if err != nil {
		t.Fatal(err)
	}
	o.JetStream, o.StoreDir = true, t.TempDir()
	srv := brokertest.Start(t, o)
	k := monitor.PartitionOf("ws_cli", 3)
	mon := broker.Endpoint{URL: srv.ClientURL(), User: "monitor", Password: "monitor-secret"}
	admin, err := mon.Connect("admin")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	js, err := jetstream.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("AGHMON_%d", k)
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: name, Subjects: []string{fmt.Sprintf("aghmon.%d.>", k)}}); err != nil {
		t.Fatal(err)
	}
	nc, err := broker.Endpoint{URL: srv.ClientURL(), User: "app", Password: "app-secret"}.Connect("publisher")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	done := republish(nc)
	code, out, stderr := runCLI(t, "", "monitor", "--nats-url", mon.URL, "--nats-user", mon.User, "--nats-password", mon.Password,
		"--shard", fmt.Sprintf("%d/3", k), "--jetstream", "--duration", "1s", "--fail-on-error")
	close(done)
	if code != exitInvalid {
		t.Fatalf("exit %d, want 1; stderr %s\n%s", code, stderr, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sum := jsontest.Object(t, []byte(lines[len(lines)-1]))
	if len(lines) != 2 || !strings.Contains(lines[0], `"rule":"LIFE-TRANSITIONS"`) || sum["shard"] != fmt.Sprintf("%d/3", k) ||
		sum["stream"] != name || sum["durable"] != fmt.Sprintf("aghmon-%d-of-3", k) {
		t.Errorf("want one LIFE-TRANSITIONS finding, then a summary of shard %d/3 read from %s:\n%s", k, name, out)
	}
}

func TestMonitorUsageErrors(t *testing.T) {
	other := (monitor.PartitionOf("ws_alpha", 3) + 1) % 3
	for _, tc := range []struct {
		name string
		args []string
		want string // in the error line ("": any)
	}{
		{"channel-without-workspace", []string{"monitor", "--channel", "ops"}, ""},
		{"bad-workspace", []string{"monitor", "--workspace", "a.b"}, ""},
		{"unknown-format", []string{"monitor", "--format", "yaml"}, ""},
		{"unknown-compat", []string{"monitor", "--compat", "other"}, ""},
		{"unreachable-broker", []string{"monitor", "--nats-url", "nats://127.0.0.1:1", "--duration", "1s"}, ""},
		{"bad-shard", []string{"monitor", "--shard", "3/3"}, "want K/N with 0 <= K < N"},
		{"shard-syntax", []string{"monitor", "--shard", "one"}, "want K/N"},
		{"no-shard-of-none", []string{"monitor", "--shard", "0/0"}, "want K/N with 0 <= K < N"},
		{"jetstream-without-shard", []string{"monitor", "--jetstream"}, "--jetstream needs --shard"},
		{"durable-without-jetstream", []string{"monitor", "--shard", "0/3", "--durable", "x"}, "--durable needs --jetstream"},
		{"workspace-of-another-shard", []string{"monitor", "--shard", fmt.Sprintf("%d/3", other), "--workspace", "ws_alpha"},
			fmt.Sprintf("--workspace ws_alpha is in shard %d/3", monitor.PartitionOf("ws_alpha", 3))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tc.args...)
			if code != exitUsageErr || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d (%s), want 2 with %q", tc.args, code, strings.TrimSpace(stderr), tc.want)
			}
		})
	}
}
