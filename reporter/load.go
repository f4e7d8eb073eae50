package reporter

import (
	"fmt"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// load prints how the IUT answered what scenarios published at once: its
// throughput and latency under that load, reported, never judged; and,
// for a fleet's report, whose verdicts it folds.
func (t *runText) load(rep *report.Report) {
	if l := rep.Summary.Load; l != nil {
		fmt.Fprintf(t.w, "Under concurrent load (reported, never judged): %d messages in %d bursts, %d answers, %.0f answers/s",
			l.Messages, l.Bursts, l.Answers, l.PerSecond)
		if lt := l.Latency; lt != nil {
			fmt.Fprintf(t.w, "; latency median %s, p95 %s, max %s", runDur(lt.Median.D()), runDur(lt.P95.D()), runDur(lt.Max.D()))
		}
		fmt.Fprintln(t.w)
	}
	if f := rep.Fleet; f != nil {
		fmt.Fprintf(t.w, "Fleet %s: the verdicts of %d of its %d members, each scenario's the worst of theirs\n", sanitize.Text(f.Name), f.Members, f.Size)
		for _, n := range f.Notes {
			fmt.Fprintf(t.w, "  %s\n", sanitize.Text(n))
		}
	}
}
