package reporter

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rundiff"
)

// diffSections are the classes of change in the order every format lists
// them.
var diffSections = []struct {
	class rundiff.Class
	title string
}{
	{rundiff.Regressed, "Regressed"},
	{rundiff.Improved, "Improved"},
	{rundiff.Appeared, "Appeared"},
	{rundiff.Vanished, "Vanished"},
	{rundiff.Unplayable, "Judged before, could not be played now (error)"},
	{rundiff.Unjudged, "Skipped or errored in one run"},
	{rundiff.Shifted, "Judged at other steps of scenarios whose outcome did not change"},
}

// diffSide is one run's line: what was tested, with what, and its counts.
func diffSide(s rundiff.Side) (string, string) {
	what := fmt.Sprintf("%s, aghcheck %s, level %s", nameVersion(s.Implementation, s.ImplementationVersion), s.Aghcheck, s.Level)
	if s.Started != "" {
		what += ", " + s.Started
	}
	return what, fmt.Sprintf("%d pass, %d fail, %d warn, %d skip, %d error; claim earned: %s",
		s.Counts["pass"], s.Counts["fail"], s.Counts["warn"], s.Counts["skip"], s.Counts["error"], s.Claim)
}

// orDash is an outcome, or a dash for a run that lacks the id.
func orDash(o report.Outcome) string {
	if o == "" {
		return "—"
	}
	return string(o)
}

// diffVerdict is the closing line of text and markdown.
func diffVerdict(d *rundiff.Diff) string {
	parts := make([]string, 0, len(diffSections))
	for _, s := range diffSections {
		name := string(s.class)
		switch s.class {
		case rundiff.Unplayable:
			if d.Count(s.class) == 0 {
				continue // named only when it happened
			}
			name = "could not be played"
		case rundiff.Unjudged:
			name = "not judged in one run"
		case rundiff.Shifted:
			name = "judged at other steps"
		}
		parts = append(parts, fmt.Sprintf("%d %s", d.Count(s.class), name))
	}
	return fmt.Sprintf("%s; %s and %s unchanged", strings.Join(parts, ", "),
		plural.Count(d.Same[rundiff.Scenario], "scenario"), plural.Count(d.Same[rundiff.Requirement], "requirement"))
}

func writeDiffText(w io.Writer, p palette, d *rundiff.Diff) error {
	var b strings.Builder
	for _, side := range []struct {
		label string
		s     rundiff.Side
	}{{"old", d.Old}, {"new", d.New}} {
		what, counts := diffSide(side.s)
		fmt.Fprintf(&b, "%s  %s: %s\n     %s\n", side.label, side.s.File, what, p.faint.Sprint(counts))
	}
	for _, s := range diffSections {
		changes := d.Of(s.class)
		if len(changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", s.title, len(changes))
		for _, c := range changes {
			arrow := fmt.Sprintf("%s → %s", orDash(c.Old), orDash(c.New))
			if s.class == rundiff.Regressed {
				arrow = p.red.Sprint(arrow)
			}
			line := fmt.Sprintf("  %-11s %-52s %-7s %s", c.Kind, c.ID, c.Level, arrow)
			if c.Message != "" {
				line += "  " + p.faint.Sprint(firstLine(c.Message))
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	verdict := p.greenBold.Sprint("NO REGRESSION")
	switch {
	case d.Regressed():
		verdict = p.red.Sprint("REGRESSED")
	case d.Count(rundiff.Unplayable) > 0:
		verdict = p.red.Sprint("NOT PLAYED")
	}
	fmt.Fprintf(&b, "\n%s  %s\n", verdict, diffVerdict(d))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeDiffJSON(w io.Writer, d *rundiff.Diff) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Regressed bool `json:"regressed"`
		// Unplayable counts what was judged before and could not be
		// played now: no regression, and no evidence of none either.
		Unplayable int `json:"unplayable"`
		*rundiff.Diff
	}{d.Regressed(), d.Count(rundiff.Unplayable), d})
}

// writeDiffMarkdown writes the comparison for a pull request comment: a
// heading with the verdict, both runs side by side, then a table per class
// of change.
func writeDiffMarkdown(w io.Writer, d *rundiff.Diff) error {
	var b strings.Builder
	head := "no regression"
	if n := d.Count(rundiff.Regressed); n > 0 {
		head = fmt.Sprintf("%d regressed", n)
	}
	if n := d.Count(rundiff.Unplayable); n > 0 {
		if d.Regressed() {
			head += fmt.Sprintf(", %d could not be played", n)
		} else {
			head = fmt.Sprintf("%d could not be played (judged before)", n)
		}
	}
	fmt.Fprintf(&b, "### aghcheck diff: %s\n\n", head)
	b.WriteString("| run | implementation | version | aghcheck | pass | fail | warn | skip | error | claim |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, side := range []struct {
		label string
		s     rundiff.Side
	}{{"old", d.Old}, {"new", d.New}} {
		s := side.s
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %d | %d | %d | %d | %d | %s |\n", side.label, mdCode(s.File), mdCell(s.Implementation),
			mdCode(s.ImplementationVersion), mdCell(s.Aghcheck), s.Counts["pass"], s.Counts["fail"], s.Counts["warn"], s.Counts["skip"], s.Counts["error"], mdCell(s.Claim))
	}
	for _, s := range diffSections {
		changes := d.Of(s.class)
		if len(changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n**%s (%d)**\n\n| | id | level | old | new | why |\n| --- | --- | --- | --- | --- | --- |\n", s.title, len(changes))
		for _, c := range changes {
			n := mdCell(orDash(c.New))
			if s.class == rundiff.Regressed {
				n = "**" + n + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell(string(c.Kind)), mdCode(c.ID), mdCell(c.Level), mdCell(orDash(c.Old)), n, mdCell(clip(c.Message, 200)))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", diffVerdict(d))
	_, err := io.WriteString(w, b.String())
	return err
}
