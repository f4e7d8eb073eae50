package main

import (
	"os"
	"strconv"
	"testing"
)

func costs(xs ...float64) []sample {
	ss := make([]sample, len(xs))
	for i, x := range xs {
		ss[i] = sample{cost: x, cpu: x}
	}
	return ss
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, cur []sample
		slower   bool
	}{
		{"same", costs(1, 1.02, 0.98, 1, 1), costs(1.01, 1, 0.99, 1.02, 1), false},
		{"twenty-percent-slower", costs(1, 1.02, 0.98, 1, 1), costs(1.2, 1.22, 1.18, 1.21, 1.2), true},
		{"faster", costs(1, 1, 1, 1, 1), costs(0.8, 0.8, 0.8, 0.8, 0.8), false},
		// One burst of load spoils two of five new runs: the median says
		// nothing, best against best neither.
		{"load-burst", costs(1, 1, 1, 1, 1), costs(1.5, 1.6, 1, 1, 1.01), false},
		// The machine got busier for every other round: the median of the
		// paired ratios rises, best against best does not.
		{"noisy-pairs", costs(1, 1, 1, 1, 1), costs(1.3, 1.2, 1.15, 1, 1.01), false},
		{"eleven-percent-slower", costs(1, 1, 1, 1, 1), costs(1.11, 1.12, 1.11, 1.13, 1.11), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(pairs{old: tc.old, cur: tc.cur}, 1.10)
			if v.slower != tc.slower {
				t.Errorf("slower = %v, want %v (median %.2f, best %.2f)", v.slower, tc.slower, v.median, v.best)
			}
		})
	}
}

func TestBaselineFile(t *testing.T) {
	raw, err := os.ReadFile("../bench-baseline")
	if err != nil {
		t.Fatal(err)
	}
	m := parseBaseline(string(raw))
	if len(m["commit"]) != 40 {
		t.Errorf("commit %q: want a full commit id", m["commit"])
	}
	if r, err := strconv.ParseFloat(m["validate-floor"], 64); err != nil || r <= 0 {
		t.Errorf("validate-floor %q: want a ratio", m["validate-floor"])
	}
}

func TestBenchMetric(t *testing.T) {
	out := "goos: linux\nBenchmarkFuzzReferencePeer-2   \t       1\t4123456789 ns/op\t      2425 cases/s\nPASS\n"
	if v, err := benchMetric(out, "cases/s"); err != nil || v != 2425 {
		t.Errorf("cases/s = %v, %v", v, err)
	}
	if _, err := benchMetric(out, "envelopes/s"); err == nil {
		t.Error("found a metric the output does not have")
	}
}
