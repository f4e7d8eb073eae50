package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/trust"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Start-up: the broker (embedded, or the user's), the IUT (started, or
// attached) and its greet, and what the harness says as itself on the
// broker (its whois, its JetStream stream).

// connect starts the embedded broker (unless one is given), connects the
// harness to everything under agh.> and sets up JetStream when needed.
func (r *runner) connect(ctx context.Context, rep *report.Report, needJS bool) error {
	ep := r.cfg.External
	if ep == nil {
		// What the embedded broker stores (JetStream, within its
		// limits) goes under a directory of the run's own, which close
		// removes with whatever the IUT made the broker write there.
		dir, err := os.MkdirTemp("", "aghcheck-run-")
		if err != nil {
			return fmt.Errorf("run directory: %w", err)
		}
		r.dir = dir
		b, err := broker.Start(broker.Options{JetStream: needJS, MaxPayload: r.cfg.MaxPayload, IUTSubjects: confine(r.ws), Dir: dir})
		if err != nil {
			return err
		}
		r.broker = b
		ep = &b.Endpoint
		// The harness's own secret is never told to the IUT, but a
		// peer could still guess at it in what it prints: redacted too.
		_ = registerSecrets(&broker.Endpoint{Token: b.Token, Password: b.Password})
		r.iutEP = &b.IUT
		rep.Broker.JetStream = needJS
	} else {
		// The IUT uses what it was given, with whatever the external
		// broker lets that user do: not aghcheck's to confine.
		r.iutEP = ep
		rep.Broker.Unconfined = true
	}
	r.ep = ep
	rep.Broker.URL = ep.URL

	// A run played N times (--repeat) lets the IUT send N runs' worth.
	runs := max(1, r.cfg.Repeat)
	r.bus = newBus(r.start, r.ws, r.ch, r.cfg.External == nil, floodBudget{r.cfg.FloodLimit * runs, r.cfg.FloodBytes * int64(runs)}, r.cfg.Now)
	r.bus.errata, r.bus.track.errata = r.cfg.Errata, r.cfg.Errata
	r.bus.heard = r.life.heard
	r.bus.onFlood = r.onFlood
	opts := append(r.link.options(), nats.NoEcho(), nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) && s != nil {
			n, _ := s.Dropped()
			r.bus.noteDropped(n)
		}
	}))
	if r.broker != nil {
		// The confined IUT may use _INBOX.> for its own requests: the
		// harness's replies (JetStream API answers, publish acks) go
		// elsewhere, where the IUT can neither read nor forge them. An
		// external broker's permissions are the user's: its default
		// stays.
		opts = append(opts, nats.CustomInboxPrefix(broker.HarnessInboxPrefix))
	}
	nc, err := ep.Connect(harnessConnName, opts...)
	if err != nil {
		return err
	}
	r.nc = nc
	if r.cfg.Fleet != nil {
		if r.fleet, err = startFleet(nc, r.cfg.Fleet); err != nil {
			return err
		}
	}
	if r.ws == "" {
		first, err := r.findPeer(ctx, nc)
		if err != nil {
			return err
		}
		r.ws, r.ch = first.ws, first.ch
		rep.Broker.Workspace, rep.Broker.Channel = r.ws, r.ch
		r.bus.place(r.ws, r.ch)
		// What told the workspace is the peer's first message of the run
		// (a presence greet stands for its join greet).
		r.bus.expectIUT(r.cfg.IUTPeer)
		r.bus.receive(first.subject, first.data)
	}
	sub, err := nc.Subscribe("agh.>", func(m *nats.Msg) { r.bus.receive(m.Subject, m.Data) })
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	// What waits to be judged is bounded like what is kept: a flood of
	// large messages fills the queue before the flood budget is spent,
	// and what does not fit is dropped (and counted) by the client.
	_ = sub.SetPendingLimits(1<<16, 32<<20)
	if err := nc.Flush(); err != nil {
		return err
	}
	if !needJS {
		return nil
	}
	if err := r.setupJetStream(ctx); err != nil {
		if r.cfg.External == nil {
			return err
		}
		rep.Broker.JetStream = false // scenarios needing it will skip
		return nil
	}
	rep.Broker.JetStream = true
	rep.Broker.JetStreamReplicas = r.stream.Replicas
	return nil
}

// startIUT starts the IUT command with the contract's environment, or,
// for an attached peer, asks it for its card.
func (r *runner) startIUT(rep *report.Report) error {
	if r.cfg.IUTPeer != "" {
		return r.askWhois(r.cfg.IUTPeer)
	}
	if r.cfg.Start != nil {
		stop, err := r.cfg.Start(r.iutEnv())
		if err != nil {
			return fmt.Errorf("start the IUT: %w", err)
		}
		r.stop = stop
		return nil
	}
	rep.IUT.Command = r.cfg.Command
	proc, err := iut.Start(r.cfg.Command, r.iutEnv())
	if err != nil {
		return err
	}
	r.procMu.Lock()
	r.proc = proc
	r.bornAt = time.Since(r.start)
	r.procMu.Unlock()
	r.iutDone = proc.Done()
	return nil
}

// iutEnv is the IUT's environment: the harness contract plus Config.Env.
func (r *runner) iutEnv() []string {
	ep := r.iutEP
	// The IUT's broker secrets are redacted wherever they would be
	// printed, its own stdout and stderr in a report included (on the
	// embedded broker its password is its own, not the harness's).
	_ = registerSecrets(&broker.Endpoint{URL: ep.URL, Token: ep.Token, Password: ep.Password})
	env := iutenv.Env{URL: ep.URL, Token: ep.Token, User: ep.User, Password: ep.Password, Creds: ep.Creds,
		Workspace: r.ws, Channel: r.ch, PeerID: r.cfg.SuggestedPeerID, Initiate: r.orders.file}
	return append(env.Environ(), r.cfg.Env...)
}

// awaitGreet waits for the IUT's greet (or, attached, its whois answer);
// Config.Waiting hears how the wait goes.
func (r *runner) awaitGreet(ctx context.Context) (*message, error) {
	timer := time.NewTimer(r.cfg.GreetTimeout)
	defer timer.Stop()
	asked := false
	what := "the IUT's greet"
	if r.cfg.IUTPeer != "" {
		what = r.cfg.IUTPeer + " to answer a whois"
	}
	defer r.await(what)()
	for {
		select {
		case greet := <-r.bus.greeted:
			return greet, nil
		case <-r.iutDone:
			// A greet published just before exiting still counts.
			select {
			case greet := <-r.bus.greeted:
				return greet, nil
			case <-time.After(50 * time.Millisecond):
				return nil, fmt.Errorf("the IUT exited before greeting (%s)%s", r.proc.Status(), lastLine(r.proc.Stderr()))
			}
		case <-timer.C:
			if (r.proc != nil || r.cfg.Start != nil) && !asked {
				// A spawned IUT that does not greet when it joins may still
				// answer a whois as the peer id it was given: ask once, so
				// the run goes on and judges the missing greet
				// (DISC-GREET-ON-JOIN) instead of ending in an error.
				asked = true
				if r.askWhois(r.cfg.SuggestedPeerID) == nil {
					timer.Reset(min(r.cfg.GreetTimeout, 2*time.Second))
					continue
				}
			}
			return nil, fmt.Errorf("the IUT did not greet on %s within %s", agh.BroadcastSubject(r.ws, r.ch), r.cfg.GreetTimeout)
		case <-ctx.Done():
			return nil, interruption(ctx)
		}
	}
}

// learnIUT takes the IUT's peer id and card from its greet, and starts
// watching for the greets it sends after a reconnect.
func (r *runner) learnIUT(rep *report.Report, greet *message) error {
	r.iutID = greet.from()
	if greet.kind() == "greet" {
		r.greet = greet
	}
	rep.IUT.PeerID = r.iutID
	if err := r.link.watch(r.nc, r.ws, r.ch, r.iutID); err != nil {
		return err
	}
	rep.IUT.Greeted, rep.IUT.JoinedBy = report.Millis(greet.at), greet.kind()
	if body, ok := greet.env["body"].(map[string]any); ok {
		rep.IUT.Card, _ = body["peer_card"].(map[string]any)
	}
	// A peer takes the trust profile when its card lists the profile id in
	// profiles_supported, as the trust pages signal it.
	r.bus.track.trust.Store(advertises(rep.IUT.Card, "profiles_supported", trust.ProfileID))
	r.form, _ = r.initiateForm(rep)
	rep.IUT.Initiation = r.form
	return nil
}

// setupJetStream creates a stream over this run's workspace so scenarios
// can publish through JetStream. On a cluster the stream is replicated on
// three nodes when the cluster can hold that, so the JetStream scenarios
// prove the profile on a stream that survives losing a node.
func (r *runner) setupJetStream(ctx context.Context) error {
	js, err := jetstream.New(r.nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	sc := jetstream.StreamConfig{
		Name:       "AGHCHECK_" + strings.NewReplacer("-", "_", ".", "_").Replace(r.ws),
		Subjects:   []string{agh.SubjectPrefix + "." + r.ws + ".>"},
		Storage:    jetstream.MemoryStorage,
		MaxMsgSize: broker.MaxPayload,
		// The stream keeps the workspace's traffic of the last minute, up
		// to streamBytes: a flood of the IUT's (which it captures too)
		// pushes the oldest out rather than growing the broker's memory.
		MaxBytes: streamBytes,
		Discard:  jetstream.DiscardOld,
		MaxAge:   time.Minute,
		Replicas: 1,
	}
	create := func() error {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := js.CreateStream(cctx, sc)
		return err
	}
	if r.nc.ConnectedClusterName() != "" {
		sc.Replicas = 3
		if create() != nil {
			sc.Replicas = 1 // a cluster of fewer than three JetStream nodes
		}
	}
	if sc.Replicas == 1 {
		if err := create(); err != nil {
			return fmt.Errorf("jetstream stream: %w", err)
		}
	}
	r.js, r.stream = js, sc
	return nil
}

// dropStream deletes the run's stream: on an external deployment it would
// otherwise outlive the run.
func (r *runner) dropStream() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = r.js.DeleteStream(ctx, r.stream.Name)
}

// askWhois asks peerID for its card and takes its answer as the IUT's
// greet: an attached peer (--iut-peer), or a spawned one that never greeted.
func (r *runner) askWhois(peerID string) error {
	r.bus.expectIUT(peerID)
	if err := r.publishHarness(agh.PeerSubject(r.ws, r.ch, peerID), r.whois(r.harnessID(), peerID)); err != nil {
		return fmt.Errorf("whois to %s: %w", peerID, err)
	}
	return nil
}

// harnessID is the peer id the harness speaks as in its own whois
// requests, one per run.
func (r *runner) harnessID() string {
	me := "aghcheck-harness." + r.tag
	r.bus.speaksAs(me)
	return me
}

// whois is a directed whois request from me to peerID.
func (r *runner) whois(me, peerID string) map[string]any {
	return map[string]any{
		"protocol": agh.Protocol, "id": "msg_whois_" + randid.Hex(6), "workspace_id": r.ws, "channel": r.ch,
		"kind": "whois", "from": me, "to": peerID, "ts": r.now().Unix(), "proof": nil,
		"body": map[string]any{"type": "request", "query": peerID},
	}
}

// publishHarness publishes an envelope of the harness's own (a whois to
// find or probe the IUT), known to the work-unit tracker as sent.
func (r *runner) publishHarness(subject string, env map[string]any) error {
	data, err := json.Marshal(env)
	if err != nil {
		return err
	}
	r.bus.track.sent(data)
	if err := r.nc.Publish(subject, data); err != nil {
		return err
	}
	return r.nc.Flush()
}
