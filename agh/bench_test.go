package agh

import (
	"os"
	"testing"
)

// benchCorpus is a realistic mix: every seed example (all six kinds, two
// of them failing with their errata) plus the valid fixtures.
func benchCorpus(b *testing.B) (raws [][]byte, vals []any) {
	for _, dir := range []string{"seed", "valid"} {
		for _, f := range fixtureFiles(b, dir) {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			raws = append(raws, raw)
			vals = append(vals, decode(b, raw))
		}
	}
	return raws, vals
}

// BenchmarkCheck measures the rule engine alone on decoded envelopes.
func BenchmarkCheck(b *testing.B) {
	c := mustChecker(b, Options{Now: 1776366100})
	raws, vals := benchCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(vals)
		_ = c.Check(raws[k], vals[k])
	}
}
