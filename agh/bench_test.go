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

// BenchmarkCheckBytes is decode (jsonx) plus check: the per-envelope cost of
// aghcheck validate and of the live harness.
func BenchmarkCheckBytes(b *testing.B) {
	c := mustChecker(b, Options{Now: 1776366100})
	raws, _ := benchCorpus(b)
	var n int64
	for _, r := range raws {
		n += int64(len(r))
	}
	b.SetBytes(n / int64(len(raws)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = c.CheckBytes(raws[i%len(raws)])
	}
}

// BenchmarkCheckInvalid runs the invalid corpus, where the schema validator
// runs behind the native rules.
func BenchmarkCheckInvalid(b *testing.B) {
	c := mustChecker(b, Options{})
	var vals []any
	var raws [][]byte
	for _, f := range fixtureFiles(b, "invalid") {
		raw := mustRead(b, f)
		raws = append(raws, raw)
		vals = append(vals, decode(b, raw))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(vals)
		_ = c.Check(raws[k], vals[k])
	}
}

// BenchmarkCheckFullSchema is BenchmarkCheck with the schema validator run
// on every envelope, for comparison with the default fast path.
func BenchmarkCheckFullSchema(b *testing.B) {
	c := mustChecker(b, Options{Now: 1776366100, FullSchema: true})
	raws, vals := benchCorpus(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(vals)
		_ = c.Check(raws[k], vals[k])
	}
}
