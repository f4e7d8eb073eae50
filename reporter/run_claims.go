package reporter

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
)

// gapGroup is the requirements of a claim left unexercised for one reason.
type gapGroup struct {
	Reason string
	IDs    []string
}

// gapGroups groups a claim's unexercised requirements by reason, in the
// order the reasons first appear (the gaps are sorted by id).
func gapGroups(gaps []report.RequirementGap) []gapGroup {
	reasons, groups := groupInOrder(gaps, func(g report.RequirementGap) string { return g.Reason })
	out := make([]gapGroup, len(reasons))
	for i, r := range reasons {
		out[i].Reason = r
		for _, g := range groups[i] {
			out[i].IDs = append(out[i].IDs, g.ID)
		}
	}
	return out
}

// exercisedLine says in one line what a run exercised of a claim, e.g.
// "54 requirements exercised, 2 not: LIFE-X, LIFE-Y (needs aghcheck.control/v1)".
// Past limit ids (0: no limit) the rest is counted, not named; a long
// reason is clipped (the JSON and HTML reports give it whole).
func exercisedLine(c report.ClaimResult, limit int) string {
	s := plural.Count(len(c.Exercised), "requirement") + " exercised"
	if len(c.NotExercised) == 0 {
		return s
	}
	var parts []string
	named := 0
	for _, g := range gapGroups(c.NotExercised) {
		ids := g.IDs
		if limit > 0 && named+len(ids) > limit {
			ids = ids[:max(limit-named, 0)]
		}
		named += len(ids)
		if len(ids) > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(ids, ", "), clip(g.Reason, 120)))
		}
	}
	if rest := len(c.NotExercised) - named; rest > 0 {
		parts = append(parts, fmt.Sprintf("… %d more", rest))
	}
	return fmt.Sprintf("%s, %d not: %s", s, len(c.NotExercised), strings.Join(parts, "; "))
}

// untestedPrefix starts each reason of a claim's Why that names one MUST
// requirement no scenario exercised.
const untestedPrefix = report.UntestedPrefix

// whyLine says in one line why a claim was not earned: its reasons, the
// untested requirements gathered into one of them ("untested: A, B, … 78
// more"), naming at most limit of them (0: every one).
func whyLine(why []string, limit int) string {
	var parts, untested []string
	at := -1
	for _, w := range why {
		if id, ok := strings.CutPrefix(w, untestedPrefix); ok {
			if at < 0 {
				at = len(parts)
				parts = append(parts, "")
			}
			untested = append(untested, id)
			continue
		}
		parts = append(parts, w)
	}
	if at >= 0 {
		named := untested
		if limit > 0 && len(named) > limit {
			named = named[:limit]
		}
		s := untestedPrefix + strings.Join(named, ", ")
		if rest := len(untested) - len(named); rest > 0 {
			s += fmt.Sprintf(", … %d more", rest)
		}
		parts[at] = s
	}
	return strings.Join(parts, "; ")
}
