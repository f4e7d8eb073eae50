package termline

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/harness"
)

// waitLine is the live line a terminal shows while a run waits for the
// IUT to join: elapsed time, what it waits for, the IUT's latest stderr
// line; at most width columns, so redrawing it never wraps.
func waitLine(w harness.Wait, width int) string {
	s := fmt.Sprintf("%5.1fs waiting for %s", w.Elapsed.Seconds(), strings.Map(printable, w.For))
	if w.Others > 0 {
		s += fmt.Sprintf(" (and %d more)", w.Others)
	}
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

// LiveWait returns a Config.Waiting that redraws waitLine in place on a
// terminal and erases it when the wait ends.
func LiveWait(out io.Writer, width int) func(harness.Wait) {
	return LiveWaitOn(New(out), width)
}

// LiveWaitOn is LiveWait on a live line its caller also clears before it
// prints a line of its own (a scenario's verdict, a death of the IUT).
func LiveWaitOn(l *Line, width int) func(harness.Wait) {
	return func(w harness.Wait) {
		if w.Done {
			l.Clear()
			return
		}
		l.Show(waitLine(w, width))
	}
}

// LogWait returns a Config.Waiting for a log that is not a terminal (a CI
// log): a line saying what the run waits for and for how long, once a wait
// has lasted every, and again every every while the run waits; nothing
// for shorter waits.
func LogWait(out io.Writer, every time.Duration) func(harness.Wait) {
	var last time.Time
	return func(w harness.Wait) {
		switch {
		case w.Done:
			last = time.Time{}
		case w.Elapsed >= every && time.Since(last) >= every:
			last = time.Now()
			fmt.Fprintf(out, "aghcheck: %s into the run, %s\n", w.Run.Round(100*time.Millisecond), strings.TrimSpace(waitLine(w, 1<<10)))
		}
	}
}
