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
	"crypto/rand"
	"encoding/hex"
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
	// works is the agent's own view of the work it took on, by work_id
	// (work identity is the runtime's (workspace, work_id); the workspace
	// is fixed here): what it last reported, and who opened it.
	works map[string]*agentWork
	// opened is the work the agent opened as initiator (initiator.go), by
	// work_id: the order and the opening as the runtime built it.
	opened map[string]*openedWork
	// workspace is the local peer's workspace, as the registry holds it.
	workspace string
}

// openedWork is one work item the agent opened for an order.
type openedWork struct {
	order   order
	opening network.Envelope
}

func run(ctx context.Context, cfg config) error {
	a := &adapter{
		cfg:    cfg,
		log:    log.New(os.Stderr, "", log.Lmicroseconds),
		works:  map[string]*agentWork{},
		opened: map[string]*openedWork{},
	}

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
	// The agent follows aghcheck's control scripts (agent.go) and its
	// initiation orders, in band and from the start-up file (initiator.go);
	// the runtime's router still decides what each message does to the work.
	card.ProfilesSupported = append(card.ProfilesSupported, controlProfile, initiateProfile)
	local, err := registry.RegisterLocal(sessionID, cfg.Workspace, cfg.Channel, card, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("join %s/%s: %w", cfg.Workspace, cfg.Channel, err)
	}
	a.workspace = local.WorkspaceID
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
	if cfg.Initiate != "" {
		a.log.Printf("initiator: %d orders from %s, carried out when their target greets", len(cfg.Orders), cfg.Initiate)
	}

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
	// The start-up orders whose target just greeted: the router has
	// recorded its presence, which the runtime's send path requires.
	if e := res.Envelope; e != nil && e.Kind == network.KindGreet && e.From != a.cfg.PeerID &&
		!res.Rejected && !res.Duplicate && !res.Ignored {
		for _, o := range ordersFor(a.cfg.Orders, e.From) {
			a.initiate(ctx, o, "start-up order, on its greet "+e.ID)
		}
	}
}

// serve plays the agent session for what the router delivered to it:
// directed work opened at this peer, the initiator's continuations of it
// and its cancel. What the agent answers is plan's (agent.go): by default
// an accepted receipt, a working and a completed trace; what a control
// script asks for when the message carries one. Each reply goes through
// the runtime's Router.Send, so the runtime builds, validates and tracks
// it, and refuses what its lifecycle does not allow.
func (a *adapter) serve(ctx context.Context, env network.Envelope) {
	if env.To == nil || *env.To != a.cfg.PeerID {
		return
	}
	if env.WorkID == nil {
		// Conversation; with the control extension, an in-band request of
		// the initiation half (initiator.go).
		if raw, ok := env.Ext[controlProfile]; ok && env.Kind == network.KindSay {
			a.request(ctx, env, raw)
		}
		return
	}
	if ow := a.opened[*env.WorkID]; ow != nil {
		a.followUp(ctx, ow, env)
		return
	}
	w := a.works[*env.WorkID]
	cancel := false
	switch env.Kind {
	case network.KindSay, network.KindCapability:
	case network.KindReceipt:
		body, err := env.DecodeBody()
		rb, ok := body.(network.ReceiptBody)
		if err != nil || !ok || rb.Status != network.ReceiptStatusCanceled || w == nil {
			return
		}
		cancel = true
	default:
		return
	}
	if w != nil && env.From != w.initiator {
		a.log.Printf("agent: %s on work %s is not from its initiator: read only", env.ID, *env.WorkID)
		return
	}
	var script json.RawMessage
	if v, ok := env.Ext[controlProfile]; ok {
		script = v
		if len(v) == 0 {
			script = json.RawMessage("null")
		}
	}
	replies, next := plan(w, cancel, script)
	if w == nil {
		w = &agentWork{initiator: env.From}
		a.works[*env.WorkID] = w
	}
	if len(replies) == 0 {
		a.log.Printf("agent: reads %s %s on work %s (%s)", env.Kind, env.ID, *env.WorkID, w.state)
	}
	w.state = next
	for _, r := range replies {
		kind, body, err := r.encode(env.ID)
		if err != nil {
			a.log.Printf("agent: %v", err)
			return
		}
		req := network.SendRequest{
			SessionID:   sessionID,
			Channel:     a.cfg.Channel,
			Kind:        kind,
			To:          &env.From,
			Surface:     env.Surface,
			ThreadID:    env.ThreadID,
			DirectID:    env.DirectID,
			WorkID:      env.WorkID,
			TraceID:     env.TraceID,
			CausationID: &env.ID,
			Body:        body,
		}
		if kind == network.KindReceipt {
			req.ReplyTo = &env.ID
		}
		sent, err := a.router.Send(ctx, req)
		if err != nil {
			a.log.Printf("agent: %s for work %s not sent: %v", describeReply(r), *env.WorkID, err)
			return
		}
		a.log.Printf("agent: sent %s %s for work %s", describeReply(r), sent.ID, *env.WorkID)
	}
}

// encode is the runtime's kind and body for r, a receipt acknowledging forID or a trace.
func (r reply) encode(forID string) (network.Kind, json.RawMessage, error) {
	var body any
	kind := network.KindTrace
	if r.Status != "" {
		kind = network.KindReceipt
		rb := network.ReceiptBody{ForID: forID, Status: network.ReceiptStatus(r.Status)}
		if r.ReasonCode != "" {
			code := network.ReasonCode(r.ReasonCode)
			rb.ReasonCode = &code
		}
		if r.Detail != "" {
			rb.Detail = &r.Detail
		}
		body = rb
	} else {
		body = network.TraceBody{State: network.WorkState(r.State), Message: r.Message, Result: r.Result, ArtifactRefs: r.ArtifactRefs}
	}
	b, err := json.Marshal(body)
	return kind, b, err
}

func describeReply(r reply) string {
	if r.Status != "" {
		return "receipt(" + r.Status + ")"
	}
	return "trace(" + r.State + ")"
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

// request carries out an in-band request of the initiation half: a say
// without a work_id, directed to this peer, whose control extension holds
// exactly one of initiate, continue and cancel. The control say itself is
// answered with nothing; a request of another shape is only reported.
func (a *adapter) request(ctx context.Context, env network.Envelope, raw json.RawMessage) {
	req, err := parseRequest(raw)
	if err != nil {
		a.log.Printf("control: request %s from %s ignored: %v", env.ID, env.From, err)
		return
	}
	switch {
	case req.Initiate != nil:
		a.initiate(ctx, *req.Initiate, "in-band order "+env.ID+" from "+env.From)
	case req.Continue != nil:
		ow := a.opened[req.Continue.WorkID]
		if ow == nil {
			a.log.Printf("control: continue %s from %s ignored: work %s was not opened by this peer", env.ID, env.From, req.Continue.WorkID)
			return
		}
		text := req.Continue.Text
		if text == "" {
			text = ow.order.Answer
		}
		if text == "" {
			text = defaultOrderText
		}
		a.continueWork(ctx, ow, text, nil, "in-band continue "+env.ID)
	case req.Cancel != nil:
		ow := a.opened[req.Cancel.WorkID]
		if ow == nil {
			a.log.Printf("control: cancel %s from %s ignored: work %s was not opened by this peer", env.ID, env.From, req.Cancel.WorkID)
			return
		}
		a.cancelWork(ctx, ow, nil, "in-band cancel "+env.ID)
	}
}

// randomHex is 16 random hex digits, for the ids the agent chooses.
func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
