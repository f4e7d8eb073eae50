package reporter

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/harness"
)

// LifeLines is one liveness event of the IUT as the run prints it when it
// happens: one line, then the scenarios it interrupted and the IUT's last
// output lines, indented.
func LifeLines(ev harness.LifeEvent) string {
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
		fmt.Fprintf(&b, "    interrupted %s, played again: %s%s\n", Plural(n, "scenario"), strings.Join(shown, ", "), more)
	}
	if !ev.Death() {
		return b.String()
	}
	for _, l := range ev.Stderr {
		fmt.Fprintf(&b, "    stderr| %s\n", l)
	}
	if len(ev.Stderr) == 0 {
		for _, l := range ev.Stdout {
			fmt.Fprintf(&b, "    stdout| %s\n", l)
		}
	}
	return b.String()
}
