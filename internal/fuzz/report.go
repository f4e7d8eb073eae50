package fuzz

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// Formats a report is written in.
var Formats = []string{"text", "json"}

// Write writes rep to w in format (text or json).
func Write(w io.Writer, format string, rep *Report, verbose bool) error {
	switch format {
	case "json":
		// Only secrets are taken out: the encoder escapes the rest, and
		// the writer what JSON leaves raw that a terminal would obey.
		rep = sanitize.CopyRedacted(rep)
		enc := json.NewEncoder(sanitize.NewJSONWriter(w))
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	case "text", "":
		// What the IUT sent (its peer id, reason codes, texts) is data.
		return writeText(w, sanitize.Copy(rep), verbose)
	}
	return fmt.Errorf("unknown format %q (%s)", format, strings.Join(Formats, ", "))
}

func writeText(w io.Writer, rep *Report, verbose bool) error {
	var b strings.Builder
	d := rep.Duration.D().Round(time.Millisecond)
	fmt.Fprintf(&b, "aghcheck fuzz, seed %d: %d cases in %s (%.0f cases/s)", rep.Seed, rep.Cases, d, rep.Rate)
	if rep.IUT.PeerID != "" {
		fmt.Fprintf(&b, " against %s", rep.IUT.PeerID)
		if len(rep.IUT.Command) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(rep.IUT.Command, " "))
		}
	}
	b.WriteString("\n")
	writeRunNotes(&b, rep, verbose)
	b.WriteString("\n")
	must := 0
	for _, f := range rep.Findings {
		if f.Level == "MUST" {
			must++
		}
	}
	if len(rep.Findings) == 0 {
		b.WriteString("No finding.\n")
	} else {
		fmt.Fprintf(&b, "Findings (%d: %d MUST, %d SHOULD):\n", len(rep.Findings), must, len(rep.Findings)-must)
	}
	writeFindings(&b, rep.Findings)
	writeEvents(&b, rep, verbose)
	b.WriteString("\n")
	b.WriteString(verdict(rep, must))
	b.WriteString("\n")
	if rep.Error != "" && rep.Cases > 0 {
		fmt.Fprintf(&b, "The run ended early: %s\n", rep.Error)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRunNotes says what the run did besides its findings: the corpus,
// what was not played or judged, the seeds, an interruption.
func writeRunNotes(b *strings.Builder, rep *Report, verbose bool) {
	if rep.Corpus != nil {
		fmt.Fprintf(b, "  corpus %s: %d kept cases played first, %d added\n", rep.Corpus.Dir, rep.Corpus.Played, rep.Corpus.Added)
	}
	if n := notPlayed(rep); n > 0 {
		fmt.Fprintf(b, "  %d of %d mutants not played", n, rep.Generated)
		if verbose {
			b.WriteString(":\n")
			for _, why := range sortedKeys(rep.NotPlayed) {
				fmt.Fprintf(b, "    %6d  %s\n", rep.NotPlayed[why], why)
			}
		} else {
			b.WriteString(" (the protocol leaves them open, or they could not be: -v says why)\n")
		}
	}
	if rep.Errors > 0 {
		fmt.Fprintf(b, "  %d cases could not be judged (the IUT was gone)\n", rep.Errors)
	}
	if rep.CutShort > 0 {
		fmt.Fprintf(b, "  cut short: --duration ran out while the hunt for what killed the IUT played again the cases in flight at its death: %d %s not judged (a finding that needed one to be confirmed is left out)\n",
			rep.CutShort, plural(rep.CutShort, "case"))
	}
	if rep.Unconfirmed > 0 && !rep.Interrupted {
		fmt.Fprintf(b, "  %d %s that rested on a shortened ceiling did not show again with the full --step-timeout: left out\n",
			rep.Unconfirmed, plural(rep.Unconfirmed, "finding"))
	}
	met := 0
	for _, sr := range rep.Seeds {
		if sr.Met {
			met++
		}
	}
	if len(rep.Seeds) > 0 {
		fmt.Fprintf(b, "  %d of %d seeds, played unmutated first, met the oracle", met, len(rep.Seeds))
		if rep.Unjudged > 0 {
			fmt.Fprintf(b, "; the behaviour of %d %s of the others was not judged (a finding is differential)", rep.Unjudged, plural(rep.Unjudged, "mutant"))
		}
		b.WriteString("\n")
		for _, sr := range rep.Seeds {
			if !sr.Met {
				fmt.Fprintf(b, "    %s: %s\n", sr.Seed, sr.Says)
			}
		}
	}
	if rep.Interrupted {
		fmt.Fprintf(b, "  interrupted: the %d %s in flight were not judged", rep.InFlight, plural(rep.InFlight, "case"))
		if rep.Unconfirmed > 0 {
			fmt.Fprintf(b, "; %d %s that rested on a shortened ceiling could not be confirmed and are left out", rep.Unconfirmed, plural(rep.Unconfirmed, "finding"))
		}
		b.WriteString("\n")
	}
}

// writeFindings lists each finding with what shows it and its reproducer.
func writeFindings(b *strings.Builder, findings []*Finding) {
	for _, f := range findings {
		fmt.Fprintf(b, "  %-6s %-18s %s", f.Level, f.Kind, f.Rule)
		if f.Count > 1 {
			fmt.Fprintf(b, " ×%d", f.Count)
		}
		b.WriteString("\n")
		fmt.Fprintf(b, "         %s\n", f.Message)
		if len(f.Inputs) > 1 {
			more := ""
			if len(f.Inputs) == maxInputs {
				more = ", ..."
			}
			fmt.Fprintf(b, "         shown by: %s%s\n", strings.Join(f.Inputs, ", "), more)
		}
		if f.Case != "" {
			fmt.Fprintf(b, "         case %s", f.Case)
			if f.Shrunk != "" {
				fmt.Fprintf(b, " (minimized: %s)", f.Shrunk)
			}
			b.WriteString("\n")
		}
		if f.Reproducer != "" {
			fmt.Fprintf(b, "         reproducer: %s\n", f.Reproducer)
		}
	}
}

// writeEvents lists the IUT's liveness events (the first eight without -v).
func writeEvents(b *strings.Builder, rep *Report, verbose bool) {
	if len(rep.IUT.Events) > 0 || rep.IUT.Restarts > 0 {
		fmt.Fprintf(b, "\nThe IUT: %d liveness events, %d restarts\n", len(rep.IUT.Events), rep.IUT.Restarts)
		shown := rep.IUT.Events
		if !verbose && len(shown) > 8 {
			shown = shown[:8]
		}
		for _, ev := range shown {
			fmt.Fprintf(b, "  %-12s at %s", ev.Kind, ev.At.D().Round(time.Millisecond))
			if ev.Cause != "" {
				fmt.Fprintf(b, " (%s)", ev.Cause)
			}
			if n := len(ev.InFlight); n > 0 {
				fmt.Fprintf(b, ", %d %s in flight", n, plural(n, "case"))
			}
			b.WriteString("\n")
		}
		if len(shown) < len(rep.IUT.Events) {
			fmt.Fprintf(b, "  … %d more (-v)\n", len(rep.IUT.Events)-len(shown))
		}
	}
}

// verdict is how the run ended, in one line: NOT RUN, FAILED or PASSED.
func verdict(rep *Report, must int) string {
	switch {
	case rep.Error != "" && rep.Cases == 0:
		return "NOT RUN: " + rep.Error
	case rep.Interrupted:
		return fmt.Sprintf("INTERRUPTED after %s: no verdict (%d MUST %s among the cases judged)", rep.Duration.D().Round(time.Millisecond), must, plural(must, "finding"))
	case rep.Failed():
		return fmt.Sprintf("FAILED: %d MUST %s", must, plural(must, "finding"))
	}
	return "PASSED: no MUST finding"
}

// VerdictLine is the line a run whose report went to a file still prints
// on standard error (a CI log): the verdict, the counts and the file.
func VerdictLine(rep *Report, written string) string {
	must := 0
	for _, f := range rep.Findings {
		if f.Level == "MUST" {
			must++
		}
	}
	line := fmt.Sprintf("aghcheck fuzz: %s; %d cases in %s, %d %s", verdict(rep, must), rep.Cases,
		rep.Duration.D().Round(time.Millisecond), len(rep.Findings), plural(len(rep.Findings), "finding"))
	if written != "" {
		line += "; written to " + written
	}
	return line
}

func notPlayed(rep *Report) int {
	n := 0
	for _, v := range rep.NotPlayed {
		n += v
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// Line is p in one line, for a live line on a terminal.
func (p Progress) Line() string {
	s := fmt.Sprintf("aghcheck fuzz: %s, %d cases, %.0f cases/s, %d %s (%d MUST)", p.Elapsed.Round(100*time.Millisecond), p.Cases, p.Rate, p.Findings, plural(p.Findings, "finding"), p.Must)
	if p.Phase != "" && p.Phase != "fuzzing" {
		s += "; " + p.Phase
	}
	return s
}
