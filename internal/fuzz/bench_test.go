package fuzz

import (
	"context"
	"testing"
	"time"
)

// BenchmarkFuzzReferencePeer measures cases per second against the
// correct built-in peer (this test binary as the IUT), as the report
// computes it: cases played over the run's whole duration, broker and IUT
// start-up included. go test -run '^$' -bench FuzzReferencePeer -benchtime 3x ./fuzz
func BenchmarkFuzzReferencePeer(b *testing.B) {
	const n = 10000
	cases, elapsed := 0, time.Duration(0)
	for b.Loop() {
		rep, err := Run(context.Background(), Config{Target: against(b), Seed: 1, Cases: n})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Findings) > 0 {
			b.Fatalf("%d findings against the correct peer:%s", len(rep.Findings), describe(rep))
		}
		cases += rep.Cases
		elapsed += rep.Duration.D()
	}
	b.ReportMetric(float64(cases)/elapsed.Seconds(), "cases/s")
}
