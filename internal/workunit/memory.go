package workunit

import (
	"hash/maphash"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// key is a 128-bit hash standing for a string tuple (a sender and an
// envelope id, or a workspace, channel and work_id). The tracker keeps
// hashes, not strings, so an envelope it remembers costs the same few bytes
// whatever its ids: with two independent 64-bit hashes a collision among
// the million entries it may hold is too unlikely to matter.
type key struct{ a, b uint64 }

type hasher struct {
	s1, s2 maphash.Seed
	buf    []byte // scratch; the tracker's mutex guards it
}

func newHasher() *hasher { return &hasher{s1: maphash.MakeSeed(), s2: maphash.MakeSeed()} }

func (h *hasher) join(parts []string) []byte {
	b := h.buf[:0]
	for _, p := range parts {
		b = append(b, p...)
		b = append(b, 0)
	}
	h.buf = b
	return b
}

func (h *hasher) key(parts ...string) key {
	b := h.join(parts)
	return key{maphash.Bytes(h.s1, b), maphash.Bytes(h.s2, b)}
}

// sum is a 32-bit hash of parts, for comparing contents (a container, the
// logical content of an envelope), where a rare collision only hides a
// finding.
func (h *hasher) sum(parts ...string) uint32 {
	return uint32(maphash.Bytes(h.s1, h.join(parts)))
}

// short is a 16-bit hash of one string.
func (h *hasher) short(s string) uint16 { return uint16(h.sum(s)) }

// generation is one period of memory: what was seen or touched in it. The
// tracker holds two, the current one and the previous one, each one window
// long: a lookup that finds something in the previous generation moves it
// to the current one, and when the current generation is a window old the
// previous one is dropped whole. So everything touched within the last
// window is remembered, nothing idle for two windows is, and no per-entry
// timer or queue is needed: memory is the maps and nothing else.
type generation struct {
	start  int64 // Unix nanoseconds
	seen   map[key]seen
	units  map[key]*unit
	nunits int
	open   int // units not in a terminal state
	peers  map[peerKey]*peer
}

// newGeneration starts a generation sized like like (nil: empty), so that
// steady traffic does not grow its maps step by step.
func newGeneration(start int64, like *generation) *generation {
	g := &generation{start: start}
	if like == nil {
		like = &generation{}
	}
	g.seen = make(map[key]seen, len(like.seen))
	g.units = make(map[key]*unit, len(like.units))
	g.peers = make(map[peerKey]*peer, len(like.peers))
	return g
}

func (g *generation) size() int { return len(g.seen) + g.nunits + len(g.peers) }

// rotate drops what is due at now: a generation a window old, or, when the
// current one holds half of MaxEntries, the previous one early.
func (t *Tracker) rotate(now int64) {
	w := int64(t.cfg.Window)
	switch {
	case now-t.cur.start >= 2*w:
		// Idle for two windows: nothing remembered is still due.
		t.prev, t.cur = newGeneration(now-w, nil), newGeneration(now, nil)
	case now-t.cur.start >= w:
		t.prev, t.cur = t.cur, newGeneration(t.cur.start+w, t.cur)
	case t.cur.size() >= t.cfg.MaxEntries/2:
		// Memory cap: forget the previous generation before its time.
		// References to what it held can no longer be judged.
		t.stats.Evicted += t.prev.size()
		t.horizon = t.cur.start
		t.prev, t.cur = t.cur, newGeneration(now, t.cur)
	}
}

// lookupSeen finds what is remembered of an envelope, refreshing nothing:
// an envelope's id is remembered from when it was first seen.
func (t *Tracker) lookupSeen(k key) (seen, bool) {
	if s, ok := t.cur.seen[k]; ok {
		return s, true
	}
	s, ok := t.prev.seen[k]
	return s, ok
}

// units returns the chain of work units for k, moving an old chain into
// the current generation (it is being touched).
func (t *Tracker) unitChain(k key) *unit {
	if u := t.cur.units[k]; u != nil {
		return u
	}
	u := t.prev.units[k]
	if u == nil {
		return nil
	}
	n, open := 0, 0
	for x := u; x != nil; x = x.next {
		n++
		if !agh.IsTerminal(x.state) {
			open++
		}
	}
	delete(t.prev.units, k)
	t.prev.nunits -= n
	t.prev.open -= open
	t.cur.units[k] = u
	t.cur.nunits += n
	t.cur.open += open
	return u
}

func (t *Tracker) addUnit(k key, u *unit) {
	u.next = t.unitChain(k)
	t.cur.units[k] = u
	t.cur.nunits++
}

// peer returns the presence entry of id, moving it into the current
// generation; nil when unknown.
func (t *Tracker) peer(key peerKey) *peer {
	if p := t.cur.peers[key]; p != nil {
		return p
	}
	p := t.prev.peers[key]
	if p != nil {
		delete(t.prev.peers, key)
		t.cur.peers[p.key] = p // its own copy of the key
	}
	return p
}

func (t *Tracker) remembered() int { return t.cur.size() + t.prev.size() }
