package peer

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// ErrBrokerGone is returned by Run when the broker stays unreachable after
// every reconnect attempt.
var ErrBrokerGone = errors.New("NATS connection closed: broker unreachable")

// Run joins the channel and serves until ctx is done (nil error), the
// broker goes away for good (ErrBrokerGone) or a crash-on fault fires
// (ErrCrashed).
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.normalize(); err != nil {
		return err
	}
	p, err := newPeer(cfg)
	if err != nil {
		return err
	}

	defer close(p.quit)

	inbox := make(chan *nats.Msg, 4096)
	nc, conn, err := p.connect(cfg)
	if err != nil {
		return err
	}
	defer conn.close()
	closed, reconnected := conn.closed, conn.reconnected
	own, err := p.subscribeAll(nc, inbox)
	if err != nil {
		return err
	}
	p.log.Info("joined", "peer", p.self, "broadcast", p.broadcast, "direct", p.ownSubject, "faults", cfg.Faults)
	drop := &dropCycle{d: p.live.dropAfter}
	defer drop.stop()
	if !p.faults[faultNoJoinGreet] {
		p.greet()
		drop.arm()
	}
	if p.live.flood > 0 {
		data, idAt, tsAt, err := p.floodTemplate(p.live.flood)
		if err != nil {
			return fmt.Errorf("flood: %w", err)
		}
		f := startFlood(nc, p.broadcast, data, idAt, tsAt, p.log)
		defer f.stop()
	}

	var hangUp <-chan time.Time // hang-up-after: nil never fires
	if p.live.hangUp > 0 {
		t := time.NewTimer(p.live.hangUp)
		defer t.Stop()
		hangUp = t.C
	}
	tick := time.NewTicker(cfg.GreetInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// Let what was already published reach the broker.
			_ = nc.FlushTimeout(time.Second)
			nc.Close()
			p.log.Info("stopped", "peer", p.self)
			return nil
		case <-closed:
			p.log.Info("broker gone", "peer", p.self)
			return ErrBrokerGone
		case <-reconnected:
			p.log.Info("reconnected", "peer", p.self)
			if !p.faults[faultNoRegreet] {
				p.greet()
				drop.arm()
			}
		case <-hangUp:
			fmt.Fprintf(p.cfg.Stderr, "closing the NATS connection %s after joining (%s%s)\n", p.live.hangUp, faultHangUpAfter, p.live.hangUp)
			nc.Close()
			<-ctx.Done()
			return nil
		case <-drop.due():
			// Abrupt: the socket goes without unsubscribing or draining,
			// and the client reconnects at once, not after ReconnectWait.
			p.log.Info("dropping the broker connection", "fault", faultDropAfter+p.live.dropAfter.String())
			if err := nc.ForceReconnect(); err != nil {
				p.log.Error("drop", "err", err)
			}
		case <-tick.C:
			p.sweep()
			p.greet()
		case f := <-p.due:
			f()
		case f := <-p.raced():
			p.handleInFlight(f)
		case m := <-inbox:
			if m.Sub == own && !own.IsValid() {
				continue // queued before deaf-on closed the subscription
			}
			if !p.listening() {
				continue
			}
			switch fault, what, crash := p.tripped(m.Data); {
			case crash:
				return p.crash(fault, what)
			case strings.HasPrefix(fault, faultDeafOn):
				if own.IsValid() { // once: then it no longer hears its subject
					p.goDeaf(own.Unsubscribe, fault, what)
				}
				continue
			case fault != "":
				p.hangUp(nc.Close, fault, what)
				<-ctx.Done()
				return nil
			}
			if !p.inFlight(m) {
				p.receive(m)
			}
		}
	}
}

// peerConn is the peer's broker connection: what tells Run it closed or
// came back, and what to stop when Run returns (last first).
type peerConn struct {
	closed      chan struct{}
	reconnected chan struct{}
	stops       []func()
}

func (c *peerConn) close() {
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
}

// connect connects the peer to its broker (and, with helper-refuses, its
// helper beside it; with slow:DURATION, the delay line its sends go
// through).
func (p *peer) connect(cfg Config) (*nats.Conn, *peerConn, error) {
	closed := make(chan struct{})
	var closeOnce sync.Once
	reconnected := make(chan struct{}, 1)
	opts := []nats.Option{
		nats.Name("aghcheck peer " + p.self),
		// The peer never needs its own broadcasts back.
		nats.NoEcho(),
		nats.MaxReconnects(cfg.MaxReconnects),
		nats.ReconnectWait(cfg.ReconnectWait),
		nats.ReconnectJitter(0, 0),
		nats.ReconnectHandler(func(*nats.Conn) {
			select {
			case reconnected <- struct{}{}:
			default:
			}
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				p.log.Info("disconnected", "err", err)
			}
		}),
		nats.ClosedHandler(func(*nats.Conn) { closeOnce.Do(func() { close(closed) }) }),
	}
	opts = append(opts, cfg.Auth()...)
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", cfg.URL, err)
	}
	p.send = nc.Publish
	cn := &peerConn{closed: closed, reconnected: reconnected, stops: []func(){nc.Close}}
	if p.faults[faultHelperRefuses] {
		// Another process would connect the same way: the peer's
		// credentials, a name of its own.
		hc, err := nats.Connect(cfg.URL, append(slices.Clone(opts), nats.Name("aghcheck peer helper "+p.self))...)
		if err != nil {
			cn.close()
			return nil, nil, fmt.Errorf("helper: connect to %s: %w", cfg.URL, err)
		}
		cn.stops = append(cn.stops, hc.Close)
		p.helper = hc.Publish
	}
	if p.live.slow > 0 {
		line := startDelayLine(p.live.slow, nc.Publish, p.log)
		cn.stops = append(cn.stops, line.stop)
		p.sendLate = line.push
	}
	return nc, cn, nil
}

// subscribeAll subscribes the peer to its subjects, and returns the
// subscription of its own peer subject (the one deaf-on closes).
func (p *peer) subscribeAll(nc *nats.Conn, inbox chan *nats.Msg) (*nats.Subscription, error) {
	subjects := []string{p.broadcast, p.ownSubject}
	if p.faults[faultChannelOnly] {
		// The subjects of the obsolete binding, without a workspace segment.
		subjects = append(subjects, agh.SubjectPrefix+"."+p.cfg.Channel+".broadcast",
			agh.SubjectPrefix+"."+p.cfg.Channel+".peer."+agh.RouteToken(p.self))
	}
	var own *nats.Subscription // the subscription deaf-on closes
	for _, subj := range subjects {
		sub, err := p.subscribe(nc, subj, inbox)
		if err != nil {
			return nil, fmt.Errorf("subscribe %s: %w", subj, err)
		}
		if subj == p.ownSubject {
			own = sub
		}
	}
	// Subscriptions must be live at the broker before the greet announces
	// the peer, or an immediate whois could be lost.
	if err := nc.FlushTimeout(5 * time.Second); err != nil {
		return nil, fmt.Errorf("subscribe on %s: %w", p.cfg.URL, err)
	}
	return own, nil
}

// peer is the state of one running reference peer. Only Run's goroutine
// touches it, so it needs no locks.
type peer struct {
	cfg    Config
	faults faultSet
	log    *slog.Logger
	send   func(subject string, data []byte) error // publishes on the broker
	// sendLate publishes DURATION late (slow:DURATION); nil when on time.
	sendLate func(subject string, data []byte) error
	// helper publishes on the helper's connection (helper-refuses); nil
	// without one.
	helper   func(subject string, data []byte) error
	live     liveness
	received int // messages delivered, counted for deaf-after:N
	now      func() time.Time

	self       string // the Peer ID (or verified handle) in from
	broadcast  string
	ownSubject string
	card       map[string]any
	catalog    []map[string]any

	ck      *agh.Checker
	ckAt    int64
	dropped int                // outbound envelopes the self-check refused to send
	seen    map[dedupKey]int64 // (sender, id) → Unix time the entry may be forgotten
	sweepAt int                // len(seen) that sweeps it early (see sweepDedupAt)
	peers   map[string]*remotePeer
	work    map[string]*work
	// initiated is the work this peer opened as initiator, by work_id: a
	// table apart, so the target's side never takes its reports for work
	// of its own (initiate.go).
	initiated map[string]*initiated
	// lastTrace is the id of the last trace sent (for faultReuseID).
	lastTrace string
	// inbox is the NATS reply subject of the message being handled.
	inbox string
	// deaf is set once garbage silenced the peer (faultDeafAfterGarbage).
	deaf bool
	// shunned are the senders of odd messages the peer ignores from then
	// on (faultShunOdd).
	shunned map[string]bool
	// due carries work completions that pace:DURATION timers hand to
	// Run's goroutine, the one that touches the peer; quit, closed when
	// Run returns, releases a timer that fires after.
	due  chan func()
	quit chan struct{}

	// The faults of a concurrent peer (race.go): race and flight for
	// racy-dedupe, arrivals, arrivedMS and lastOpen for
	// work-by-arrival-ms; nil and zero otherwise.
	race      *racer
	flight    *inFlight
	arrivals  *arrivals
	arrivedMS int64
	lastOpen  map[string]opened
}

type dedupKey struct{ from, id string }

type remotePeer struct {
	card     map[string]any
	lastSeen time.Time
}

func newPeer(cfg Config) (*peer, error) {
	fs, _ := parseFaults(cfg.Faults)
	live, _ := livenessOf(cfg.Faults)
	p := &peer{
		live:   live,
		cfg:    cfg,
		faults: fs,
		log:    cfg.Logger,
		now:    time.Now,
		self:   cfg.PeerID,
		seen:   map[dedupKey]int64{},
		peers:  map[string]*remotePeer{},
		work:   map[string]*work{},

		initiated: map[string]*initiated{},
		due:       make(chan func()),
		quit:      make(chan struct{}),
	}
	if fs[faultRacyDedupe] {
		p.race = newRacer()
	}
	if fs[faultRacyDedupe] || fs[faultWorkByArrival] {
		p.arrivals = &arrivals{}
	}
	if cfg.Key != nil {
		p.self = cfg.Nickname + "@" + trust.Fingerprint(cfg.Key.Public().(ed25519.PublicKey))
	}
	p.broadcast = agh.BroadcastSubject(cfg.Workspace, cfg.Channel)
	p.ownSubject = p.peerSubject(p.self)
	if p.faults[faultListenWrongRoute] {
		p.ownSubject = wrongRoute(cfg.Workspace, cfg.Channel, p.self)
	}
	if _, err := p.checker(); err != nil {
		return nil, err
	}
	cat, err := buildCatalog()
	if err != nil {
		return nil, err
	}
	if !cfg.NoCapabilityDiscovery && !p.faults[faultNoCapabilityWork] {
		p.catalog = cat
	}
	p.card = p.peerCard()
	return p, nil
}

// checker returns an engine whose clock is the current second; building
// one per second keeps freshness exact without rebuilding per message.
func (p *peer) checker() (*agh.Checker, error) {
	now := p.now().Unix()
	if p.ck != nil && p.ckAt == now {
		return p.ck, nil
	}
	opts := agh.Options{Now: now, MaxReplayAge: int64(p.cfg.MaxReplayAge / time.Second)}
	if p.faults[faultReferenceReadings] {
		opts.Errata = agh.Reference()
	}
	for name := range p.faults {
		if reading, ok := strings.CutPrefix(name, FaultReading); ok {
			_ = opts.Errata.Set(reading) // parseFaults knows it
		}
	}
	ck, err := agh.NewChecker(opts)
	if err != nil {
		return nil, fmt.Errorf("protocol engine: %w", err)
	}
	p.ck, p.ckAt = ck, now
	return ck, nil
}

// peerSubject is the NATS subject that reaches peerID directly.
func (p *peer) peerSubject(peerID string) string {
	if p.faults[faultWrongRouteToken] {
		return wrongRoute(p.cfg.Workspace, p.cfg.Channel, peerID)
	}
	return agh.PeerSubject(p.cfg.Workspace, p.cfg.Channel, peerID)
}

// wrongRoute is the peer subject of peerID with its route token derived
// wrongly: the last 32 hex digits of SHA-256 instead of the first.
func wrongRoute(ws, ch, peerID string) string {
	sum := sha256.Sum256([]byte(peerID))
	h := hex.EncodeToString(sum[:])
	return "agh.network.v0." + ws + "." + ch + ".peer." + h[len(h)-32:]
}

// envelope starts an outbound envelope with every required field and the
// nullable to/proof spelled out, as portable senders should.
func (p *peer) envelope(kind string, body map[string]any) map[string]any {
	return map[string]any{
		"protocol":     agh.Protocol,
		"id":           randid.UUID(), // UUIDs are RECOMMENDED (Envelope, id)
		"workspace_id": p.cfg.Workspace,
		"kind":         kind,
		"channel":      p.cfg.Channel,
		"from":         p.self,
		"to":           nil,
		"ts":           p.now().Unix(),
		"body":         body,
		"proof":        nil,
	}
}

// publish signs (in verified mode), self-checks and sends env. An
// envelope the engine would refuse is dropped and logged, unless a fault
// produced it on purpose: the reference peer never emits invalid traffic.
func (p *peer) publish(env map[string]any, deliberate bool, tamper func(map[string]any)) {
	p.publishOn("", env, deliberate, tamper)
}

// publishOn is publish on a subject of the caller's choosing ("" for the
// one env's to calls for): an init- fault that misroutes an opening.
func (p *peer) publishOn(subject string, env map[string]any, deliberate bool, tamper func(map[string]any)) {
	send := p.send
	if p.sendLate != nil && env["kind"] != "greet" {
		send = p.sendLate
	}
	p.bend(env)
	// The subject is chosen before an emit fault corrupts the envelope:
	// a broken to or workspace_id breaks it where it is sent.
	if subject == "" {
		subject = p.subjectFor(env)
	}
	emit, emitting := p.emitting(env)
	if emitting {
		emit.Patch(env)
		deliberate = true
	}
	if p.cfg.Key != nil {
		if err := trust.Sign(env, p.cfg.Key, p.cfg.Nickname); err != nil {
			p.log.Error("sign", "err", err)
			return
		}
	}
	if tamper != nil {
		tamper(env)
	}
	data, err := emit.Encode(env)
	if err != nil {
		p.log.Error("encode", "kind", env["kind"], "err", err)
		return
	}
	if !deliberate {
		if fs := p.outboundFindings(data); len(fs) > 0 {
			p.dropped++
			p.log.Debug("not sent: the engine refuses it", "kind", env["kind"], "finding", fs[0].String())
			return
		}
	}
	if err := send(subject, data); err != nil {
		p.log.Error("publish", "subject", subject, "err", err)
		return
	}
	p.log.Debug("sent", "kind", env["kind"], "id", env["id"], "to", env["to"], "subject", subject)
}

// subjectFor is where env goes: the target's peer subject when it is
// directed, else the broadcast subject.
func (p *peer) subjectFor(env map[string]any) string {
	to, _ := env["to"].(string)
	switch {
	case to == "":
		return p.broadcast
	case env["kind"] == "receipt" && p.faults[faultReceiptOnBroadcast]:
		return p.broadcast
	case p.inbox != "" && p.faults[faultReplyOnInbox]:
		return p.inbox
	}
	return p.peerSubject(to)
}

// outboundFindings is what the engine holds against an envelope we are
// about to send: every error-level finding, but for a rule an overlook
// fault tells the peer to overlook (it echoes what it accepted).
func (p *peer) outboundFindings(data []byte) []rules.Finding {
	ck, err := p.checker()
	if err != nil {
		return nil
	}
	var bad []rules.Finding
	for _, f := range ck.CheckBytes(data).Findings {
		// direct-unsorted answers in the room it derives itself.
		unsorted := p.faults[faultDirectUnsorted] && f.Rule == agh.RuleDirectDerivation
		if f.Rule.Severity == rules.Error && !p.faults.overlooks(f.Rule.ID) && !unsorted {
			bad = append(bad, f)
		}
	}
	return bad
}

// sweep forgets dedup entries, peers and closed work past their windows.
func (p *peer) sweep() {
	now := p.now()
	for k, until := range p.seen {
		if until <= now.Unix() {
			delete(p.seen, k)
		}
	}
	for id, rp := range p.peers {
		if now.After(rp.lastSeen.Add(2 * p.cfg.GreetInterval)) {
			delete(p.peers, id)
		}
	}
	for id, w := range p.initiated {
		if now.Sub(w.updated) > workRetention {
			delete(p.initiated, id)
		}
	}
	type closed struct {
		id string
		at time.Time
	}
	var done []closed
	for id, w := range p.work {
		switch {
		case now.Sub(w.updated) > workRetention:
			delete(p.work, id)
		case agh.IsTerminal(w.state):
			done = append(done, closed{id, w.updated})
		}
	}
	if len(done) > maxClosedWork {
		slices.SortFunc(done, func(a, b closed) int { return a.at.Compare(b.at) })
		for _, c := range done[:len(done)-maxClosedWork] {
			delete(p.work, c.id)
		}
	}
}

// workRetention is how long work is remembered after its last update, so
// late messages on terminal work still get work_closed.
const workRetention = time.Hour

// maxClosedWork bounds the terminal work remembered: past it the oldest
// is forgotten first (a late message on it is then news). Busy for an
// hour, a peer that remembered every closed unit grew by gigabytes (an
// hour of aghcheck fuzz opens millions); open work is always kept.
const maxClosedWork = 100000
