package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A sample is one measurement of a figure as a cost: seconds (of wall time,
// or per scenario), or the inverse of a throughput, so that more is slower
// for every figure alike.
type sample struct{ cost, cpu float64 }

// pairs holds the interleaved runs of one figure: old[i] and cur[i] ran
// back to back, so that a change of the machine's load between rounds
// falls on both.
type pairs struct{ old, cur []sample }

// verdict is what one figure's pairs say.
type verdict struct {
	median float64 // median of the per-round ratios cur/old
	best   float64 // best cur against best old (the least disturbed runs)
	cpu    float64 // median of the per-round CPU ratios (0 when unmeasured)
	slower bool
}

// judge compares cur with old. A figure got slower when both the median of
// the paired ratios and the best-to-best ratio are above limit: on a shared
// machine a burst of load can push a median up, or spoil one run, but it
// does not make both views agree on a slowdown that is not there, and a
// real one shows in both.
func judge(p pairs, limit float64) verdict {
	n := min(len(p.old), len(p.cur))
	if n == 0 {
		return verdict{median: math.NaN(), best: math.NaN()}
	}
	ratios := make([]float64, 0, n)
	cpus := make([]float64, 0, n)
	bestOld, bestCur := math.Inf(1), math.Inf(1)
	for i := range n {
		ratios = append(ratios, p.cur[i].cost/p.old[i].cost)
		if p.old[i].cpu > 0 && p.cur[i].cpu > 0 {
			cpus = append(cpus, p.cur[i].cpu/p.old[i].cpu)
		}
		bestOld, bestCur = min(bestOld, p.old[i].cost), min(bestCur, p.cur[i].cost)
	}
	v := verdict{median: median(ratios), best: bestCur / bestOld}
	if len(cpus) > 0 {
		v.cpu = median(cpus)
	}
	v.slower = v.median > limit && v.best > limit
	return v
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// medianCost is the median cost of samples.
func medianCost(ss []sample) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = s.cost
	}
	return median(xs)
}

// parseBaseline reads scripts/bench-baseline: "key value" lines, # comments.
func parseBaseline(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// benchMetric finds the value reported with unit on the result line of
// a Go benchmark's output ("BenchmarkX  1  123 ns/op  4567 cases/s").
func benchMetric(out, unit string) (float64, error) {
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		for i := 1; i+1 < len(f); i++ {
			if f[i+1] == unit {
				var v float64
				if _, err := fmt.Sscan(f[i], &v); err == nil && v > 0 {
					return v, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("no %s in the benchmark's output", unit)
}
