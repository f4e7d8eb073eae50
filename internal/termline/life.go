package termline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// LifeLines is one liveness event of the IUT as the run prints it when it
// happens: one line, then the scenarios it interrupted and the IUT's last
// output lines, indented.
func LifeLines(ev report.LifeEvent) string {
	ev = sanitize.Copy(ev) // what the IUT printed, and why it died
	var b strings.Builder
	fmt.Fprintf(&b, "aghcheck: %s\n", ev)
	if n := len(ev.InFlight); n > 0 {
		shown := ev.InFlight
		if n > 5 {
			shown = shown[:5]
		}
		more := ""
		if n > 5 {
			more = fmt.Sprintf(" and %d more", n-5)
		}
		fmt.Fprintf(&b, "    interrupted %s, played again: %s%s\n", plural.Count(n, "scenario"), strings.Join(shown, ", "), more)
	}
	if ev.Blame != "" {
		fmt.Fprintf(&b, "    %s\n", ev.Blame)
	}
	if !ev.Death() {
		return b.String()
	}
	tail := ev.Stderr
	if ev.Said != "" && !slices.Contains(tail, ev.Said) {
		// What went wrong first, then how the output ended.
		fmt.Fprintf(&b, "    stderr| %s\n    stderr| …\n", ev.Said)
		tail = tail[max(len(tail)-3, 0):]
	}
	for _, l := range tail {
		fmt.Fprintf(&b, "    stderr| %s\n", l)
	}
	if len(ev.Stderr) == 0 {
		for _, l := range ev.Stdout {
			fmt.Fprintf(&b, "    stdout| %s\n", l)
		}
	}
	return b.String()
}
