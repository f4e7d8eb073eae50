package peer

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// The faults of a peer that handles messages concurrently: only traffic
// that arrives together (the concurrency suite's at_once steps) shows them;
// a scenario that waits for each answer before the next send sees a
// correct peer.
const (
	// faultRacyDedupe handles each message in a goroutine of its own. Its
	// id is looked up in the dedupe table (and its work in the work table)
	// when it arrives, but recorded only once the message is handled, a
	// moment later and in arrival order: a copy that arrives while the
	// first is still in flight passes the lookup too, and is worked on as
	// if it were the first.
	faultRacyDedupe = "racy-dedupe"
	// faultWorkByArrival keeps the conversation container of the work it
	// opens in a table keyed by the initiator and the millisecond the
	// opening arrived in (a session id from the sender and the clock), not
	// by work_id: a unit opened in the same millisecond as another of the
	// same initiator is bound to that one's container, where it reports,
	// and refuses its own initiator's continuations as from another
	// container. Only openings sent together are sure to share a
	// millisecond.
	faultWorkByArrival = "work-by-arrival-ms"
)

// raceWindow is how long a message of faultRacyDedupe is in flight between
// its arrival (its dedupe lookup) and its handling (its record): copies
// sent together come off the socket well within it, while a copy sent
// after the first one's answer comes after the first was recorded.
const raceWindow = 20 * time.Millisecond

var raceFaults = []Fault{
	{faultRacyDedupe, GroupConcurrency, "handles each message in a goroutine of its own: it looks the id up in its dedupe table (and the work in its work table) on arrival but records it only once the message is handled, 20 ms later and in arrival order, so a copy that arrives while the first is in flight is worked on again (a copy of an opening opens the work anew)", []string{"DELIV-DEDUPE", "LIFE-TERMINAL-FINAL"}},
	{faultWorkByArrival, GroupConcurrency, "keys the container a unit of work is bound to by its initiator and the millisecond its opening arrived in, not by work_id: a unit opened in the same millisecond as another of the same initiator reports in that one's container and refuses its initiator's continuations as from another container", []string{"LIFE-CORRELATION"}},
}

// GroupConcurrency is the group of the faults only concurrent traffic
// shows, which the concurrency scenarios catch.
const GroupConcurrency = "concurrency"

// inFlight is a message of faultRacyDedupe between its arrival and its
// handling.
type inFlight struct {
	m    *nats.Msg
	at   arrival  // when it came off the socket (arrivals)
	key  dedupKey // its (sender, id)
	work string   // its work_id
	// through: it was a duplicate when handled, let through as new.
	through bool
	done    chan struct{}
}

// racer hands the messages of faultRacyDedupe back to Run's goroutine in
// arrival order, each raceWindow after it arrived, and remembers when each
// id was first recorded (how many messages had arrived by then) and which
// message opened each work. A copy slips through when it came off the
// socket before its first copy was recorded: whether it did is read from
// the order of arrivals, not from how busy the peer is, so a copy sent
// after the first one's answer never does.
type racer struct {
	out      chan *inFlight
	last     chan struct{}       // closed when the newest message before was handed on
	recorded map[dedupKey]uint64 // arrivals counted when each id was first handled
	openedBy map[string]dedupKey // work_id → the message that opened it
}

func newRacer() *racer {
	last := make(chan struct{})
	close(last)
	return &racer{out: make(chan *inFlight), last: last, recorded: map[dedupKey]uint64{}, openedBy: map[string]dedupKey{}}
}

// arrive takes m, which came off the socket at at, into flight (Run's
// goroutine).
func (p *peer) arrive(m *nats.Msg, at arrival) {
	var head struct {
		From string `json:"from"`
		ID   string `json:"id"`
		Work string `json:"work_id"`
	}
	_ = json.Unmarshal(m.Data, &head)
	f := &inFlight{m: m, at: at, key: p.dedupKey(head.From, head.ID), work: head.Work, done: make(chan struct{})}
	r := p.race
	prev := r.last
	r.last = f.done
	go func() {
		defer close(f.done)
		t := time.NewTimer(time.Until(at.at.Add(raceWindow)))
		defer t.Stop()
		select {
		case <-t.C:
		case <-p.quit:
			return
		}
		select {
		case <-prev:
		case <-p.quit:
			return
		}
		select {
		case r.out <- f:
		case <-p.quit:
		}
	}()
}

// inFlight reads m's arrival (a fault that reads arrival times) and, with
// faultRacyDedupe, takes it into flight: it is handled later. It reports
// whether it did (Run's goroutine).
func (p *peer) inFlight(m *nats.Msg) bool {
	if p.arrivals == nil {
		return false
	}
	at := p.arrivals.take(m)
	p.arrivedMS = at.at.UnixMilli()
	if p.race == nil {
		return false
	}
	p.arrive(m, at)
	return true
}

// handleInFlight handles a message of faultRacyDedupe (Run's goroutine).
func (p *peer) handleInFlight(f *inFlight) {
	r := p.race
	p.flight = f
	defer func() { p.flight = nil }()
	if _, ok := r.recorded[f.key]; !ok {
		now := p.arrivals.count()
		if len(r.recorded) > 1<<16 {
			// What arrived this long ago was handled long ago: the dedupe
			// table answers for it.
			for k, n := range r.recorded {
				if now-n > 1<<15 {
					delete(r.recorded, k)
				}
			}
		}
		r.recorded[f.key] = now
	}
	had := p.work[f.work] != nil
	p.receive(f.m)
	if f.work != "" && !had && p.work[f.work] != nil {
		r.openedBy[f.work] = f.key
	}
}

// slipsThrough reports, for a message whose id the dedupe table holds,
// whether its lookup ran before the first copy was recorded (it arrived
// before that one was handled): the race lets it through as new.
func (p *peer) slipsThrough() bool {
	f := p.flight
	if f == nil {
		return false
	}
	at, ok := p.race.recorded[f.key]
	if !ok || f.at.seq >= at {
		return false
	}
	f.through = true
	return true
}

// staleWork reports whether the message being handled slipped through
// the dedupe table and its work was opened by its first copy: its lookup
// ran before that, so it finds no work and opens it anew.
func (p *peer) staleWork() bool {
	f := p.flight
	return f != nil && f.through && f.work != "" && p.race.openedBy[f.work] == f.key
}

// arrivals stamps each message with the time it came off the socket
// (faultRacyDedupe, faultWorkByArrival), in the subscription's own
// goroutine: how long the peer then takes to handle a burst, or how much
// else is queued, does not spread it out.
type arrivals struct {
	mu sync.Mutex
	at map[*nats.Msg]arrival
	n  uint64 // messages stamped so far
}

// arrival is when a message came off the socket, and how many came before.
type arrival struct {
	at  time.Time
	seq uint64
}

func (a *arrivals) note(m *nats.Msg) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at == nil {
		a.at = map[*nats.Msg]arrival{}
	}
	a.at[m] = arrival{time.Now(), a.n}
	a.n++
}

func (a *arrivals) take(m *nats.Msg) arrival {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.at[m]
	delete(a.at, m)
	return at
}

// count is how many messages have been stamped so far.
func (a *arrivals) count() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// byArrival is the container faultWorkByArrival binds a unit that from
// opens now to: that of the unit from opened in the same millisecond
// before it, if any.
func (p *peer) byArrival(from string, where container) container {
	last, ok := p.lastOpen[from]
	if ok && p.arrivedMS != 0 && p.arrivedMS == last.ms {
		return last.where
	}
	if p.lastOpen == nil || len(p.lastOpen) > 1024 {
		p.lastOpen = map[string]opened{} // only the latest millisecond matters
	}
	p.lastOpen[strings.Clone(from)] = opened{p.arrivedMS, where}
	return where
}

// opened is the latest opening of one initiator (faultWorkByArrival).
type opened struct {
	ms    int64
	where container
}

// raced is where the messages of faultRacyDedupe come back to be handled
// (nil, never ready, without the fault).
func (p *peer) raced() <-chan *inFlight {
	if p.race == nil {
		return nil
	}
	return p.race.out
}

// subscribe subscribes subj into inbox; with a fault that reads arrival
// times each message is stamped on the way.
func (p *peer) subscribe(nc *nats.Conn, subj string, inbox chan *nats.Msg) (*nats.Subscription, error) {
	if p.arrivals == nil {
		return nc.ChanSubscribe(subj, inbox)
	}
	return nc.Subscribe(subj, func(m *nats.Msg) {
		p.arrivals.note(m)
		inbox <- m
	})
}
