package harness

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/report"
)

// A certificate is worth something only when playing the suite again gives
// the same answer. With --repeat N the run plays its scenarios N times, one
// run after another, against the one broker and the one IUT (started once;
// restarted only when it dies, as in any run), and folds the runs into one
// result per scenario. A scenario whose outcome differed between the runs
// is an error of the harness, never a pass or a fail of the IUT: which of
// its outcomes is the IUT's is exactly what the runs could not say.
//
// Each run ends as a run does: the IUT's last word, everything it sent
// through the bus, and the run's scenarios judged again on what came after
// they ended; only then does the next run start. The passive verdict is
// judged once, on everything the IUT sent in all the runs, and the
// budgets of the IUT's traffic grow with the runs (see connect).

// repeat plays play again until cfg.Repeat runs have been played, the
// run's verdict is due (--deadline) or it is interrupted, then folds each
// scenario's runs into its result. The first run's progress was shown as
// it came; the others are heard only through the folded verdict.
func (r *runner) repeat(ctx context.Context, rep *report.Report, play []int) {
	runs := make(map[int][]*report.ScenarioResult, len(play))
	keep := func() {
		r.lastWord(rep)
		r.drain()
		r.judgeLate(rep)
		for _, i := range play {
			runs[i] = append(runs[i], rep.Scenarios[i])
		}
		r.runs++
	}
	keep()
	progress := r.cfg.Progress
	r.cfg.Progress = nil
	defer func() { r.cfg.Progress = progress }()
	for r.runs < r.cfg.Repeat {
		if why := cmp.Or(r.outOfTime(), r.gaveUp); why != "" || ctx.Err() != nil {
			r.runsCut = why
			break
		}
		// Each run has the budgets of a run: --max-restarts for deaths in
		// company, and (playAll) the hunt's replays.
		r.deathRestarts = 0
		for _, i := range play {
			// The scenario's identity, as newReport gave it; the verdict
			// is the new run's.
			was := rep.Scenarios[i]
			rep.Scenarios[i] = &report.ScenarioResult{ID: was.ID, Title: was.Title, Suite: was.Suite, File: was.File, Line: was.Line,
				Level: was.Level, Claim: was.Claim, Requirements: was.Requirements, Readings: was.Readings, ProvenBy: was.ProvenBy}
		}
		r.playAll(ctx, rep, play)
		if ctx.Err() != nil {
			return // interrupted: the run is aborted, unjudged
		}
		keep()
	}
	for _, i := range play {
		rep.Scenarios[i] = fold(runs[i])
	}
}

// fold is one scenario's result over its runs: the first run's when every
// run had the same outcome, else an error that names each run's outcome,
// with the details (steps, exchange) of the first run of the worst
// outcome, the one that says most about what went wrong.
func fold(results []*report.ScenarioResult) *report.ScenarioResult {
	outs := make([]report.Outcome, len(results))
	for k, res := range results {
		outs[k] = res.Outcome
	}
	if !unstable(outs) {
		res := *results[0]
		res.Runs = outs
		return &res
	}
	pick := 0
	for k, o := range outs {
		if severity(o) > severity(outs[pick]) {
			pick = k
		}
	}
	res := *results[pick]
	res.Runs = outs
	res.Outcome = report.Error
	res.Unplayed, res.StrictFail = false, false
	res.Message = fmt.Sprintf("unstable: its outcome differed between the %d runs (%s); run %d: %s", len(outs), tally(outs), pick+1, cmpMessage(results[pick]))
	notes := make([]string, 0, len(results)+len(res.Notes))
	for k, r := range results {
		notes = append(notes, fmt.Sprintf("run %d: %s", k+1, cmpMessage(r)))
	}
	res.Notes = append(notes, res.Notes...)
	return &res
}

// cmpMessage is a run's outcome with its message.
func cmpMessage(res *report.ScenarioResult) string {
	if res.Message == "" {
		return string(res.Outcome)
	}
	return string(res.Outcome) + " (" + res.Message + ")"
}

// unstable reports whether outs are not all the same outcome.
func unstable(outs []report.Outcome) bool {
	return slices.ContainsFunc(outs, func(o report.Outcome) bool { return o != outs[0] })
}

// severity orders outcomes for the run whose details an unstable scenario
// shows: the one that says most about what went wrong.
func severity(o report.Outcome) int {
	return slices.Index([]report.Outcome{report.Pass, report.Skip, report.Warn, report.Error, report.Fail}, o)
}

// tally says which runs had which outcome: "pass on runs 1, 2 and 4; fail
// on runs 3 and 5", outcomes in the order they first came.
func tally(outs []report.Outcome) string {
	var order []report.Outcome
	on := map[report.Outcome][]string{}
	for k, o := range outs {
		if _, seen := on[o]; !seen {
			order = append(order, o)
		}
		on[o] = append(on[o], fmt.Sprint(k+1))
	}
	parts := make([]string, len(order))
	for k, o := range order {
		runs := on[o]
		word := "run "
		if len(runs) > 1 {
			word = "runs "
		}
		list := strings.Join(runs, ", ")
		if n := len(runs); n > 1 {
			list = strings.Join(runs[:n-1], ", ") + " and " + runs[n-1]
		}
		parts[k] = string(o) + " on " + word + list
	}
	return strings.Join(parts, "; ")
}

// repeatSummary adds to a graded report what its runs were: how many, and
// the scenarios whose outcome differed. A run that played fewer runs than
// --repeat asked for showed no stability for the rest: it is incomplete,
// and earns no claim.
func (r *runner) repeatSummary(rep *report.Report) {
	if r.cfg.Repeat < 2 {
		return
	}
	s := &rep.Summary
	s.Repeat = r.runs
	for _, sc := range rep.Scenarios {
		if len(sc.Runs) > 1 && unstable(sc.Runs) {
			s.Unstable = append(s.Unstable, sc.ID)
		}
	}
	if r.runs < r.cfg.Repeat && rep.Error == "" {
		why := fmt.Sprintf("%d of the %d runs --repeat asked for were played", r.runs, r.cfg.Repeat)
		if r.runsCut != "" {
			why += ": " + r.runsCut
		}
		s.Incomplete, s.Passed = true, false
		s.Unplayed = append(s.Unplayed, why)
		withhold(rep, "the run is incomplete: "+why)
	}
}
