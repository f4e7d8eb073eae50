package fuzz

import (
	"testing"
	"time"
)

// BenchmarkGenerate measures making cases (mutation, the engine's
// verdict, the scenario) without playing them.
func BenchmarkGenerate(b *testing.B) {
	fam, seeds := familySeeds(b, true)
	dict, err := loadDictionary()
	if err != nil {
		b.Fatal(err)
	}
	g := newGenerator(1, seeds, dict, fuzzBroker)
	o := &oracle{fam: fam, now: time.Now, trust: true}
	i := 0
	for b.Loop() {
		i++
		if _, _, err := o.build(g.draft(), i); err != nil {
			b.Fatal(err)
		}
	}
}
