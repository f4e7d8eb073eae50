package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// A peer that stops serving after its first payload that is not a JSON
// object (deaf-after-garbage) is named deaf no sooner than the harness's
// deaf window after that input: five seconds without an answer, a probe
// outstanding. With a --duration shorter than that window, every death
// comes after the run's deadline, whenever the garbage was sent: the hunt
// for its case must not replay anything (no restart "for the hunt"), the
// report says what --duration cut short, and the death is still a
// finding with a reproducer, the cases in flight at it, that aghcheck run
// replays, failing that peer and passing the correct one.
func TestDeathAfterDurationCutsTheHuntShort(t *testing.T) {
	t.Parallel()
	const fault = "deaf-after-garbage"
	dir := t.TempDir()
	// Few cases at once: the cases sent after the deaf-making one, its
	// victims, are few, and the reproducer's replay is short.
	rep := run(t, Config{Seed: 1, Duration: 4 * time.Second, Parallel: 8, ReproDir: dir, Shrink: DefaultShrink}, fault)
	if rep.Error != "" {
		t.Fatalf("run error: %s", rep.Error)
	}
	if !slices.ContainsFunc(rep.IUT.Events, func(ev report.LifeEvent) bool { return ev.Kind == report.LifeDeaf }) {
		// The harness names an IUT deaf only once it has answered a
		// whois probe (harness.md): a peer that went deaf before the
		// first quiet second of the run is never named so, and then
		// there is no death, and no hunt, to cut short.
		t.Skipf("the IUT went deaf before it answered any probe, so it was never named deaf:%s", describe(rep))
	}
	for _, ev := range rep.IUT.Events {
		if strings.Contains(ev.Cause, "for the hunt") {
			t.Errorf("the hunt replayed after --duration ran out: %s %s", ev.Kind, ev.Cause)
		}
	}
	if rep.CutShort == 0 {
		t.Errorf("the report says nothing was cut short:%s", describe(rep))
	}
	var text strings.Builder
	if err := Write(&text, "text", rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "cut short: --duration ran out") {
		t.Errorf("the text report does not say what was cut short:\n%s", text.String())
	}
	i := slices.IndexFunc(rep.Findings, func(f *Finding) bool { return f.Kind == KindDeaf })
	if i < 0 {
		t.Fatalf("no deaf finding:%s", describe(rep))
	}
	f := rep.Findings[i]
	if f.Level != "MUST" || f.Reproducer == "" || filepath.Dir(f.Reproducer) != dir {
		t.Fatalf("deaf finding %+v: want a MUST with a reproducer in %s", f, dir)
	}
	set := scenario.LoadFS(os.DirFS(dir), ".", dir+"/")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	if len(set.Scenarios) == 0 {
		t.Fatalf("%s holds no scenario", f.Reproducer)
	}
	replay := func(faults ...string) *report.Report {
		tg := against(t, faults...)
		tg.BackTimeout = 300 * time.Millisecond
		plan, err := harness.Options{Target: tg, NoBuiltin: true, Suites: []string{dir}, Run: "."}.Plan()
		if err != nil {
			t.Fatal(err)
		}
		r, err := plan.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	outcomes := func(r *report.Report) map[report.Outcome]int {
		n := map[report.Outcome]int{}
		for _, sc := range r.Scenarios {
			n[sc.Outcome]++
		}
		return n
	}
	if got := replay(fault); outcomes(got)[report.Fail] == 0 {
		t.Errorf("replayed against the deaf peer: %v, want a failure", outcomes(got))
	}
	if got := replay(); outcomes(got)[report.Pass] != len(got.Scenarios) {
		t.Errorf("replayed against the correct peer: %v, want every scenario passed", outcomes(got))
	}
}
