package workunit

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// flow generates a steady stream of complete work units (say, accepted
// receipt, working and completed traces) among a few hundred peers, one
// envelope every step of simulated time, reusing four envelope maps.
type flow struct {
	n     int
	step  time.Duration
	envs  [4]map[string]any
	peers []string
}

func newFlow(step time.Duration) *flow {
	f := &flow{step: step}
	for i := range 300 {
		f.peers = append(f.peers, "peer-"+strconv.Itoa(i)+".s1")
	}
	kinds := [4]string{"say", "receipt", "trace", "trace"}
	for i, k := range kinds {
		f.envs[i] = map[string]any{"protocol": agh.Protocol, "workspace_id": "ws_bench", "channel": "load",
			"kind": k, "surface": "thread", "thread_id": "thread_load", "proof": nil, "body": map[string]any{}}
	}
	f.envs[0]["body"] = map[string]any{"text": "run it"}
	f.envs[2]["body"] = map[string]any{"state": "working"}
	f.envs[3]["body"] = map[string]any{"state": "completed"}
	return f
}

func (f *flow) next() Envelope {
	i := f.n
	f.n++
	unit, phase := i/4, i%4
	work := "work_" + strconv.Itoa(unit)
	a, b := f.peers[unit%len(f.peers)], f.peers[(unit+1)%len(f.peers)]
	env := f.envs[phase]
	env["id"], env["work_id"] = "msg_"+strconv.Itoa(i), work
	if phase == 0 {
		env["from"], env["to"] = a, b
	} else {
		env["from"], env["to"] = b, a
	}
	if phase == 1 {
		env["body"] = map[string]any{"for_id": "msg_" + strconv.Itoa(i-1), "status": "accepted"}
	}
	return Envelope{At: time.Unix(start, 0).Add(time.Duration(i) * f.step), Env: env, Judged: true}
}

// TestMemoryBounded feeds far more envelopes than a window holds and checks
// that what is remembered (and the ring holding it) stops growing, bounded
// by the window and by MaxEntries, and that a correct stream gives no finding.
func TestMemoryBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		step time.Duration
		max  int
	}{
		// 1,000 envelopes a second, a 2 s window: at most two windows of ids
		// (4,000) and units (1,000), and 300 peers.
		{"window", Config{Window: 2 * time.Second, Complete: true}, time.Millisecond, 5300},
		{"cap", Config{MaxEntries: 1000, Complete: true}, time.Millisecond, 1003},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(tc.cfg)
			f := newFlow(tc.step)
			for i := range 60_000 {
				if fs := tr.Observe(f.next()).Findings; len(fs) > 0 {
					t.Fatalf("envelope %d: a correct stream gave %v", i, fs)
				}
				if n := tr.remembered(); n > tc.max {
					t.Fatalf("envelope %d: %d remembered, want at most %d", i, n, tc.max)
				}
			}
			s := tr.Stats()
			if s.Envelopes != 60_000 || s.Units == 0 || s.IDs == 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

// BenchmarkObserve runs a steady stream through the tracker: "window" at
// 10,000 envelopes/s of simulated time (the 300 s window holds 3 million
// ids, so the 1<<20 cap governs), "small" with a 1 s window. heap-MiB is
// the live heap after the run; remembered what the tracker holds. Both stay
// flat as b.N grows into the millions.
func BenchmarkObserve(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{
		{"window", Config{Complete: true}},
		{"small", Config{Window: time.Second, Complete: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tr := New(bc.cfg)
			f := newFlow(100 * time.Microsecond)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				tr.Observe(f.next())
			}
			b.StopTimer()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(tr.remembered()), "remembered")
			runtime.KeepAlive(tr)
		})
	}
}
