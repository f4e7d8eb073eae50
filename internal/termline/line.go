package termline

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line is one line redrawn in place on a terminal: carriage return and
// blank padding, no escape sequences, so a dumb terminal shows it too.
type Line struct {
	out   io.Writer
	shown int // columns drawn, to blank what a shorter line leaves
}

// New returns a live line on out, which must be a terminal.
func New(out io.Writer) *Line { return &Line{out: out} }

// Show replaces the line with s.
func (l *Line) Show(s string) {
	n := utf8.RuneCountInString(s)
	fmt.Fprintf(l.out, "\r%s%s", s, strings.Repeat(" ", max(l.shown-n, 0)))
	l.shown = max(n, l.shown)
}

// Clear erases the line, leaving the cursor at its start.
func (l *Line) Clear() {
	if l.shown > 0 {
		fmt.Fprintf(l.out, "\r%s\r", strings.Repeat(" ", l.shown))
	}
	l.shown = 0
}
