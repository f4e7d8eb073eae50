package fuzz

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/report"
)

// Deaths and --duration. A batch is played within the run's deadline,
// the hunt for what killed the IUT included; a death the hunt leaves
// unexplained (no time left, or no case it could blame) is still a
// finding, whose reproducer plays its suspects together.

// duePast says why a batch stops at the run's deadline.
const duePast = "--duration ran out"

// playOptions is how a batch is played: within --duration, hunt included
// (no scenario and no replay starts after the run's deadline).
func (fz *fuzzer) playOptions() harness.PlayOptions {
	opt := harness.PlayOptions{Parallel: fz.cfg.Parallel}
	if fz.cfg.Duration > 0 {
		opt.Deadline, opt.Due = fz.deadline(), duePast
	}
	return opt
}

// cutShort reports whether res was left unplayed because --duration ran
// out (not because the IUT was gone).
func (fz *fuzzer) cutShort(res *report.ScenarioResult) bool {
	return res.Unplayed && fz.cfg.Duration > 0 && strings.HasSuffix(res.Message, duePast) && !time.Now().Before(fz.deadline())
}

// sentCase is a case that sent to the IUT's current incarnation, when it
// first did, and did not pass: a suspect of a death no case explains.
type sentCase struct {
	c  *Case
	at report.Millis
}

// maxRecent bounds the suspects remembered for the current incarnation.
const maxRecent = 1024

// unexplained is the finding of the deaths of a played batch when none of
// its cases was found to kill the IUT (nil when none died). Its suspects,
// which its reproducer plays together (aghcheck run's own hunt then pins
// the one that does it), are the cases in flight at a death, then those
// that sent to the incarnation that died and did not pass, earliest
// first, in this batch or one before it. A peer is named deaf only a deaf
// window after the input that did it: the case that sent it is still in
// flight when it waits for an answer the harness's probe is out for, or
// it was judged (unserved) before, in this batch or an earlier one; the
// cases sent after it are its victims. cut says --duration cut the hunt
// short.
func (fz *fuzzer) unexplained(b *report.Batch, cases []*Case, cut bool) *Finding {
	byID := map[string]*Case{}
	for i, res := range b.Results {
		byID[cases[i].ID] = cases[i]
		if res.Outcome == report.Pass {
			continue // served all it asked for: not what killed it
		}
		if j := slices.IndexFunc(res.Exchanged, func(e *report.ExchangedEntry) bool { return e.Direction == "sent" }); j >= 0 {
			fz.recent = append(fz.recent, sentCase{cases[i], res.Exchanged[j].At})
		}
	}
	slices.SortStableFunc(fz.recent, func(a, b sentCase) int { return cmp.Compare(a.at, b.at) })
	var deaths []report.LifeEvent
	var suspects []*Case
	add := func(c *Case) {
		if c != nil && !slices.Contains(suspects, c) {
			suspects = append(suspects, c)
		}
	}
	for _, ev := range b.Events {
		if !ev.Death() {
			// A new incarnation: what the last one was sent is no
			// suspect of what this one does.
			fz.recent = slices.DeleteFunc(fz.recent, func(s sentCase) bool { return s.at < ev.At })
			continue
		}
		deaths = append(deaths, ev)
		for _, id := range ev.InFlight {
			add(byID[id])
		}
		for _, s := range fz.recent {
			if s.at <= ev.At {
				add(s.c)
			}
		}
		fz.recent = slices.DeleteFunc(fz.recent, func(s sentCase) bool { return s.at <= ev.At })
	}
	if len(fz.recent) > maxRecent {
		fz.recent = fz.recent[len(fz.recent)-maxRecent:]
	}
	if len(deaths) == 0 || len(b.Killers) > 0 {
		return nil
	}
	f := unattributed(deaths[0], cut)
	f.suspects = suspects
	return &f
}
