package harness

import (
	"context"
	"testing"
	"time"
)

// benchRun plays every shipped scenario against the reference peer with
// faults (broker and IUT start-up included) and fails unless the peer
// earns Full Peer.
func benchRun(b *testing.B, faults string) {
	scs := loadSuites(b)
	mode := "peer"
	if faults != "" {
		mode += ":" + faults
	}
	for b.Loop() {
		rep, err := runConfig(context.Background(), config{Target: Target{Command: selfIUT(b),
			Env: []string{"AGHCHECK_TEST_IUT=" + mode}, GreetTimeout: 10 * time.Second}, Scenarios: scs,
		})
		if err != nil || rep.Summary.Claim != "Full Peer" {
			b.Fatalf("claim %q, error %v", rep.Summary.Claim, err)
		}
	}
}

// The built-in suite against the built-in peer.
func BenchmarkRunReferencePeer(b *testing.B) { benchRun(b, "") }

// The same, every reply 3 s late: the verdicts are the same and the run
// costs about one slow reply chain (go test -bench SlowPeer -benchtime 1x).
func BenchmarkRunSlowPeer(b *testing.B) { benchRun(b, "slow:3s") }
