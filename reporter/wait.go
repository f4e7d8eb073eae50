package reporter

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/harness"
)

// WaitLine is the live line a terminal shows while a run waits for the
// IUT to join: elapsed time, what it waits for, the IUT's latest stderr
// line; at most width columns, so redrawing it never wraps.
func WaitLine(w harness.Wait, width int) string {
	s := fmt.Sprintf("%5.1fs waiting for %s", w.Elapsed.Seconds(), w.For)
	if w.LastStderr != "" {
		s += " | IUT: " + strings.Map(printable, w.LastStderr)
	}
	return clipRunes(s, width-1)
}

// printable keeps control characters of the IUT's output (a carriage
// return, an escape sequence) from moving the cursor.
func printable(r rune) rune {
	if r < ' ' || r == 0x7f {
		return ' '
	}
	return r
}

// clipRunes shortens s to at most n characters, with an ellipsis.
func clipRunes(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// LiveWait returns a Config.Waiting that redraws WaitLine in place on a
// terminal (carriage return and blank padding, no escape sequences, so a
// dumb terminal shows it too) and erases it when the wait ends.
func LiveWait(out io.Writer, width int) func(harness.Wait) {
	shown := 0
	return func(w harness.Wait) {
		if w.Done {
			if shown > 0 {
				fmt.Fprintf(out, "\r%s\r", strings.Repeat(" ", shown))
			}
			shown = 0
			return
		}
		line := WaitLine(w, width)
		n := utf8.RuneCountInString(line)
		fmt.Fprintf(out, "\r%s%s", line, strings.Repeat(" ", max(shown-n, 0)))
		shown = max(n, shown)
	}
}
