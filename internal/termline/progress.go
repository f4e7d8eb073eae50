package termline

import (
	"fmt"
	"time"

	"github.com/aghcheck/aghcheck/internal/plural"
)

// ValidateProgress is how far a long `aghcheck validate` has got.
type ValidateProgress struct {
	File, Files int // the input being read (1-based) and how many there are
	Documents   int64
	Bytes       int64
	Elapsed     time.Duration
}

// ProgressLine is the live line a terminal shows while validate works:
// files, documents, bytes and the rates so far; at most width columns.
func ProgressLine(p ValidateProgress, width int) string {
	secs := max(p.Elapsed.Seconds(), 1e-3)
	s := fmt.Sprintf("%5.1fs file %d/%d, %s, %s (%s/s, %.0f documents/s)",
		p.Elapsed.Seconds(), p.File, p.Files, plural.Count(int(p.Documents), "document"), byteSize(float64(p.Bytes)), byteSize(float64(p.Bytes)/secs), float64(p.Documents)/secs)
	return clipRunes(s, width-1)
}

// byteSize renders n bytes in decimal units (as the benchmarks report).
func byteSize(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", n/1e3)
	}
	return fmt.Sprintf("%.0f B", n)
}
