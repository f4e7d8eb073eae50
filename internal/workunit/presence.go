package workunit

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/requirements"
)

// peer is the presence of one sender in one channel: periodic greet is
// the heartbeat, and a receiver expires a peer two greet intervals after
// its last greet. Receivers keep a table per channel (a greet goes to
// one channel's broadcast subject), so a greet in one channel keeps the
// sender present in no other.
type peer struct {
	key    peerKey // its entry in a generation's peers
	id     string
	ws, ch string
	last   int64 // last envelope of any kind
	greet  int64 // last greet (0: none seen)
	lapsed bool  // a heartbeat finding was reported since the last greet
}

// peerKey is the key of a sender's presence in a channel. A lookup's
// strings are the envelope's; a stored key holds copies of its own.
type peerKey struct{ ws, ch, from string }

// presence refreshes the sender's entry and judges the heartbeat: a peer
// that keeps publishing more than two intervals after its last greet (or,
// never having greeted, after the tracker started) has expired from its
// receivers' presence tables and should have greeted again.
func (t *Tracker) presence(o *obs) {
	p := t.peer(peerKey{o.ws, o.ch, o.from})
	if p == nil {
		// Copies: not the memory of the whole envelope.
		k := peerKey{strings.Clone(o.ws), strings.Clone(o.ch), strings.Clone(o.from)}
		p = &peer{key: k, id: k.from, ws: k.ws, ch: k.ch}
		t.cur.peers[k] = p
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

// Presence is what the tracker knows of one peer in one channel.
type Presence struct {
	Peer               string
	Workspace, Channel string
	LastSeen           time.Time
	LastGreet          time.Time // zero when no greet was seen
	// Expired: two greet intervals have passed since its last greet (or,
	// never having greeted, since the tracker started): receivers have
	// dropped it from their presence tables.
	Expired bool
}

// Presence lists the peers remembered, by id, then workspace and channel.
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
		pr := Presence{Peer: p.id, Workspace: p.ws, Channel: p.ch, LastSeen: time.Unix(0, p.last), Expired: t.clock-base > lapse}
		if p.greet != 0 {
			pr.LastGreet = time.Unix(0, p.greet)
		}
		out = append(out, pr)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Peer != b.Peer {
			return a.Peer < b.Peer
		}
		if a.Workspace != b.Workspace {
			return a.Workspace < b.Workspace
		}
		return a.Channel < b.Channel
	})
	return out
}

func values(m map[peerKey]*peer) []*peer {
	out := make([]*peer, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	return out
}
