package monitor

import (
	"runtime"
	"sort"
	"time"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

// Summary is the monitor's running (or final) account.
type Summary struct {
	URL     string        `json:"url"`
	Subject string        `json:"subject"`
	Shard   string        `json:"shard,omitempty"`  // K/N: this monitor's part of the traffic
	Stream  string        `json:"stream,omitempty"` // the JetStream stream read, through the consumer Durable
	Durable string        `json:"durable,omitempty"`
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Delivered counts the messages the broker delivered to the monitor
	// (Judged + Dropped, once the run is over).
	Delivered uint64 `json:"delivered"`
	Judged    uint64 `json:"judged"`
	Dropped   int    `json:"dropped"` // by the client as a slow consumer
	Repeats   int    `json:"repeats"` // same sender, id and content again: judged once
	// Replayed counts the stream's messages read again at start, judged
	// and reported before a restart: they restore the tracker's state.
	Replayed uint64      `json:"replayed,omitempty"`
	Rate     float64     `json:"rate"` // envelopes judged per second since the last tick; in the final summary, over the whole watch
	Errors   int         `json:"errors"`
	Warnings int         `json:"warnings"`
	Rules    []RuleCount `json:"rules"`
	Peers    []PeerCount `json:"peers"`
	// OtherPeers counts envelopes from peers past the table's limit.
	OtherPeers int            `json:"other_peers,omitempty"`
	Tracker    workunit.Stats `json:"tracker"`
	Expired    int            `json:"expired_peers"` // peers whose presence lapsed in a channel (no greet there for two intervals)
	PeakHeap   uint64         `json:"peak_heap_bytes"`
}

// RuleCount is how often one rule was broken.
type RuleCount struct {
	Rule  string `json:"rule"`
	Level string `json:"level"`
	Count int    `json:"count"`
}

// PeerCount is one sender's account.
type PeerCount struct {
	Peer      string    `json:"peer"`
	Envelopes int       `json:"envelopes"`
	Errors    int       `json:"errors"`
	Warnings  int       `json:"warnings"`
	LastSeen  time.Time `json:"last_seen"`
	Expired   bool      `json:"expired,omitempty"`
}

// maxPeers bounds the per-peer table; further peers are only counted.
const maxPeers = 10_000

// sender names who published f for people: its from, or why there is none.
func sender(f *Finding) string {
	switch {
	case f.Rule == Dropped:
		return "(monitor)"
	case f.Peer != "":
		return f.Peer
	case f.ID != "" || f.Kind != "":
		return "(no from)"
	}
	return "(not an envelope)"
}

// tally accumulates the summary; only the judge loop touches it.
type tally struct {
	cfg         Config
	started     time.Time
	judged      uint64
	repeats     int
	replayed    uint64
	errs, warns int
	byRule      map[*rules.Rule]int
	byPeer      map[string]*PeerCount
	otherPeers  int
	dropped     int
	disconnects int64
	peakHeap    uint64
	lastTick    time.Time
	lastJudged  uint64
	rate        float64
	last        time.Time
}

func newTally(cfg Config, now time.Time) *tally {
	return &tally{cfg: cfg, started: now, lastTick: now, byRule: map[*rules.Rule]int{}, byPeer: map[string]*PeerCount{}}
}

func (t *tally) peer(id string) *PeerCount {
	p := t.byPeer[id]
	if p == nil && len(t.byPeer) < maxPeers {
		p = &PeerCount{Peer: id}
		t.byPeer[id] = p
	}
	return p
}

// envelope counts one judged envelope from peer (a sender label).
func (t *tally) envelope(peer string, at time.Time, repeat bool) {
	t.judged++
	t.last = at
	if repeat {
		t.repeats++
	}
	if p := t.peer(peer); p != nil {
		p.Envelopes++
		p.LastSeen = t.last
	} else {
		t.otherPeers++
	}
}

func (t *tally) finding(f *Finding) {
	t.byRule[f.Rule]++
	var p *PeerCount
	if f.Rule != Dropped {
		p = t.peer(sender(f))
	}
	if f.Rule.Severity == rules.Error {
		t.errs++
		if p != nil {
			p.Errors++
		}
	} else {
		t.warns++
		if p != nil {
			p.Warnings++
		}
	}
}

func (m *monitor) snapshot(now time.Time) *Summary {
	t := m.sum
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.peakHeap = max(t.peakHeap, ms.HeapInuse)
	if dt := now.Sub(t.lastTick).Seconds(); dt > 0.2 {
		t.rate = float64(t.judged-t.lastJudged) / dt
		t.lastTick, t.lastJudged = now, t.judged
	}
	s := &Summary{
		URL: m.cfg.Endpoint.URL, Subject: m.cfg.Subject, Started: t.started, Elapsed: now.Sub(t.started),
		Delivered: m.src.delivered(), Judged: t.judged, Dropped: t.dropped,
		Repeats: t.repeats, Replayed: t.replayed, Rate: t.rate, Errors: t.errs, Warnings: t.warns, OtherPeers: t.otherPeers,
		Tracker: m.tracker.Stats(), PeakHeap: t.peakHeap, Stream: m.stream, Durable: m.cfg.Durable,
	}
	if m.cfg.Shard.N > 0 {
		s.Shard = m.cfg.Shard.String()
	}
	for r, n := range t.byRule {
		s.Rules = append(s.Rules, RuleCount{Rule: r.ID, Level: r.Severity.Level(), Count: n})
	}
	sort.Slice(s.Rules, func(i, j int) bool {
		if s.Rules[i].Count != s.Rules[j].Count {
			return s.Rules[i].Count > s.Rules[j].Count
		}
		return s.Rules[i].Rule < s.Rules[j].Rule
	})
	expired := map[string]bool{}
	for _, p := range m.tracker.Presence() {
		if p.Expired && !expired[p.Peer] {
			expired[p.Peer] = true // in one channel at least
			s.Expired++
		}
	}
	for _, p := range t.byPeer {
		pc := *p
		pc.Expired = expired[p.Peer]
		s.Peers = append(s.Peers, pc)
	}
	sort.Slice(s.Peers, func(i, j int) bool {
		a, b := s.Peers[i], s.Peers[j]
		if a.Errors != b.Errors {
			return a.Errors > b.Errors
		}
		if a.Envelopes != b.Envelopes {
			return a.Envelopes > b.Envelopes
		}
		return a.Peer < b.Peer
	})
	return s
}
