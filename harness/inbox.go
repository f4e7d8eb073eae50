package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/publication"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Per-scenario inbox limits: a flooding IUT must not exhaust memory or
// starve a scenario of the directed replies it waits for.
const (
	inboxDirectedLimit  = 2000
	inboxBroadcastLimit = 200
)

// inbox is what one scenario can see.
type inbox struct {
	mu        sync.Mutex
	msgs      []*message
	consumed  map[int]bool
	broadcast int
	dropped   int
	notify    chan struct{}
}

func newInbox() *inbox {
	return &inbox{consumed: map[int]bool{}, notify: make(chan struct{}, 1)}
}

func (in *inbox) add(m *message, broadcastOnly bool) {
	in.mu.Lock()
	switch {
	case broadcastOnly && in.broadcast >= inboxBroadcastLimit, len(in.msgs) >= inboxDirectedLimit:
		in.dropped++
		in.mu.Unlock()
		return
	case broadcastOnly:
		in.broadcast++
	}
	in.msgs = append(in.msgs, m)
	in.mu.Unlock()
	select {
	case in.notify <- struct{}{}:
	default:
	}
}

func (in *inbox) wasConsumed(m *message) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.consumed[m.seq]
}

func (in *inbox) droppedCount() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.dropped
}

// bus receives everything on agh.> and hands each message to the passive
// validator and to the scenarios it concerns.
type bus struct {
	start     time.Time
	workspace string
	channel   string
	broadcast string
	embedded  bool // every foreign publication is the IUT's
	budget    floodBudget
	now       func() time.Time

	mu        sync.Mutex
	seq       int
	iut       string
	greeted   chan *message
	greetOnce sync.Once
	// greets hears every greet of the IUT (the latest few), for the
	// wait after a restart or a reconnect.
	greets chan *message
	// heard, when set, hears every IUT message (liveness).
	heard   func(*message)
	byToken map[string]*inbox // route token → scenario
	byPeer  map[string]*inbox // test peer id → scenario
	// ours are the peer ids the harness speaks as (every scenario's test
	// peers, its own whois identity), kept for the whole run: an envelope
	// from one of them that the harness did not send is impersonation.
	ours     map[string]bool
	all      map[*inbox]bool
	passive  []*message   // every IUT message judged (within the budget)
	last     atomic.Int64 // when the latest message arrived (a time.Duration since start)
	iutCount int          // every IUT message, judged or not
	iutBytes int64        // and their bytes
	flooded  bool
	floodAt  time.Duration // when the IUT passed the budget (since the run started)
	floodWhy string        // which limit it passed, and when
	// onFlood, when set, is called once the IUT floods the run (b.mu
	// not held).
	onFlood func()
	dropped int
	track   *tracking
	// errata is the reading of the envelope rules the run judges by
	// (Options.Compat, Options.Errata): what the IUT sends is valid or
	// not under it, as validate would say with the same flags.
	errata agh.Errata
}

// floodBudget is what the run judges and keeps of the IUT's traffic: past
// either limit the IUT has flooded the run, and nothing more it publishes
// is judged, routed or kept.
type floodBudget struct {
	messages int
	bytes    int64
}

func newBus(start time.Time, ws, ch string, embedded bool, budget floodBudget, now func() time.Time) *bus {
	return &bus{
		start: start, workspace: ws, channel: ch, broadcast: agh.BroadcastSubject(ws, ch),
		embedded: embedded, budget: budget, now: now, track: newTracking(embedded),
		greeted: make(chan *message, 1), greets: make(chan *message, 16),
		byToken: map[string]*inbox{}, byPeer: map[string]*inbox{}, all: map[*inbox]bool{}, ours: map[string]bool{},
	}
}

// place sets the run's workspace and channel once they are known (an
// attached peer's, found from its traffic), before anything is received.
func (b *bus) place(ws, ch string) {
	b.workspace, b.channel, b.broadcast = ws, ch, agh.BroadcastSubject(ws, ch)
}

// expectIUT sets the peer id to wait for ("" accepts the first greeter).
func (b *bus) expectIUT(id string) {
	b.mu.Lock()
	b.iut = id
	b.mu.Unlock()
}

// register routes to in what the IUT sends the peers; unregister undoes it.
func (b *bus) register(in *inbox, peers peerSet) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.all[in] = true
	for id := range peers.ids {
		b.byPeer[id] = in
		b.ours[id] = true
	}
	for tok := range peers.tokens {
		b.byToken[tok] = in
	}
}

func (b *bus) unregister(in *inbox, peers peerSet) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.all, in)
	for id := range peers.ids {
		delete(b.byPeer, id)
	}
	for tok := range peers.tokens {
		delete(b.byToken, tok)
	}
}

// speaksAs records a peer id the harness sends as outside any scenario
// (its whois identity).
func (b *bus) speaksAs(id string) {
	b.mu.Lock()
	b.ours[id] = true
	b.mu.Unlock()
}

// impersonates reports whether m, an IUT message, speaks as one of the
// harness's peers. Only on the run's own broker: there the harness's
// connection never hears itself (NoEcho), and the confined IUT cannot
// make the broker publish for it (no JetStream API), so what arrives was
// published by the IUT's credentials. On a shared broker a stream's
// consumer may deliver the harness's own envelopes back.
func (b *bus) impersonates(m *message) (string, bool) {
	if !b.embedded || m.env == nil {
		return "", false
	}
	from, _ := m.env["from"].(string)
	b.mu.Lock()
	defer b.mu.Unlock()
	return from, from != "" && b.ours[from]
}

// check judges one IUT message: the agh engine and the subject rule, then
// the work-unit tracker.
func (b *bus) check(m *message, data []byte) {
	c, err := agh.NewChecker(agh.Options{Now: b.now().Unix(), Errata: b.errata})
	if err != nil {
		return
	}
	res := publication.Check(c, m.subject, data)
	m.env, m.findings = res.Envelope, res.Findings
	if m.env != nil {
		// The Envelope page's advice to senders, with the harness's clock.
		ts, ok := unixOf(m.env["ts"])
		m.findings = append(m.findings, requirements.SenderAdvice(m.env, ts, ok, b.now())...)
	}
	if from, ok := b.impersonates(m); ok {
		m.findings = append(m.findings, rules.New(requirements.SenderFromSelf, "/from", "the IUT's own Peer ID", from+", a test peer of aghcheck's that did not send it"))
	}
	tracked, acted := b.track.judge(m)
	m.findings, m.acted = append(m.findings, tracked...), acted
}

// receive takes one publication. data is not kept: once judged, what the
// run keeps of it is keep's.
func (b *bus) receive(subject string, data []byte) {
	m := &message{at: time.Since(b.start), subject: subject, size: len(data)}
	b.last.Store(int64(m.at))
	m.token = peerToken(subject, b.workspace, b.channel)
	if ok, flood := b.admit(m, data); !ok {
		if flood && b.onFlood != nil {
			b.onFlood()
		}
		return
	}
	b.mu.Lock()
	iut := b.iut
	b.passive = append(b.passive, m)
	var targets []*inbox
	directed := false
	if in := b.byToken[m.token]; in != nil {
		targets, directed = append(targets, in), true
	}
	if in := b.byPeer[m.to()]; in != nil && (len(targets) == 0 || targets[0] != in) {
		targets, directed = append(targets, in), true
	}
	if !directed && (subject == b.broadcast || !strings.HasPrefix(subject, agh.SubjectPrefix+"."+b.workspace+".")) {
		for in := range b.all {
			targets = append(targets, in)
		}
	}
	b.mu.Unlock()

	for _, in := range targets {
		in.add(m, !directed)
	}
	if b.heard != nil {
		b.heard(m)
	}
	if m.env != nil && iut != "" && m.from() == iut {
		k := m.kind()
		if k == "greet" || (k == "whois" && m.env["reply_to"] != nil) {
			b.greetOnce.Do(func() { b.greeted <- m })
		}
		if k == "greet" {
			select {
			case b.greets <- m:
			default:
			}
		}
	}
}

// lastHeard is when the IUT's latest message arrived (since the run
// started).
func (b *bus) lastHeard() time.Duration { return time.Duration(b.last.Load()) }

// isFlooded reports whether the IUT has flooded the run.
func (b *bus) isFlooded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flooded
}

// noteDropped takes the count of messages the client dropped for the
// harness's subscription: a running total, told again at each slow
// consumer episode.
func (b *bus) noteDropped(n int) {
	b.mu.Lock()
	b.dropped = max(b.dropped, n)
	b.mu.Unlock()
}

// peerToken is the route token of a peer subject of this channel ("" for
// any other subject).
func peerToken(subject, ws, ch string) string {
	if tok, ok := strings.CutPrefix(subject, agh.SubjectPrefix+"."+ws+"."+ch+".peer."); ok {
		return tok
	}
	return ""
}

// admit judges m, whose bytes are data, when it is the IUT's part in the
// run and reports whether it is (and the IUT has not flooded the run), and
// whether m is where the IUT flooded it. On the run's own broker
// everything is the IUT's, and its judged envelope says who sent it; on a
// shared one a cheap decode of from decides first.
func (b *bus) admit(m *message, data []byte) (ok, flood bool) {
	var probe struct {
		From      string `json:"from"`
		Kind      string `json:"kind"`
		Workspace string `json:"workspace_id"`
	}
	if !b.embedded && !b.isFlooded() {
		// Not an envelope: attributed by subject alone. Once the IUT has
		// flooded the run, nothing more of it is decoded.
		_ = json.Unmarshal(data, &probe)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	m.seq = b.seq
	if !b.embedded {
		b.learn(probe.Kind, probe.From, m.subject)
		// On a shared broker the same peer id may be at work in other
		// workspaces: only what it publishes into this run's workspace (by
		// subject or by envelope) is its part in the run.
		inRun := strings.HasPrefix(m.subject, agh.SubjectPrefix+"."+b.workspace+".") || probe.Workspace == b.workspace
		if b.iut == "" || probe.From != b.iut || !inRun {
			return false, false
		}
	}
	m.fromIUT = true
	b.iutCount++
	b.iutBytes += int64(m.size)
	if b.flooded {
		return false, false
	}
	if b.iutCount > b.budget.messages || b.iutBytes > b.budget.bytes {
		b.flooded, b.floodAt = true, m.at
		what := fmt.Sprintf("more than %d messages", b.budget.messages)
		if b.iutBytes > b.budget.bytes {
			what = "more than " + sizeText(b.budget.bytes)
		}
		b.floodWhy = fmt.Sprintf("%s by %s into the run", what, m.at.Round(time.Millisecond))
		return false, true
	}
	b.mu.Unlock()
	b.check(m, data)
	m.kept = keep(data)
	b.mu.Lock()
	if b.embedded {
		b.learn(m.kind(), m.from(), m.subject)
	}
	return true, false
}

// floodReason says why nothing more the IUT publishes is judged, and
// since when ("" while the IUT has not flooded the run).
func (b *bus) floodReason() (string, time.Duration) {
	if b == nil {
		return "", 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.flooded {
		return "", 0
	}
	return "the IUT flooded the run: it published " + b.floodWhy, b.floodAt
}

// sizeText is a byte count as the budgets are given: bytes, KiB, MiB or
// GiB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// learn takes the IUT's peer id from its first greet. b.mu is held.
func (b *bus) learn(kind, from, subject string) {
	if b.iut == "" && kind == "greet" && subject == b.broadcast && from != "" {
		b.iut = from
	}
}

// unixOf reads a decoded integer member (ts) as seconds.
func unixOf(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int64:
		return n, true
	case float64:
		return int64(n), n == float64(int64(n))
	}
	return 0, false
}
