// Package workunit follows every unit of AGH work across the traffic of a
// network and judges what no single envelope shows: the lifecycle state
// machine (allowed transitions only, never back to submitted, nothing but
// refusals after a terminal state), container binding, who may speak for a
// work unit, whether for_id and reply_to name real envelopes, id reuse by
// one sender, and the greet heartbeat. It is the one tracker behind the live
// harness's passive judging and aghcheck monitor.
//
// Memory is bounded: envelope ids, work units and peers are forgotten once
// idle for the replay window (300 s by default), and the oldest first when
// Config.MaxEntries is reached.
package workunit

import (
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Defaults for a zero Config.
const (
	DefaultWindow        = agh.DefaultMaxReplayAge * time.Second
	DefaultGreetInterval = 30 * time.Second
	DefaultMaxEntries    = 1 << 20
)

// Config tunes a Tracker.
type Config struct {
	// Window is the replay window: an envelope id is unique within its
	// sender's window, and ids, work units and peers idle this long are
	// forgotten (default 300 s).
	Window time.Duration
	// GreetInterval is the expected presence heartbeat (default 30 s); a
	// peer's presence lapses two intervals after its last greet.
	GreetInterval time.Duration
	// MaxEntries caps how many envelope ids, work units and peers are
	// remembered (default 1<<20, about 100 MiB); past it the oldest go
	// first, and references older than what is still remembered are no
	// longer judged.
	MaxEntries int
	// Complete says the tracker sees the whole network from its start (a
	// run on an embedded broker), so a reference to an envelope it never saw
	// is wrong at once; otherwise references are judged only after a full
	// window of observation.
	Complete bool
}

// Envelope is one publication as the tracker sees it.
type Envelope struct {
	At  time.Time      // when it was seen
	Env map[string]any // the decoded envelope
	// Judged says whether its publisher is under judgement (the IUT in a
	// run, every peer in a monitor). An unjudged envelope (a test peer's,
	// perhaps deliberately broken) still moves the tracked state but never
	// earns a finding.
	Judged bool
	// Refused says a receiver must refuse it (the engine finds it
	// malformed, expired, badly signed…): its id is remembered, so that a
	// refusal may name it, but it opens, changes and announces nothing.
	Refused bool
}

// Stats are the tracker's counters.
type Stats struct {
	Envelopes int `json:"envelopes"` // observed
	Units     int `json:"units"`     // work units remembered now
	Open      int `json:"open"`      // of which not terminal
	IDs       int `json:"ids"`       // envelope ids remembered now
	Peers     int `json:"peers"`     // peers remembered now
	Evicted   int `json:"evicted"`   // things forgotten before their window ended (MaxEntries reached)
}

// Tracker is safe for concurrent use.
type Tracker struct {
	mu        sync.Mutex
	cfg       Config
	h         *hasher
	cur, prev *generation
	clock     int64 // the latest time seen, Unix nanoseconds
	since     int64 // the first
	horizon   int64 // what is older may have been forgotten early (MaxEntries)
	stats     Stats
}

// seen is what the tracker remembers of one envelope, keyed by (from, id).
type seen struct {
	sig  uint32 // its logical content, to tell a retry from id reuse
	cont uint32 // its container (0: none)
	// ws and ch hash its workspace and channel apart, so that a report in
	// another container says whether the workspace, the channel or only
	// the container differs (16 bits each: only the wording rests on them).
	ws, ch uint16
	kind   uint8 // kindCodes
	flags  uint8
}

const (
	hasWork uint8 = 1 << iota // it carried a work_id
	// A message that must not change its work: a continuation after a
	// terminal state, from another container, or from a non-participant.
	forbidTerminal
	forbidContainer
	forbidOutsider
	// refused: it was refused (Envelope.Refused), so it changed nothing and
	// a sound copy of it later is news, not a repeat.
	refused
	forbidAny = forbidTerminal | forbidContainer | forbidOutsider
)

// New returns a tracker for cfg (zero fields take the defaults).
func New(cfg Config) *Tracker {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.GreetInterval <= 0 {
		cfg.GreetInterval = DefaultGreetInterval
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	return &Tracker{cfg: cfg, h: newHasher()}
}

// Config returns the configuration in force (defaults filled in).
func (t *Tracker) Config() Config { return t.cfg }

// Result is what observing one envelope concluded.
type Result struct {
	// Findings: what the envelope breaks in the light of everything seen
	// before (none for an unjudged envelope).
	Findings []rules.Finding
	// Acted: of Findings, those that show the peer acted on a message a
	// receiver must refuse or leave alone (work from another container, a
	// continuation of terminal work, a say without work_id taken as work,
	// a second cancellation): a receiver's duty, seen in what it sent. The
	// rest are about what it sent itself (a sender's duty).
	Acted []rules.Finding
	// Repeat: the sender already sent this id with the same content within
	// the window (a retry, or a duplicate delivery); it was not applied again.
	Repeat bool
}

// Observe follows one envelope.
func (t *Tracker) Observe(e Envelope) Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.tick(e.At.UnixNano())
	t.stats.Envelopes++
	o := &obs{t: t, env: e.Env, now: now, judged: e.Judged}
	o.read()
	if o.from == "" || o.id == "" {
		return Result{}
	}
	if !e.Refused {
		t.presence(o)
	}
	sk := t.h.key(o.from, o.id)
	sig := o.signature()
	if prev, dup := t.lookupSeen(sk); dup && (prev.flags&refused == 0 || e.Refused) {
		// A repeat of a known id is a retry (same logical message) or a
		// reuse; either way it is not applied twice.
		if prev.sig != sig {
			o.add(requirements.DelivIDUnique, "/id", "an id not used before by "+o.from+" within the replay window",
				o.id+" (already used for another "+kindName(prev.kind)+")")
		}
		return Result{Findings: o.out, Repeat: prev.sig == sig}
	}
	rec := seen{sig: sig, cont: o.cont, ws: o.t.h.short(o.ws), ch: o.t.h.short(o.ch), kind: o.kindCode()}
	if o.work != "" {
		rec.flags |= hasWork
	}
	if e.Refused {
		rec.flags |= refused
		t.cur.seen[sk] = rec
		return Result{}
	}
	switch o.kind {
	case "whois":
		o.checkReplyTo(true)
	case "say", "capability":
		o.checkReplyTo(false)
		rec.flags |= o.conversation()
	case "receipt", "trace":
		o.checkReplyTo(false)
		o.report()
	}
	t.cur.seen[sk] = rec
	return Result{Findings: o.out, Acted: o.acted}
}

// Expire advances the tracker's clock to now without traffic, forgetting
// what has gone idle.
func (t *Tracker) Expire(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tick(now.UnixNano())
}

// tick moves the clock (never backwards) and expires what is due.
func (t *Tracker) tick(at int64) int64 {
	if t.cur == nil {
		t.since = at
		t.cur, t.prev = newGeneration(at, nil), newGeneration(at, nil)
	}
	t.clock = max(t.clock, at)
	t.rotate(t.clock)
	return t.clock
}

// Stats returns the counters.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	if t.cur == nil {
		return s
	}
	for _, g := range []*generation{t.cur, t.prev} {
		s.Units += g.nunits
		s.Open += g.open
		s.IDs += len(g.seen)
		s.Peers += len(g.peers)
	}
	return s
}

// State returns the state of the work unit (workspace, channel, surface,
// container id, work_id), if it is remembered.
func (t *Tracker) State(workspace, channel, surface, container, workID string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil {
		return "", false
	}
	for u := t.unitChain(t.h.key(workspace, channel, workID)); u != nil; u = u.next {
		if u.surface == surface && u.container == container {
			return u.state, true
		}
	}
	return "", false
}

// judgeable reports whether an envelope published before now that the
// tracker does not remember can be said not to exist: everything since the
// tracker started (or a full window) is remembered, and nothing was forgotten early.
func (t *Tracker) judgeable(now int64) bool {
	w := int64(t.cfg.Window)
	if t.horizon != 0 && now-t.horizon < w {
		return false
	}
	return t.cfg.Complete || now-t.since >= w
}
