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

// raceWindow is how long a message of faultRacyDedupe is in flight
// between its dedupe lookup and its record: long enough that copies sent
// together always overlap, short enough that a scenario waiting for each
// answer never notices.
const raceWindow = 20 * time.Millisecond

var raceFaults = []Fault{
	{faultRacyDedupe, GroupConcurrency, "handles each message in a goroutine of its own: it looks the id up in its dedupe table (and the work in its work table) on arrival but records it only once the message is handled, 20 ms later and in arrival order, so a copy that arrives while the first is in flight is worked on again (a duplicate opening opens the work anew)", []string{"DELIV-DEDUPE", "LIFE-TERMINAL-FINAL"}},
	{faultWorkByArrival, GroupConcurrency, "keys the container a unit of work is bound to by its initiator and the millisecond its opening arrived in, not by work_id: a unit opened in the same millisecond as another of the same initiator reports in that one's container and refuses its initiator's continuations as from another container", []string{"LIFE-CORRELATION"}},
}

// GroupConcurrency is the group of the faults only concurrent traffic
// shows, which the concurrency scenarios catch.
const GroupConcurrency = "concurrency"

// inFlight is a message of faultRacyDedupe between its arrival and its
// handling: what the tables said when it arrived.
type inFlight struct {
	m      *nats.Msg
	dup    bool // its (sender, id) was in the dedupe table
	noWork bool // its work_id was not in the work table
	// through: it was a duplicate when handled, let through as new.
	through bool
	done    chan struct{}
}

// racer hands the messages of faultRacyDedupe back to Run's goroutine in
// arrival order, each raceWindow after its lookup.
type racer struct {
	out  chan *inFlight
	last chan struct{} // closed when the message before the newest was handed on
}

func newRacer() *racer {
	last := make(chan struct{})
	close(last)
	return &racer{out: make(chan *inFlight), last: last}
}

// arrive looks m up in the tables now and hands it on later (Run's
// goroutine).
func (p *peer) arrive(m *nats.Msg) {
	var head struct {
		From string `json:"from"`
		ID   string `json:"id"`
		Work string `json:"work_id"`
	}
	_ = json.Unmarshal(m.Data, &head)
	f := &inFlight{m: m, done: make(chan struct{})}
	_, f.dup = p.seen[p.dedupKey(head.From, head.ID)]
	f.noWork = p.work[head.Work] == nil
	prev, r := p.race.last, p.race
	r.last = f.done
	go func() {
		defer close(f.done)
		t := time.NewTimer(raceWindow)
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

// handleInFlight handles a message of faultRacyDedupe with what the tables
// said when it arrived (Run's goroutine).
func (p *peer) handleInFlight(f *inFlight) {
	p.flight = f
	defer func() { p.flight = nil }()
	p.receive(f.m)
}

// slipsThrough reports, for a message whose id the dedupe table now
// holds, whether it is a copy whose id was not yet recorded when it
// arrived: the race lets it through as new (and remembers that it did).
func (p *peer) slipsThrough() bool {
	if p.flight == nil || p.flight.dup {
		return false
	}
	p.flight.through = true
	return true
}

// staleWork reports whether the message being handled slipped through
// the dedupe table and found no work in the work table when it arrived:
// it acts on the tables as they were then.
func (p *peer) staleWork() bool { return p.flight != nil && p.flight.through && p.flight.noWork }

// arrivals stamps each message with the millisecond it came in
// (faultWorkByArrival), in the subscription's own goroutine: how long the
// peer then takes to handle a burst does not spread it out.
type arrivals struct {
	mu sync.Mutex
	at map[*nats.Msg]int64
}

func (a *arrivals) note(m *nats.Msg) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at == nil {
		a.at = map[*nats.Msg]int64{}
	}
	a.at[m] = time.Now().UnixMilli()
}

func (a *arrivals) take(m *nats.Msg) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.at[m]
	delete(a.at, m)
	return at
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

// subscribe subscribes subj into inbox; with faultWorkByArrival each
// message is stamped with its arrival on the way.
func (p *peer) subscribe(nc *nats.Conn, subj string, inbox chan *nats.Msg) (*nats.Subscription, error) {
	if p.arrivals == nil {
		return nc.ChanSubscribe(subj, inbox)
	}
	return nc.Subscribe(subj, func(m *nats.Msg) {
		p.arrivals.note(m)
		inbox <- m
	})
}
