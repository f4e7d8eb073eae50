package reporter

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/termline"
)

// liveness lists the IUT's deaths and returns, and the scenarios that
// kill it, under the IUT line.
func (t *runText) liveness(rep *report.Report) {
	w, p := t.w, t.p
	for _, ev := range rep.IUT.Events {
		line := strings.TrimSuffix(strings.TrimPrefix(termline.LifeLines(ev), "aghcheck: "), "\n")
		if ev.Death() {
			line = p.red.Sprint(line)
		}
		fmt.Fprintf(w, "         %s\n", strings.ReplaceAll(line, "\n", "\n         "))
	}
	for _, k := range rep.IUT.Killers {
		fmt.Fprintf(w, "         %s %s: %s\n", p.red.Sprint("killer"), k.Scenario, k.Message)
		if k.Reproducer != "" {
			fmt.Fprintf(w, "           reproducer %s (aghcheck run --suite %s --embedded=false)\n", k.Reproducer, filepath.Dir(k.Reproducer))
		}
	}
	if rep.Summary.Incomplete {
		why := ""
		if len(rep.Summary.Unplayed) > 0 {
			why = ": " + strings.Join(rep.Summary.Unplayed, "; ")
		}
		fmt.Fprintf(w, "         %s\n", p.red.Sprint("the run is incomplete: some scenarios could not be played (error)"+why))
	}
}

// latency prints the IUT's reply latency: over the run, and the slowest
// scenarios (every played one with -v). It is reported, never judged.
func (t *runText) latency(rep *report.Report) {
	l := rep.Summary.Latency
	if l == nil {
		return
	}
	w := t.w
	fmt.Fprintf(w, "\nReply latency (reported, never judged): median %s, p95 %s, max %s over %s\n",
		runDur(l.Median.D()), runDur(l.P95.D()), runDur(l.Max.D()), replies(l.Count))
	var scs []*report.ScenarioResult
	for _, sc := range rep.Scenarios {
		if sc.Latency != nil {
			scs = append(scs, sc)
		}
	}
	sort.SliceStable(scs, func(i, j int) bool { return scs[i].Latency.Max > scs[j].Latency.Max })
	if !t.o.Verbose && len(scs) > 5 {
		scs = scs[:5]
		fmt.Fprintln(w, "  slowest scenarios (-v lists every one):")
	}
	for _, sc := range scs {
		l := sc.Latency
		fmt.Fprintf(w, "  %-52s median %s, p95 %s, max %s\n", sc.ID, runDur(l.Median.D()), runDur(l.P95.D()), runDur(l.Max.D()))
	}
}

func replies(n int) string {
	if n == 1 {
		return "1 reply"
	}
	return fmt.Sprintf("%d replies", n)
}
