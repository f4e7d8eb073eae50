package reporter

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/rundiff"
)

// matrixCounts is a column's totals cell.
func matrixCounts(c rundiff.Column) string {
	if c.NotRun != "" {
		return "not run"
	}
	return fmt.Sprintf("%d/%d/%d/%d/%d", c.Counts["pass"], c.Counts["fail"], c.Counts["warn"], c.Counts["skip"], c.Counts["error"])
}

// matrixClosing says what the table leaves out and why a column is empty.
func matrixClosing(m *rundiff.Matrix) []string {
	lines := []string{fmt.Sprintf("%s with the same outcome in every version that ran are not listed.", plural.Count(m.Same, "scenario"))}
	for _, c := range m.Columns {
		if c.NotRun != "" {
			lines = append(lines, fmt.Sprintf("%s (%s) was not run: %s", c.Label, c.Version, c.NotRun))
		}
	}
	return lines
}

func writeMatrixText(w io.Writer, m *rundiff.Matrix) error {
	var b strings.Builder
	width := len("expected-fail ")
	for _, c := range m.Columns {
		width = max(width, len(c.Label)+2, len(c.Version)+2, len(matrixCounts(c))+2)
	}
	row := func(first, level string, cells []string) {
		line := fmt.Sprintf("%-52s %-7s", first, level)
		for _, c := range cells {
			line += fmt.Sprintf("%-*s", width, c)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	labels, versions, counts := []string{}, []string{}, []string{}
	for _, c := range m.Columns {
		labels, versions, counts = append(labels, c.Label), append(versions, c.Version), append(counts, matrixCounts(c))
	}
	row("scenario", "level", labels)
	row("  version", "", versions)
	row("  pass/fail/warn/skip/error", "", counts)
	for _, r := range m.Rows {
		cells := make([]string, len(r.Outcomes))
		for i, o := range r.Outcomes {
			cells[i] = orDash(o)
			if r.Changed[i] {
				cells[i] += "*"
			}
		}
		row(r.ID, r.Level, cells)
	}
	b.WriteString("\n* changed since the version before it.\n")
	for _, l := range matrixClosing(m) {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMatrixJSON(w io.Writer, m *rundiff.Matrix) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(m)
}

// writeMatrixMarkdown writes the matrix as one table, a changed cell in
// bold, for docs and pull requests.
func writeMatrixMarkdown(w io.Writer, m *rundiff.Matrix) error {
	var b strings.Builder
	head, sep, versions, counts := "| scenario | level |", "| --- | --- |", "| *version* | |", "| *pass/fail/warn/skip/error* | |"
	for _, c := range m.Columns {
		head += " " + mdCell(c.Label) + " |"
		sep += " --- |"
		versions += " " + mdCode(c.Version) + " |"
		counts += " " + matrixCounts(c) + " |"
	}
	b.WriteString(head + "\n" + sep + "\n" + versions + "\n" + counts + "\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| %s | %s |", mdCode(r.ID), mdCell(r.Level))
		for i, o := range r.Outcomes {
			cell := mdCell(orDash(o))
			if r.Changed[i] {
				cell = "**" + cell + "**"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nA cell in bold changed since the version before it. ")
	b.WriteString(strings.Join(matrixClosing(m), "\n\n") + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}
