package agh

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// realistic is the default benchmark mix: every seed example (all six kinds,
// two of them failing with their errata) plus the valid fixtures.
var realistic = []string{"seed", "valid"}

// benchCorpus reads and decodes the fixtures of dirs, leaving out those
// broken below the JSON value (they have no value to check).
func benchCorpus(b *testing.B, dirs ...string) (raws [][]byte, vals []any) {
	for _, dir := range dirs {
		for _, f := range fixtureFiles(b, dir) {
			raw := mustRead(b, f)
			v, fs, ok := jsonx.Decode(raw)
			if !ok || len(fs) > 0 {
				continue
			}
			raws = append(raws, raw)
			vals = append(vals, v)
		}
	}
	return raws, vals
}

// benchCheck times c.Check over the corpus, round robin.
func benchCheck(b *testing.B, c *Checker, raws [][]byte, vals []any) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(vals)
		_ = c.Check(raws[k], vals[k])
	}
}

// BenchmarkCheck measures the rule engine alone on decoded envelopes.
func BenchmarkCheck(b *testing.B) {
	raws, vals := benchCorpus(b, realistic...)
	benchCheck(b, mustChecker(b, Options{Now: 1776366100}), raws, vals)
}

// BenchmarkCheckBytes is decode (jsonx) plus check: the per-envelope cost of
// aghcheck validate and of the live harness.
func BenchmarkCheckBytes(b *testing.B) {
	c := mustChecker(b, Options{Now: 1776366100})
	benchBytes(b, func(raw []byte) { _ = c.CheckBytes(raw) })
}

// benchBytes times check over the realistic corpus's bytes, round robin.
func benchBytes(b *testing.B, check func(raw []byte)) {
	raws, _ := benchCorpus(b, realistic...)
	var n int64
	for _, r := range raws {
		n += int64(len(r))
	}
	b.SetBytes(n / int64(len(raws)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		check(raws[i%len(raws)])
	}
}

// BenchmarkCheckInvalid runs the invalid corpus, where the schema validator
// runs behind the native rules.
func BenchmarkCheckInvalid(b *testing.B) {
	raws, vals := benchCorpus(b, "invalid")
	benchCheck(b, mustChecker(b, Options{}), raws, vals)
}

// BenchmarkCheckFullSchema is BenchmarkCheck with the schema validator run
// on every envelope, for comparison with the default fast path.
func BenchmarkCheckFullSchema(b *testing.B) {
	raws, vals := benchCorpus(b, realistic...)
	benchCheck(b, mustChecker(b, Options{Now: 1776366100, FullSchema: true}), raws, vals)
}

// BenchmarkCheckClean is the fast path alone (what validate pays for a clean
// envelope), to compare with BenchmarkCheckBytes.
func BenchmarkCheckClean(b *testing.B) {
	c := mustChecker(b, Options{Now: 1776366100})
	benchBytes(b, func(raw []byte) { _, _ = c.CheckClean(raw) })
}
