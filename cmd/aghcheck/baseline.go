package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/reporter"
)

// loadBaseline reads --baseline. Its ids must name a loaded scenario
// (selected or not: a narrowed run leaves the others unjudged) or, after
// passive:, a catalogue rule. Either problem is a usage error. Entries
// whose reason is still TODO are a warning on warn, an error under strict.
func loadBaseline(path string, scs []*scenario.Scenario, strict bool, warn io.Writer) (*baseline.Baseline, error) {
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
	isRule := func(id string) bool { _, ok := catalogue.Lookup(id); return ok }
	if err := b.CheckIDs(isScenario, isRule); err != nil {
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("--baseline: %w", err)}
	}
	if todo := b.Unreasoned(); len(todo) > 0 {
		msg := fmt.Sprintf("--baseline: %s still without a reason (TODO), so nothing says why they are excused: %s; name the erratum or link the issue",
			reporter.Plural(len(todo), "entry"), strings.Join(todo, ", "))
		if strict {
			return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("%s (an error under --strict)", msg)}
		}
		fmt.Fprintln(warn, "aghcheck: warning:", msg)
	}
	return b, nil
}

// settleBaseline writes today's failures to --write-baseline (keeping the
// reasons of --baseline entries that still hold), then applies --baseline.
func settleBaseline(rep *report.Report, b *baseline.Baseline, writePath string) error {
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
