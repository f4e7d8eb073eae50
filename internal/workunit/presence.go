package workunit

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/requirements"
)

// peer is the presence of one sender: periodic greet is the heartbeat, and
// a receiver expires a peer two greet intervals after its last greet.
type peer struct {
	id     string
	last   int64 // last envelope of any kind
	greet  int64 // last greet (0: none seen)
	lapsed bool  // a heartbeat finding was reported since the last greet
}

// presence refreshes the sender's entry and judges the heartbeat: a peer
// that keeps publishing more than two intervals after its last greet (or,
// never having greeted, after the tracker started) has expired from its
// receivers' presence tables and should have greeted again.
func (t *Tracker) presence(o *obs) {
	p := t.peer(o.from)
	if p == nil {
		id := strings.Clone(o.from) // not the memory of the whole envelope
		p = &peer{id: id}
		t.cur.peers[id] = p
	}
	p.last = o.now
	if o.kind == "greet" {
		p.greet, p.lapsed = o.now, false
		return
	}
	base := p.greet
	if base == 0 {
		base = t.since
	}
	lapse := 2 * int64(t.cfg.GreetInterval)
	if o.now-base <= lapse || p.lapsed {
		return
	}
	p.lapsed = true
	found := fmt.Sprintf("no greet for %s", time.Duration(o.now-base).Round(time.Second))
	if p.greet == 0 {
		found = fmt.Sprintf("no greet seen in %s of observation", time.Duration(o.now-base).Round(time.Second))
	}
	o.add(requirements.DiscGreetHeartbeat, "", fmt.Sprintf("a greet at least every %s (expired after %s)",
		t.cfg.GreetInterval, time.Duration(lapse)), found)
}

// Presence is what the tracker knows of one peer.
type Presence struct {
	Peer      string
	LastSeen  time.Time
	LastGreet time.Time // zero when no greet was seen
	// Expired: two greet intervals have passed since its last greet (or,
	// never having greeted, since the tracker started): receivers have
	// dropped it from their presence tables.
	Expired bool
}

// Presence lists the peers remembered, by id.
func (t *Tracker) Presence() []Presence {
	t.mu.Lock()
	defer t.mu.Unlock()
	lapse := 2 * int64(t.cfg.GreetInterval)
	var out []Presence
	if t.cur == nil {
		return nil
	}
	for _, p := range append(values(t.cur.peers), values(t.prev.peers)...) {
		base := p.greet
		if base == 0 {
			base = t.since
		}
		pr := Presence{Peer: p.id, LastSeen: time.Unix(0, p.last), Expired: t.clock-base > lapse}
		if p.greet != 0 {
			pr.LastGreet = time.Unix(0, p.greet)
		}
		out = append(out, pr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Peer < out[j].Peer })
	return out
}

func values(m map[string]*peer) []*peer {
	out := make([]*peer, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	return out
}
