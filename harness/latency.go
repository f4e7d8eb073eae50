package harness

import (
	"github.com/aghcheck/aghcheck/internal/report"
	"slices"
	"time"
)

// latency keeps the scenario's reply times and their figure.
func (p *player) latency() {
	p.res.Replies = p.wait.latencies
	p.res.Latency = latencyOf(p.res.Replies)
}

// latencyOf is the figure of a set of reply times (nil when empty).
func latencyOf(ds []time.Duration) *report.Latency {
	if len(ds) == 0 {
		return nil
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) report.Millis { return report.Millis(s[int(q*float64(len(s)-1)+0.5)]) }
	return &report.Latency{Count: len(s), Median: at(0.5), P95: at(0.95), Max: report.Millis(s[len(s)-1])}
}

// runLatency is the figure over every scenario of the run.
func runLatency(scs []*report.ScenarioResult) *report.Latency {
	var all []time.Duration
	for _, sc := range scs {
		all = append(all, sc.Replies...)
	}
	return latencyOf(all)
}
