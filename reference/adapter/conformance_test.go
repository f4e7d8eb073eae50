package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/aghtest"
)

// TestConformance plays aghcheck's suites at the reference runtime from go
// test: the adapter runs in this test process (aghtest.Config.Start), one
// subtest per scenario. It is what the runtime's maintainers would keep in
// their own repository beside the adapter (docs/reference.md, "In go
// test"); here it runs only inside a copy of the runtime, where
// `make reference-gotest` puts it. Built in aghcheck's module the adapter
// has no runtime, and the test skips.
//
// AGHCHECK_BASELINE names the known deviations (reference/compozy-agh.yaml);
// AGHCHECK_COMPAT=reference judges by the runtime's own reading of every
// documented erratum (then with reference/compozy-agh.compat-reference.yaml);
// AGHCHECK_OWNED_BY_ADAPTER names the requirements whose verdict is this
// adapter's (reference/compozy-agh.adapter.yaml); AGHCHECK_REPORT, a file
// for the run's JSON report.
func TestConformance(t *testing.T) {
	if !haveRuntime {
		t.Skip("built without the reference runtime: make reference-gotest REF=<working tree or git dir of github.com/compozy/agh>")
	}
	aghtest.TestPeer(t, aghtest.Config{
		Start: func(s aghtest.Settings) (func(), error) {
			env := map[string]string{}
			for _, kv := range s.Env {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			cfg, err := parseConfig(nil, func(k string) string { return env[k] })
			if err != nil {
				return nil, err
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- run(ctx, cfg) }()
			return func() { cancel(); <-done }, nil
		},
		Implementation:        "github.com/compozy/agh",
		ImplementationVersion: runtimeVersion,
		Baseline:              os.Getenv("AGHCHECK_BASELINE"),
		Compat:                os.Getenv("AGHCHECK_COMPAT"),
		OwnedByAdapter:        os.Getenv("AGHCHECK_OWNED_BY_ADAPTER"),
		ReportJSON:            os.Getenv("AGHCHECK_REPORT"),
		// A 5 s ceiling for the receipts the runtime never sends, as make
		// reference has it.
		StepTimeout: 5 * time.Second,
	})
}
