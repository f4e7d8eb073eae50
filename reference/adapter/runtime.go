//go:build ignore

// This file needs the reference runtime's internal network package, so it
// is only built inside a copy of github.com/compozy/agh: scripts/reference.sh
// copies it there with main.go and config.go (not stub.go) and builds those
// files by name, which the go command does whatever their constraints. The
// "ignore" constraint keeps it out of every build of aghcheck's own module,
// and out of its `go mod tidy`, which would otherwise try to resolve the
// runtime's internal package.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/compozy/agh/internal/network"
	"github.com/nats-io/nats.go"
)

// haveRuntime says whether this build holds the runtime (this file) or
// only stub.go.
const haveRuntime = true

// sessionID names the one agent session behind the local peer.
const sessionID = "aghcheck-adapter"

// inboxDepth bounds the messages waiting for the single receive loop; a
// flood beyond it is dropped by nats.go as a slow consumer.
const inboxDepth = 8192

// natsTransport is the runtime's RouterTransport on our NATS connection. It
// flushes each publish, as the runtime's own transport does, so a receipt
// is on the broker before the trace that follows it is built.
type natsTransport struct{ nc *nats.Conn }

func (t natsTransport) Publish(ctx context.Context, subject string, payload []byte) error {
	if err := t.nc.Publish(subject, payload); err != nil {
		return fmt.Errorf("publish to %s: %w", subject, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := t.nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("flush publish to %s: %w", subject, err)
	}
	return nil
}

// adapter is one local peer of the runtime plus the agent session behind it.
type adapter struct {
	cfg    config
	router *network.Router
	log    *log.Logger
	// accepted holds the work ids the agent took on, so a continuation of
	// work it already answered is not taken for new work. Work identity is
	// the runtime's (workspace, work_id); the workspace is fixed here.
	accepted map[string]bool
}

func run(ctx context.Context, cfg config) error {
	a := &adapter{cfg: cfg, log: log.New(os.Stderr, "", log.Lmicroseconds), accepted: map[string]bool{}}

	registry, err := network.NewPeerRegistry(cfg.GreetInterval)
	if err != nil {
		return err
	}
	card, err := network.DefaultPeerCard(cfg.PeerID)
	if err != nil {
		return fmt.Errorf("peer card: %w", err)
	}
	name := "aghcheck adapter for the AGH reference runtime " + runtimeVersion
	card.DisplayName = &name
	local, err := registry.RegisterLocal(sessionID, cfg.Workspace, cfg.Channel, card, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("join %s/%s: %w", cfg.Workspace, cfg.Channel, err)
	}
	broadcast, err := network.BroadcastSubject(local.WorkspaceID, local.Channel)
	if err != nil {
		return err
	}
	direct, err := network.DirectSubject(local.WorkspaceID, local.Channel, local.PeerID)
	if err != nil {
		return err
	}

	opts := []nats.Option{
		nats.Name("aghcheck-reference-adapter"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { a.log.Printf("nats: disconnected: %v", err) }),
		// The NATS binding: a peer SHOULD greet again after reconnecting
		// (the runtime's manager does the same on its reconnect hook).
		nats.ReconnectHandler(func(*nats.Conn) { go a.greet(ctx, "reconnected") }),
	}
	switch {
	case cfg.Token != "":
		opts = append(opts, nats.Token(cfg.Token))
	case cfg.User != "":
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	}
	nc, err := nats.Connect(cfg.URLs, opts...)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", cfg.URLs, err)
	}
	defer nc.Close()

	a.router, err = network.NewRouter(registry, natsTransport{nc}, cfg.ReplayAge)
	if err != nil {
		return err
	}

	// Subscribe before greeting (the NATS binding's join order), both
	// subjects into one loop so the agent answers one message at a time.
	inbox := make(chan *nats.Msg, inboxDepth)
	for _, subject := range []string{broadcast, direct} {
		if _, err := nc.ChanSubscribe(subject, inbox); err != nil {
			return fmt.Errorf("subscribe %s: %w", subject, err)
		}
	}
	if err := nc.Flush(); err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	heartbeat, err := a.router.StartHeartbeat(ctx, sessionID, "")
	if err != nil {
		return fmt.Errorf("greet: %w", err)
	}
	a.log.Printf("runtime %s joined as %s on %s and %s (greet every %s, replay age %s)",
		runtimeVersion, local.PeerID, broadcast, direct, cfg.GreetInterval, cfg.ReplayAge)

	for {
		select {
		case <-ctx.Done():
			heartbeat.Stop()
			a.router.Leave(sessionID)
			_ = nc.FlushTimeout(200 * time.Millisecond)
			a.log.Printf("stopped")
			return nil
		case m := <-inbox:
			a.receive(ctx, m.Data)
		}
	}
}

func (a *adapter) greet(ctx context.Context, why string) {
	if _, err := a.router.PublishGreet(ctx, sessionID, ""); err != nil {
		a.log.Printf("greet (%s): %v", why, err)
		return
	}
	a.log.Printf("greet (%s)", why)
}

// receive hands one payload to the runtime's router, which validates it,
// deduplicates, applies the work lifecycle and publishes what the runtime
// itself answers (whois responses, rejection receipts); the agent then
// serves what the router delivered to its session.
func (a *adapter) receive(ctx context.Context, payload []byte) {
	res, err := a.router.Receive(ctx, payload)
	if err != nil {
		a.log.Printf("recv: router error: %v", err)
		return
	}
	a.log.Print("recv: " + describe(res))
	for _, d := range res.Deliveries {
		if d.SessionID == sessionID {
			a.serve(ctx, d.Envelope)
		}
	}
}

// serve plays the agent session: directed work opened at this peer gets an
// accepted receipt, a working trace and a completed trace, each sent through
// the runtime's Router.Send (so the runtime builds, validates and tracks
// them). Anything else delivered is conversation the agent just reads.
func (a *adapter) serve(ctx context.Context, env network.Envelope) {
	if env.WorkID == nil || env.To == nil || *env.To != a.cfg.PeerID {
		return
	}
	if env.Kind != network.KindSay && env.Kind != network.KindCapability {
		return
	}
	if a.accepted[*env.WorkID] {
		a.log.Printf("agent: %s continues work %s it already answered", env.ID, *env.WorkID)
		return
	}
	a.accepted[*env.WorkID] = true
	replies := []struct {
		kind network.Kind
		body any
	}{
		{network.KindReceipt, network.ReceiptBody{ForID: env.ID, Status: network.ReceiptStatusAccepted}},
		{network.KindTrace, network.TraceBody{State: network.WorkStateWorking, Message: "on it"}},
		{network.KindTrace, network.TraceBody{State: network.WorkStateCompleted, Result: json.RawMessage(`{"done":true}`)}},
	}
	for _, r := range replies {
		body, err := json.Marshal(r.body)
		if err != nil {
			a.log.Printf("agent: %v", err)
			return
		}
		req := network.SendRequest{
			SessionID:   sessionID,
			Channel:     a.cfg.Channel,
			Kind:        r.kind,
			To:          &env.From,
			Surface:     env.Surface,
			ThreadID:    env.ThreadID,
			DirectID:    env.DirectID,
			WorkID:      env.WorkID,
			TraceID:     env.TraceID,
			CausationID: &env.ID,
			Body:        body,
		}
		if r.kind == network.KindReceipt {
			req.ReplyTo = &env.ID
		}
		sent, err := a.router.Send(ctx, req)
		if err != nil {
			a.log.Printf("agent: %s for work %s not sent: %v", r.kind, *env.WorkID, err)
			return
		}
		a.log.Printf("agent: sent %s %s for work %s", r.kind, sent.ID, *env.WorkID)
	}
}

// describe is one log line for the router's decision on a payload.
func describe(res network.RouteResult) string {
	var b strings.Builder
	if e := res.Envelope; e != nil {
		fmt.Fprintf(&b, "%s %s from %s", e.Kind, e.ID, e.From)
		if e.WorkID != nil {
			fmt.Fprintf(&b, " work %s", *e.WorkID)
		}
	} else {
		b.WriteString("unparsable payload")
	}
	switch {
	case res.Duplicate:
		b.WriteString(": duplicate")
	case res.Rejected:
		b.WriteString(": rejected")
	case res.Ignored:
		b.WriteString(": ignored")
	default:
		fmt.Fprintf(&b, ": %d deliveries", len(res.Deliveries))
	}
	if res.ReasonCode != nil {
		fmt.Fprintf(&b, " (%s)", *res.ReasonCode)
	}
	for _, g := range res.Generated {
		fmt.Fprintf(&b, "; runtime sent %s %s", g.Kind, g.ID)
		if body, err := g.DecodeBody(); err == nil {
			if r, ok := body.(network.ReceiptBody); ok {
				fmt.Fprintf(&b, " status %s", r.Status)
			}
		}
	}
	return b.String()
}
