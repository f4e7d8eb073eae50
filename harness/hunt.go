package harness

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
)

// The hunt for a killer. A scenario in flight at a death is a suspect
// when the death followed one of its inputs closely. The suspects are
// narrowed down by bisection: half of them (those whose input came closest
// to the death first) are played again together on the IUT brought back;
// when that half kills it, the hunt goes on among those of the half whose
// input the new death followed closely, and the other half goes back into
// company; when it does not, that half is judged and the other half is
// played. The last suspect is played alone on a fresh IUT, and blamed only
// when it kills it again, closely after one of its inputs. Before a hunt,
// a death that came at the uptime an earlier one came at is checked
// against a fresh IUT sent nothing: one that dies so too dies on a timer,
// whatever is sent, and blames no scenario. A hunt costs little when the
// death does not come again: its replays are how the suspects are played
// again anyway, a half at a time.
//
// Replays have a budget (huntReplays per run, or per batch of a
// session) and the run a deadline (Target.Deadline): what they leave
// unplayed is an error, and says which. A hunt that finds its killer
// gives back what it spent: an IUT that several scenarios kill would
// otherwise have some of them found and the rest left unplayed, a
// different few on each run (seven killers of one peer needed about
// twice the budget), and no claim earned for want of them. The hunts
// that find nothing spend the budget, and all of them together at most
// maxHuntReplays, so that an IUT every scenario kills still ends.

// huntReplays is how many replays the hunts of one run may spend without
// finding a killer: a bisection among n suspects costs about 2·log2(n),
// the check of a timed death one.
const huntReplays = 40

// maxHuntReplays bounds every replay of a run's hunts, those of the hunts
// that found their killer included.
const maxHuntReplays = 4 * huntReplays

// closeFloor is the least span between an input and a death that follows
// it closely; a slow IUT widens it to its slowest reply so far.
const closeFloor = 2 * time.Second

// maxInterrupts is how often a scenario may be interrupted by deaths that
// followed no input closely before it is left unplayed (an error): an IUT
// that dies on a timer would otherwise interrupt a long scenario for ever.
// A death that did follow some scenario's input closely has a cause the
// hunt looks for, and weighs a third as much: a scenario played beside
// several killers is interrupted once by each before each is found (four
// killers once left a scenario unplayed that nothing was wrong with).
const maxInterrupts = 4

const (
	causeless = 3 // a death's weight when no input preceded it closely
	suspected = 1 // its weight when one did
)

// hunting is the state of fair blame over one run (or one batch of a
// session): indexes are those of its scenarios.
type hunting struct {
	interrupts map[int]int // scenario → deaths it was in flight at, weighed
	deaths     map[int]int // scenario → deaths it was in flight at
	// replays counts those of hunts that found no killer (the budget);
	// givenBack, those of hunts that did.
	replays, givenBack int
	// uptimes are the uptimes of the deaths so far, timed those a fresh
	// IUT sent nothing died at too; calm is the uptime a fresh IUT sent
	// nothing lived past (no death before it comes whatever is sent).
	uptimes, timed []uptime
	calm           uptime
}

func newHunting() *hunting {
	return &hunting{interrupts: map[int]int{}, deaths: map[int]int{}}
}

// closeBy is how long after an input a death still follows it closely.
func (r *runner) closeBy() time.Duration {
	r.life.mu.Lock()
	defer r.life.mu.Unlock()
	return max(closeFloor, r.life.slowest)
}

// closeTo reports whether a sent one of its inputs at most within before
// d's span began, or during it.
func (a *attempt) closeTo(d *death, within time.Duration) bool {
	for _, e := range a.sent {
		if t := e.At.D(); t <= d.at && t+within >= d.after {
			return true
		}
	}
	return false
}

// nearest is how far from the start of death d's span (d.after) the
// attempt's input nearest to it was sent, among those sent by d.at (for a
// death at one moment, how long before it the last input was).
func (a *attempt) nearest(d *death) time.Duration {
	best := time.Duration(1<<63 - 1)
	for _, e := range a.sent {
		if t := e.At.D(); t <= d.at {
			best = min(best, (t - d.after).Abs())
		}
	}
	return best
}

// outOfTime says why nothing more may start ("" while the run has time
// and the IUT has not flooded it).
func (r *runner) outOfTime() string {
	if r.cfg.Deadline > 0 && time.Since(r.start) >= r.cfg.Deadline {
		if r.due != "" {
			return r.due // a Session batch's (PlayOptions.Deadline)
		}
		return fmt.Sprintf("the run's verdict was due within %s (--deadline)", r.cfg.Deadline)
	}
	why, _ := r.bus.floodReason()
	return why
}

// spent says why the hunt may not replay any more ("" while it may).
func (r *runner) spent() string {
	if why := r.outOfTime(); why != "" {
		return why
	}
	h := r.hunting
	if h.replays >= cmp.Or(r.cfg.huntBudget, huntReplays) || h.replays+h.givenBack >= maxHuntReplays {
		return fmt.Sprintf("the hunt for what kills the IUT used its %d replays", h.replays+h.givenBack)
	}
	return ""
}

// sift sorts the attempts a death interrupted: those it followed closely
// are suspects; the others go back into company, but one interrupted too
// often, which is left unplayed.
func (r *runner) sift(rep *report.Report, d *death, as []*attempt) (back, suspects []*attempt) {
	h := r.hunting
	within := r.closeBy()
	var others []*attempt
	for _, a := range as {
		h.deaths[a.i]++
		if a.closeTo(d, within) {
			suspects = append(suspects, a)
		} else {
			others = append(others, a)
		}
	}
	weight := causeless
	if len(suspects) > 0 {
		weight = suspected
	}
	for _, a := range suspects {
		h.interrupts[a.i] += weight // the hunt plays it alone now; the count weighs its next interruption
	}
	for _, a := range others {
		h.interrupts[a.i] += weight
		if h.interrupts[a.i] >= maxInterrupts*causeless {
			r.unplayable(rep, []int{a.i}, fmt.Sprintf("interrupted by %d deaths of the IUT, none of them its own", h.deaths[a.i]))
			continue
		}
		back = append(back, a)
	}
	return back, suspects
}

// hunt looks for the killer among the suspects of death d (not a timed
// one) and returns the attempts that go back into company; ok is false
// when the IUT did not come back.
func (r *runner) hunt(ctx context.Context, rep *report.Report, par int, d *death, suspects []*attempt) (back []*attempt, ok bool) {
	h, spent, found := r.hunting, r.hunting.replays, len(r.killers)
	defer func() {
		if len(r.killers) > found {
			h.givenBack += h.replays - spent
			h.replays = spent
		}
	}()
	// Closest to the death first: the killer's input reached the IUT
	// just before it died. A deafness began after its last answer (after)
	// and was seen at a probe (at) a while later: what was sent meanwhile
	// found it deaf already, and the input nearest its last answer is the
	// likeliest.
	byCloseness := func(d *death, as []*attempt) {
		slices.SortStableFunc(as, func(a, b *attempt) int { return cmp.Compare(a.nearest(d), b.nearest(d)) })
	}
	byCloseness(d, suspects)
	s := suspects
	for len(s) > 0 && ctx.Err() == nil {
		if why := r.spent(); why != "" {
			r.unplayable(rep, indexes(s), why)
			return back, true
		}
		if len(s) == 1 {
			return r.alone(ctx, rep, back, s[0])
		}
		halves := [][]*attempt{s[:len(s)/2], s[len(s)/2:]}
		var next []*attempt
		for k, half := range halves {
			if k > 0 {
				if why := r.spent(); why != "" {
					r.unplayable(rep, indexes(half), why)
					return back, true
				}
			}
			if len(half) == 1 {
				// One suspect: played alone on a fresh IUT, which is how
				// the last suspect is played (alone), not twice.
				more, ok := r.alone(ctx, rep, nil, half[0])
				back = append(back, more...)
				if k == 0 && ok && len(more) == 0 && !rep.Scenarios[half[0].i].Killed {
					continue // judged: no killer in this half
				}
				if k == 0 {
					back = append(back, halves[1]...) // back into company
				}
				return back, ok
			}
			died, got, ok := r.replay(ctx, rep, par, half)
			if !ok {
				back = append(back, got...)
				if k == 0 {
					back = append(back, halves[1]...)
				}
				return back, false
			}
			if died == nil {
				continue // judged: no killer in this half
			}
			within := r.closeBy()
			for _, a := range got {
				if a.closeTo(died, within) {
					next = append(next, a)
				} else {
					back = append(back, a)
				}
			}
			if k == 0 {
				back = append(back, halves[1]...) // back into company
			}
			if len(next) > 0 {
				if timed, ok := r.timedDeath(ctx, died); !ok || timed {
					return append(back, next...), ok
				}
			}
			byCloseness(died, next)
			break
		}
		s = next
	}
	return append(back, s...), true
}

// replay plays the attempts' scenarios again together on the current
// incarnation: died is the death that interrupted them (nil: judged),
// got the attempts it interrupted; ok is false when the IUT did not come
// back.
func (r *runner) replay(ctx context.Context, rep *report.Report, par int, as []*attempt) (died *death, got []*attempt, ok bool) {
	r.hunting.replays++
	l := r.life.current()
	got, rest := r.round(ctx, l, rep, indexes(as), par)
	died = l.died()
	if died == nil {
		if len(rest) > 0 {
			r.unplayable(rep, rest, r.outOfTime())
		}
		return nil, nil, true
	}
	r.interrupted(ctx, died, got)
	for _, i := range rest {
		got = append(got, &attempt{i: i, res: rep.Scenarios[i]})
	}
	return died, got, r.revive(ctx, rep, true)
}

// alone plays the last suspect alone on a fresh IUT and blames it when
// it kills it again closely after one of its inputs, not on a timer.
func (r *runner) alone(ctx context.Context, rep *report.Report, back []*attempt, a *attempt) ([]*attempt, bool) {
	if l := r.life.current(); !l.fresh() && r.proc != nil {
		// The restart and the replay on it are one replay of the budget.
		if !r.restart(ctx, "for a fresh IUT to play "+a.res.ID+" alone") {
			return append(back, a), false
		}
	}
	// An IUT the run did not start cannot be started afresh: it is played
	// alone on the incarnation there is, and the verdict says so.
	fresh := r.life.current().fresh()
	died, got, ok := r.replay(ctx, rep, 1, []*attempt{a})
	switch {
	case died == nil:
		return back, true // judged: it passes alone
	case !ok:
		return append(back, got...), false
	case len(got) == 0 || !got[0].closeTo(died, r.closeBy()):
		return append(back, got...), true
	}
	if timed, ok := r.timedDeath(ctx, died); !ok || timed {
		return append(back, got...), ok
	}
	r.blame(rep, got[0], fresh)
	return back, true
}

// timedDeath reports whether death d comes at the uptime an earlier death
// came at whatever was sent: a fresh IUT, sent nothing, dies at that
// uptime too. It checks once per uptime, and not at all for a first
// death at an uptime; ok is false when the IUT did not come back.
func (r *runner) timedDeath(ctx context.Context, d *death) (timed, ok bool) {
	h := r.hunting
	near := func(list []uptime) bool {
		return slices.ContainsFunc(list, func(u uptime) bool { return sameUptime(u, d.uptime) })
	}
	n := 0 // deaths at this uptime, d among them (see interrupted)
	for _, u := range h.uptimes {
		if sameUptime(u, d.uptime) {
			n++
		}
	}
	seen := n >= 2
	calm := d.uptime.proc <= h.calm.proc && d.uptime.greeted <= h.calm.greeted
	switch {
	case near(h.timed):
		return true, true
	case !seen || calm || r.spent() != "":
		return false, true
	}
	if l := r.life.current(); !l.fresh() {
		if r.proc == nil {
			return false, true // an IUT the run did not start cannot be made fresh
		}
		if !r.restart(ctx, "for a fresh IUT that is sent nothing") {
			return false, false
		}
	}
	h.replays++
	l := r.life.current()
	// Long enough for the death to come again, counted either way, and to
	// be seen: deafness shows only after its window.
	slack := max(closeFloor, max(d.uptime.proc, d.uptime.greeted)/2)
	switch {
	case d.prompt:
		// The broker shows such a deafness at the first probe.
		r.life.mu.Lock()
		slack += r.life.quietLocked() + deafPoll
		r.life.mu.Unlock()
	case d.event.Kind == report.LifeDeaf:
		r.life.mu.Lock()
		slack += r.life.deafWindowLocked()
		r.life.mu.Unlock()
	}
	waitProc, waitGreeted := d.uptime.proc+slack, d.uptime.greeted+slack
	done := r.await(fmt.Sprintf("a fresh IUT, sent nothing, to live past %s of uptime (it died at %s before)", rounded(report.Millis(waitProc)), d.uptime))
	now := time.Since(r.start)
	t := time.NewTimer(max(waitProc-(now-l.born), waitGreeted-(now-l.began), 0))
	select {
	case <-t.C:
	case <-l.ctx.Done():
	}
	t.Stop()
	done()
	again := l.died()
	if again == nil {
		now := time.Since(r.start)
		h.calm = uptime{proc: max(h.calm.proc, now-l.born), greeted: max(h.calm.greeted, now-l.began)}
		return false, ctx.Err() == nil
	}
	h.timed = append(h.timed, d.uptime, again.uptime)
	thisTime, lastTime := agreeing(again.uptime, d.uptime)
	again.event.Blame = fmt.Sprintf("a fresh IUT sent nothing died %s, as it did %s: the deaths come whatever is sent, and no scenario is blamed", thisTime, lastTime)
	d.event.Blame = again.event.Blame
	r.interrupted(ctx, again, nil)
	return true, r.revive(ctx, nil, true)
}

// sameUptime reports whether two deaths came at the same uptime, counted
// from the process's start or from its greet: within half a second, or a
// tenth of it.
func sameUptime(a, b uptime) bool {
	return sameSpan(a.proc, b.proc) || sameSpan(a.greeted, b.greeted)
}

// agreeing says when deaths a and b came, counted the way they agree.
func agreeing(a, b uptime) (string, string) {
	if sameSpan(a.proc, b.proc) {
		return fmt.Sprintf("at %s of uptime", rounded(report.Millis(a.proc))), fmt.Sprintf("at %s", rounded(report.Millis(b.proc)))
	}
	return fmt.Sprintf("%s after its greet", rounded(report.Millis(a.greeted))), fmt.Sprintf("%s after its greet", rounded(report.Millis(b.greeted)))
}

func sameSpan(a, b time.Duration) bool {
	return (a - b).Abs() <= max(500*time.Millisecond, max(a, b)/10)
}
