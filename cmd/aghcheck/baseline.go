package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/aghcheck/aghcheck/baseline"
	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/harness/scenario"
	"github.com/aghcheck/aghcheck/rules"
)

// loadBaseline reads --baseline. Its ids must name a loaded scenario
// (selected or not: a narrowed run leaves the others unjudged) or, after
// passive:, a catalogue rule. Either problem is a usage error.
func loadBaseline(path string, scs []*scenario.Scenario) (*baseline.Baseline, error) {
	if path == "" {
		return nil, nil
	}
	b, err := baseline.Load(path)
	if err != nil {
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("--baseline: %w", err)}
	}
	isScenario := func(id string) bool {
		return slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool { return sc.ID == id })
	}
	isRule := func(id string) bool { _, ok := rules.Lookup(id); return ok }
	if err := b.CheckIDs(isScenario, isRule); err != nil {
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("--baseline: %w", err)}
	}
	return b, nil
}

// settleBaseline writes today's failures to --write-baseline (keeping the
// reasons of --baseline entries that still hold), then applies --baseline.
func settleBaseline(rep *harness.Report, b *baseline.Baseline, writePath string) error {
	if writePath != "" && rep.Error == "" {
		f, err := os.Create(writePath)
		if err != nil {
			return &exitError{code: exitUsageErr, err: fmt.Errorf("--write-baseline: %w", err)}
		}
		err = baseline.Write(f, rep, b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return &exitError{code: exitUsageErr, err: fmt.Errorf("--write-baseline: %w", err)}
		}
	}
	if b != nil {
		b.Apply(rep)
	}
	return nil
}
