package reporter

import (
	"fmt"

	"github.com/aghcheck/aghcheck/internal/report"
)

// load prints how the IUT answered what scenarios published at once: its
// throughput and latency under that load. It is reported, never judged.
func (t *runText) load(rep *report.Report) {
	l := rep.Summary.Load
	if l == nil {
		return
	}
	fmt.Fprintf(t.w, "Under concurrent load (reported, never judged): %d messages in %d bursts, %d answers, %.0f answers/s",
		l.Messages, l.Bursts, l.Answers, l.PerSecond)
	if lt := l.Latency; lt != nil {
		fmt.Fprintf(t.w, "; latency median %s, p95 %s, max %s", runDur(lt.Median.D()), runDur(lt.P95.D()), runDur(lt.Max.D()))
	}
	fmt.Fprintln(t.w)
}
