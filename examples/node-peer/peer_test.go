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
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node.js example peer is not certified")
	}
	if _, err := os.Stat("node_modules/nats"); err != nil {
		t.Skip("examples/node-peer/node_modules is missing (run npm install there, or make example-peer)")
	}
	plan, err := harness.Options{
		Target: harness.Target{Command: []string{node, "peer.js"}, MaxRestarts: harness.DefaultMaxRestarts},
		Level:  "core",
	}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := plan.Run(context.Background())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
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
