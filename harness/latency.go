package harness

import (
	"slices"
	"time"
)

// latency keeps the scenario's reply times and their figure.
func (p *player) latency() {
	p.res.replies = p.wait.latencies
	p.res.Latency = latencyOf(p.res.replies)
}

// latencyOf is the figure of a set of reply times (nil when empty).
func latencyOf(ds []time.Duration) *Latency {
	if len(ds) == 0 {
		return nil
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) Millis { return Millis(s[int(q*float64(len(s)-1)+0.5)]) }
	return &Latency{Count: len(s), Median: at(0.5), P95: at(0.95), Max: Millis(s[len(s)-1])}
}

// runLatency is the figure over every scenario of the run.
func runLatency(scs []*ScenarioResult) *Latency {
	var all []time.Duration
	for _, sc := range scs {
		all = append(all, sc.replies...)
	}
	return latencyOf(all)
}
