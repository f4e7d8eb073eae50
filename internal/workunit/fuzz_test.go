package workunit

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// fuzzSteps turns bytes into a sequence of envelopes over a small world (four
// peers, a few ids, two work ids, three containers), so that repeats, races
// between containers and every transition occur often.
func fuzzSteps(data []byte) ([]step, []int) {
	peers := []string{"alice", "bob", "carol", ""}
	ids := []string{"m1", "m2", "m3", "m4", "m5"}
	kinds := []string{"say", "capability", "receipt", "trace", "greet", "whois", "bogus"}
	statuses := []string{"accepted", "rejected", "duplicate", "expired", "unsupported", "canceled", ""}
	var steps []step
	var ats []int
	at := 0
	for i := 0; i+4 <= len(data); i += 4 {
		a, b, c, d := data[i], data[i+1], data[i+2], data[i+3]
		s := step{
			Kind: kinds[int(a)%len(kinds)],
			From: peers[int(a>>3)%len(peers)], To: peers[int(a>>5)%len(peers)],
			ID:   ids[int(b)%len(ids)],
			Work: []string{"w1", "w2", ""}[int(b>>3)%3],
		}
		switch c % 3 {
		case 1:
			s.Thread = "thread_other"
		case 2:
			s.Direct = "direct_0123456789abcdef0123456789abcdef"
		}
		s.Status = statuses[int(c>>2)%len(statuses)]
		s.State = append(slices.Clone(agh.TraceStates), "bogus")[int(c>>5)%7]
		s.For = ids[int(d)%len(ids)]
		if d&8 != 0 {
			s.Causation = ids[int(d>>4)%len(ids)]
		}
		if d&0x80 != 0 {
			s.ReplyTo = s.For
		}
		judged := d&4 != 0
		s.Judged = &judged
		at += int(d & 3 * 4) // 0, 4, 8 or 12 s: crosses the 10 s window and greet lapses
		steps = append(steps, s)
		ats = append(ats, at)
	}
	return steps, ats
}

func FuzzTracker(f *testing.F) {
	f.Add([]byte{3, 1, 0, 4, 5, 2, 0, 1, 6, 3, 0x20, 0x05})
	f.Add([]byte("alice opens work; bob reports it done; carol meddles"))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, ats := fuzzSteps(data)
		cfg := Config{Window: 10 * time.Second, GreetInterval: 3 * time.Second, MaxEntries: 12, Complete: len(data)%2 == 0}
		a, b := New(cfg), New(cfg)
		for i, s := range steps {
			e := Envelope{At: time.Unix(start+int64(ats[i]), 0), Env: s.envelope(), Judged: *s.Judged}
			fa, fb := a.Observe(e).Findings, b.Observe(e).Findings
			if !*s.Judged && len(fa) > 0 {
				t.Fatalf("step %d: an unjudged envelope earned %v", i, fa)
			}
			if fmt.Sprint(fa) != fmt.Sprint(fb) {
				t.Fatalf("step %d: two trackers disagree: %v vs %v", i, fa, fb)
			}
			if n := a.remembered(); n > cfg.MaxEntries+3 {
				t.Fatalf("step %d: %d things remembered, cap %d", i, n, cfg.MaxEntries)
			}
			for _, g := range []*generation{a.cur, a.prev} {
				n, open := 0, 0
				for _, u := range g.units {
					for ; u != nil; u = u.next {
						n++
						if !agh.IsWorkState(u.state) {
							t.Fatalf("step %d: work %s in state %q", i, u.work, u.state)
						}
						if !agh.IsTerminal(u.state) {
							open++
						}
					}
				}
				if n != g.nunits || open != g.open {
					t.Fatalf("step %d: %d units chained (%d open), %d (%d) counted", i, n, open, g.nunits, g.open)
				}
			}
		}
	})
}
