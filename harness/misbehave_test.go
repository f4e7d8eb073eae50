package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/peer"
)

// misbehave plays a broken IUT for the robustness tests. Each mode greets
// properly (so the run starts) unless its point is not to.
func misbehave(ctx context.Context, name string, cfg peer.Config) int {
	switch name {
	case "exit":
		fmt.Fprintln(os.Stderr, "iut: giving up at once")
		return 3
	case "hang":
		<-ctx.Done()
		return 0
	}
	opts := []nats.Option{}
	opts = append(opts, cfg.Auth()...)
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer nc.Close()
	id := cfg.PeerID
	bcast := agh.BroadcastSubject(cfg.Workspace, cfg.Channel)
	greet, _ := json.Marshal(map[string]any{
		"protocol": agh.Protocol, "id": "msg_greet_" + id, "workspace_id": cfg.Workspace, "kind": "greet",
		"channel": cfg.Channel, "from": id, "to": nil, "ts": time.Now().Unix(), "proof": nil,
		"body": map[string]any{"peer_card": map[string]any{"peer_id": id, "profiles_supported": []any{"agh-network/v0", control.Name},
			"capabilities": []any{}, "artifacts_supported": []any{}, "trust_modes_supported": []any{"unverified"}}},
	})
	switch name {
	case "silent":
		// Listens on its own subject and greets, then never answers
		// anything.
		_, _ = nc.Subscribe(agh.PeerSubject(cfg.Workspace, cfg.Channel, id), func(*nats.Msg) {})
		nc.Publish(bcast, greet)
		nc.Flush()
		<-ctx.Done()
	case "crash":
		// Greets, answers nothing, dies shortly after the scenarios start.
		nc.Publish(bcast, greet)
		nc.Flush()
		time.Sleep(150 * time.Millisecond)
		fmt.Fprintln(os.Stderr, "iut: panic: simulated crash")
		return 2
	case "flood":
		nc.Publish(bcast, greet)
		for ctx.Err() == nil {
			for range 500 {
				nc.Publish(bcast, greet)
			}
			nc.Flush()
		}
	case "oversize":
		// Publishes one message over the broker's max payload on a raw
		// connection (nats.go would refuse to send it), then greets. Before
		// the greet, so that it has happened by the time the run (which
		// starts on the greet) is judged: after it, a short run could end
		// before the IUT got round to it.
		if err := rawOversize(cfg, bcast); err != nil {
			fmt.Fprintln(os.Stderr, "iut:", err)
			return 2
		}
		nc.Publish(bcast, greet)
		nc.Flush()
		<-ctx.Done()
	case "garbage":
		// Greets, then answers every directed message with bytes that are
		// not an envelope, on the sender's subject.
		sub, _ := nc.Subscribe(agh.PeerSubject(cfg.Workspace, cfg.Channel, id), func(m *nats.Msg) {
			var env map[string]any
			if json.Unmarshal(m.Data, &env) == nil {
				if from, ok := env["from"].(string); ok {
					nc.Publish(agh.PeerSubject(cfg.Workspace, cfg.Channel, from), []byte("\xff{not json"))
				}
			}
		})
		defer sub.Unsubscribe()
		nc.Publish(bcast, greet)
		nc.Flush()
		<-ctx.Done()
	default:
		fmt.Fprintln(os.Stderr, "unknown test IUT mode", name)
		return 2
	}
	return 0
}

// rawOversize speaks the NATS client protocol by hand to publish 1 MiB + 1
// bytes, which the broker answers by closing the connection.
func rawOversize(cfg peer.Config, subject string) error {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return err
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil { // INFO
		return err
	}
	connect, _ := json.Marshal(map[string]any{"auth_token": cfg.Token, "user": cfg.User, "pass": cfg.Password, "verbose": false, "pedantic": false})
	size := 1<<20 + 1
	fmt.Fprintf(c, "CONNECT %s\r\nPUB %s %d\r\n", connect, subject, size)
	c.Write(bytes.Repeat([]byte("x"), size))
	c.Write([]byte("\r\n"))
	_, _ = io.Copy(io.Discard, c) // until the broker closes it
	return nil
}
