// Package nodepeer holds the test that certifies the Node.js example peer:
// the example must keep earning Core Peer with the suites as shipped.
package nodepeer

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/report"
)

// TestExampleEarnsCorePeer runs the core level against `node peer.js`,
// the control-gated lifecycle scenarios included. It
// needs node and the package installed (`make example-peer` does both), so
// CI, which has neither, skips it.
func TestExampleEarnsCorePeer(t *testing.T) {
	node := nodeAndPackage(t)
	rep := certify(t, "core", node, "peer.js")
	s := rep.Summary
	if !s.Passed || s.Claim != "Core Peer" || s.Fail+s.Warn+s.Error != 0 {
		for _, sc := range rep.Scenarios {
			if sc.Outcome != report.Pass && sc.Outcome != report.Skip {
				t.Errorf("%s: %s: %s", sc.ID, sc.Outcome, sc.Message)
			}
		}
		t.Fatalf("claim %q (passed %v), %d fail, %d warn, %d error; want Core Peer with none\nIUT stderr:\n%s",
			s.Claim, s.Passed, s.Fail, s.Warn, s.Error, rep.IUT.Stderr)
	}
	// It advertises aghcheck.control/v1, so the scenarios gated on the
	// extension are played, not skipped.
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Skip && strings.Contains(sc.Message, control.Name) {
			t.Errorf("%s skipped (%s): the example advertises %s", sc.ID, sc.Message, control.Name)
		}
	}
	if rep.Passive.Invalid != 0 {
		t.Errorf("passive validation: %d invalid envelopes", rep.Passive.Invalid)
	}
}

// The example plays the initiator in both forms: with the control
// extension the run starts it and hands it its orders at start-up (it lists
// aghcheck.initiate/v1); with --no-control, the same. Every initiator
// scenario (those on NATS subjects too: level full) is played and passes.
func TestExamplePlaysTheInitiator(t *testing.T) {
	node := nodeAndPackage(t)
	for _, args := range [][]string{{"peer.js"}, {"peer.js", "--no-control"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			rep := certify(t, "full", node, args...)
			if rep.IUT.Initiation == "" {
				t.Fatalf("the example took no initiation orders")
			}
			played := 0
			for _, sc := range rep.Scenarios {
				if !strings.HasPrefix(sc.ID, "initiator.") {
					continue
				}
				played++
				if sc.Outcome != report.Pass {
					t.Errorf("%s: %s %s", sc.ID, sc.Outcome, sc.Message)
				}
			}
			if played < 15 {
				t.Errorf("%d initiator scenarios played, want at least 15", played)
			}
		})
	}
}

// nodeAndPackage is node's path, or a skip when node or the package is
// missing: CI has neither.
func nodeAndPackage(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node.js example peer is not certified")
	}
	if _, err := os.Stat("node_modules/nats"); err != nil {
		t.Skip("examples/node-peer/node_modules is missing (run npm install there, or make example-peer)")
	}
	return node
}

// certify runs a level against node ARGS.
func certify(t *testing.T, level, node string, args ...string) *report.Report {
	t.Helper()
	plan, err := harness.Options{
		Target: harness.Target{Command: append([]string{node}, args...), MaxRestarts: harness.DefaultMaxRestarts},
		Level:  level,
	}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rep
}
