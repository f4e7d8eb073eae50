package harness

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/report"
)

// Fair blame. The scenarios run in rounds, each against one incarnation of
// the IUT. A death interrupts the scenarios in flight: none of them is
// judged on the interrupted attempt, and each is played again once the IUT
// is back. A scenario is blamed only with a cause: the death followed one
// of its inputs closely (closeTo), twice, and then again when it was
// played alone on a fresh IUT; the hunt that narrows the suspects down
// (hunt.go) replays half of them at a time, within a budget. A death that
// follows no input, or comes at the same uptime whatever was sent, blames
// no scenario. A scenario that cannot be played (restarts or the hunt's
// budget used up, the run's deadline past, an IUT that never came back) is
// an error, never a fail or a pass.

// stopGrace is how long a restarted IUT has to exit on SIGTERM before it
// is killed; stopDeadGrace, one that died.
const (
	stopGrace     = time.Second
	stopDeadGrace = 100 * time.Millisecond
)

// attempt is one scenario played against one incarnation.
type attempt struct {
	i     int
	res   *report.ScenarioResult
	sent  []*report.ExchangedEntry // what it sent, in order
	sends int                      // how many of its send steps it played
	died  *death                   // the death that interrupted it (nil: judged)
}

// rounds plays the scenarios play, par at once, until each is judged or
// cannot be played.
func (r *runner) rounds(ctx context.Context, rep *report.Report, play []int, par int) {
	queue := play
	for len(queue) > 0 && ctx.Err() == nil {
		l := r.life.current()
		interrupted, rest := r.round(ctx, l, rep, queue, par)
		d := l.died()
		if d == nil {
			if len(rest) > 0 {
				r.unplayable(rep, rest, r.outOfTime())
			}
			return
		}
		r.interrupted(ctx, d, interrupted)
		queue = rest
		if !r.revive(ctx, rep, false) {
			r.unplayable(rep, append(indexes(interrupted), queue...), "")
			return
		}
		back, suspects := r.sift(rep, d, interrupted)
		timed, ok := r.timedDeath(ctx, d)
		if !ok {
			r.unplayable(rep, append(indexes(append(back, suspects...)), queue...), "")
			return
		}
		if timed {
			back, suspects = append(back, suspects...), nil
		}
		if len(suspects) > 0 {
			more, ok := r.hunt(ctx, rep, par, d, suspects)
			back = append(back, more...)
			if !ok {
				r.unplayable(rep, append(indexes(back), queue...), "")
				return
			}
		}
		queue = append(indexes(back), queue...)
	}
}

// round plays queue against incarnation l, par at once. When l dies it
// starts nothing more and returns the attempts the death interrupted and
// the scenarios it did not start.
func (r *runner) round(ctx context.Context, l *life, rep *report.Report, queue []int, par int) (interrupted []*attempt, rest []int) {
	if par <= 0 || par > len(queue) {
		par = max(len(queue), 1)
	}
	sem := make(chan struct{}, par)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for k, i := range queue {
		select {
		case sem <- struct{}{}:
		case <-l.ctx.Done():
		}
		r.link.ready(l.ctx)
		if l.ctx.Err() != nil || r.outOfTime() != "" {
			rest = append(rest, queue[k:]...)
			break
		}
		l.played.Add(1)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			a := r.attempt(ctx, l, rep, i)
			if a.died != nil {
				mu.Lock()
				interrupted = append(interrupted, a)
				mu.Unlock()
				return
			}
			*rep.Scenarios[i] = *a.res
			if r.cfg.Progress != nil {
				r.progress.Lock()
				r.cfg.Progress(rep.Scenarios[i])
				r.progress.Unlock()
			}
		}(i)
	}
	wg.Wait()
	slices.SortFunc(interrupted, func(a, b *attempt) int { return cmp.Compare(a.i, b.i) })
	return interrupted, rest
}

// attempt plays scenario i once against incarnation l.
func (r *runner) attempt(ctx context.Context, l *life, rep *report.Report, i int) *attempt {
	res := *rep.Scenarios[i] // the scenario's identity; the verdict is this attempt's
	a := &attempt{i: i, res: &res}
	from := r.link.mark()
	p := r.play(ctx, l, r.cfg.Scenarios[i], a.res)
	if p != nil {
		a.sent, a.sends = p.sentLog(), p.sent
	}
	if d := l.died(); d != nil && ctx.Err() == nil {
		a.died = d
		return a
	}
	r.link.judge(a.res, from)
	return a
}

// interrupted completes a death's event with the scenarios it interrupted
// and what the closest of them sent last, and tells it.
func (r *runner) interrupted(ctx context.Context, d *death, as []*attempt) {
	if d == nil {
		return
	}
	r.settle(ctx, d)
	r.hunting.uptimes = append(r.hunting.uptimes, d.uptime)
	within := r.closeBy()
	ev := d.event
	r.life.mu.Lock()
	var closest *attempt
	for _, a := range as {
		ev.InFlight = append(ev.InFlight, a.res.ID)
		if a.lastBefore(d.at) > 0 && (closest == nil || a.lastBefore(d.at) > closest.lastBefore(d.at)) {
			closest = a
		}
	}
	if closest != nil {
		ev.Last = closest.res.ID + " " + closest.sentBefore(d.at)
	}
	if len(as) > 0 && !slices.ContainsFunc(as, func(a *attempt) bool { return a.closeTo(d, within) }) {
		ev.Blame = fmt.Sprintf("it follows no input of the scenarios in flight within %s: no scenario is blamed", within)
	}
	out := *ev
	r.life.mu.Unlock()
	r.life.tell(out)
}

// blame fails a scenario that killed the IUT when played alone on a fresh
// IUT, closely after one of its inputs, and keeps it as a reproducer.
func (r *runner) blame(rep *report.Report, a *attempt, fresh bool) {
	d := a.died
	res := a.res
	what := fmt.Sprintf("%s (%s)", d.event.Says(), d.event.Cause)
	if a.lastBefore(d.at) > 0 {
		what += "; this scenario " + a.sentBefore(d.at)
	}
	alone := "played alone on a fresh IUT"
	if !fresh {
		alone = "played alone"
	}
	res.Outcome, res.Message = report.Fail, alone+", it kills the IUT: "+what
	res.Killed = true
	if len(d.event.Stderr) > 0 {
		res.Notes = append(res.Notes, "the IUT's last stderr lines: "+joinLines(d.event.Stderr))
	}
	r.killers = append(r.killers, report.Killer{Scenario: res.ID, Event: d.event.Kind, Cause: d.event.Cause, Message: what})
	if path, err := r.reproducer(a); err != nil {
		res.Notes = append(res.Notes, "reproducer not written: "+err.Error())
	} else if path != "" {
		r.killers[len(r.killers)-1].Reproducer = path
	}
	*rep.Scenarios[a.i] = *res
	if r.cfg.Progress != nil {
		r.progress.Lock()
		r.cfg.Progress(rep.Scenarios[a.i])
		r.progress.Unlock()
	}
}

// unplayable marks scenarios the run could not play, for why ("": the
// IUT did not come back): error, never fail.
func (r *runner) unplayable(rep *report.Report, is []int, why string) {
	switch {
	case why != "":
		why = "not played: " + why
	case r.gaveUp != "":
		why = "not played: " + r.gaveUp
	default:
		why = "not played: the IUT did not come back"
	}
	for _, i := range is {
		res := rep.Scenarios[i]
		if res.Outcome != "" {
			continue
		}
		res.Outcome, res.Message, res.Unplayed = report.Error, why, true
		if r.cfg.Progress != nil {
			r.progress.Lock()
			r.cfg.Progress(res)
			r.progress.Unlock()
		}
	}
}

// revive brings the IUT back after a death: an IUT that reconnected on
// its own is awaited on the broker; a started one that exited, or did not
// come back within the greet timeout, is stopped (its whole process group)
// and started again, up to --max-restarts (a hunt's restarts count in the
// hunt's budget instead); an attached one is awaited for a new greet. It
// reports whether the run can go on.
func (r *runner) revive(ctx context.Context, rep *report.Report, hunting bool) bool {
	d := r.life.current().died()
	since := time.Since(r.start)
	if d != nil {
		since = d.at
	}
	done := r.await("the IUT to come back")
	defer done()
	if d != nil && r.settle(ctx, d).back {
		r.life.record(report.LifeBack, "")
		r.beginLife(ctx)
		return true
	}
	if ctx.Err() != nil {
		r.gaveUp = "the run was interrupted"
		return false
	}
	if r.proc == nil {
		if _, err := r.nextGreet(ctx, nil, since); err == nil {
			r.life.record(report.LifeBack, "greeted again")
			r.beginLife(ctx)
			return true
		}
		r.gaveUp = fmt.Sprintf("the attached IUT did not greet again within %s (--greet-timeout)", r.cfg.GreetTimeout)
		r.life.record(report.LifeGone, r.gaveUp)
		return false
	}
	if r.cfg.MaxRestarts == 0 || (!hunting && r.deathRestarts >= r.cfg.MaxRestarts) {
		r.gaveUp = fmt.Sprintf("the IUT died %d times; --max-restarts %d used up", r.deathRestarts+1, r.cfg.MaxRestarts)
		r.life.record(report.LifeGone, r.gaveUp)
		return false
	}
	why := fmt.Sprintf("for the hunt, replay %d of at most %d", r.hunting.replays+r.hunting.givenBack, maxHuntReplays)
	if !hunting {
		r.deathRestarts++
		why = fmt.Sprintf("restart %d of %d", r.deathRestarts, r.cfg.MaxRestarts)
	}
	return r.restart(ctx, why)
}

// restart stops the IUT's process (its whole process group) and starts it
// again, noting why; the incarnation it ends, if alive, is no death.
func (r *runner) restart(ctx context.Context, why string) bool {
	grace := stopGrace
	if l := r.life.current(); l != nil && l.died() == nil {
		l.cancel(nil)
	} else {
		// It died (deaf, disconnected): what it would do on SIGTERM (a
		// drain of its connection, say) can no longer finish, and a
		// second of waiting for it is a second a death.
		grace = stopDeadGrace
	}
	r.restarts++
	r.proc.Stop(grace)
	r.oldOutput = append(r.oldOutput, r.proc)
	r.awaitNoConns()
	proc, err := iut.Start(r.cfg.Command, r.iutEnv())
	if err != nil {
		r.gaveUp = "restart: " + err.Error()
		r.life.record(report.LifeGone, r.gaveUp)
		return false
	}
	r.procMu.Lock()
	r.proc = proc // read by the liveness watchers
	r.bornAt = time.Since(r.start)
	r.procMu.Unlock()
	if _, err := r.nextGreet(ctx, proc.Done(), time.Since(r.start)); err != nil {
		r.gaveUp = "after restart " + fmt.Sprint(r.restarts) + ": " + err.Error()
		r.life.record(report.LifeGone, r.gaveUp)
		return false
	}
	r.life.record(report.LifeRestarted, why)
	r.beginLife(ctx)
	return true
}

// awaitNoConns waits, a second at most, for the connections of a process
// the harness stopped to close, so that the next incarnation's watcher
// does not take their close for its own death.
func (r *runner) awaitNoConns() {
	if r.broker == nil {
		return
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		conns, err := r.iutConns()
		if err != nil || !slices.ContainsFunc(conns, broker.Conn.Open) {
			return
		}
		time.Sleep(connPoll)
	}
}

// backOnItsOwn waits, up to Config.BackTimeout, for an IUT whose
// connection closed to be back: connected to the embedded broker again, or
// greeting again (any broker).
// settle waits, once, for what a lost connection turns out to be: the
// IUT back on its own, or its process gone. A process that crashes closes
// its socket as it goes, and the broker may see that first: such a death
// is the exit, and is named so before anyone is told of it.
func (r *runner) settle(ctx context.Context, d *death) *death {
	if d.settled || d.event.Kind != report.LifeDisconnected {
		return d
	}
	d.settled = true
	d.back = r.backOnItsOwn(ctx, d.at)
	if !d.back && r.proc != nil && r.proc.Exited() && !r.proc.StoppedByHarness() {
		r.life.mu.Lock()
		d.event.Kind, d.event.Cause = report.LifeExited, r.proc.Status()
		r.life.mu.Unlock()
	}
	return d
}

func (r *runner) backOnItsOwn(ctx context.Context, since time.Duration) bool {
	if r.proc != nil && r.proc.Exited() {
		return false
	}
	var done <-chan struct{}
	if r.proc != nil {
		done = r.proc.Done()
	}
	t := time.NewTimer(r.cfg.BackTimeout)
	defer t.Stop()
	tick := time.NewTicker(connPoll)
	defer tick.Stop()
	for {
		select {
		case g := <-r.bus.greets:
			if g.at > since {
				return true
			}
		case <-tick.C:
			// Back means one of the connections the death watcher
			// follows (iutConns): a connection it does not count would
			// make the IUT back and dead again at once, in a loop that
			// no restart budget bounds.
			if r.broker != nil {
				if conns, _ := r.iutConns(); slices.ContainsFunc(conns, broker.Conn.Open) {
					return true
				}
			}
		case <-done:
			return false
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// nextGreet waits, up to the greet timeout, for a greet of the IUT that
// arrived after since (since the run started); done, when closed, ends the
// wait early.
func (r *runner) nextGreet(ctx context.Context, done <-chan struct{}, since time.Duration) (*message, error) {
	t := time.NewTimer(r.cfg.GreetTimeout)
	defer t.Stop()
	for {
		select {
		case g := <-r.bus.greets:
			if g.at <= since {
				continue // from before
			}
			return g, nil
		case <-done:
			return nil, fmt.Errorf("the IUT exited before greeting (%s)%s", r.proc.Status(), lastLine(r.proc.Stderr()))
		case <-t.C:
			return nil, fmt.Errorf("the IUT did not greet within %s (--greet-timeout)", r.cfg.GreetTimeout)
		case <-ctx.Done():
			return nil, interruption(ctx)
		}
	}
}

// beginLife starts watching a new incarnation.
func (r *runner) beginLife(ctx context.Context) *life {
	r.procMu.Lock()
	born := r.bornAt
	r.procMu.Unlock()
	if r.proc == nil {
		born = time.Since(r.start) // attached: its uptime counts from its greet
	}
	l := r.life.begin(ctx, born)
	if why, _ := r.bus.floodReason(); why != "" {
		l.cancel(errFlooded) // nothing of it would be heard
	}
	r.life.watchProcess(l)
	r.life.watchConnection(l)
	r.life.watchProbes(l)
	r.life.watchListening(l)
	r.life.probe()
	return l
}

// lastBefore is when the attempt last sent at or before at (0: never).
func (a *attempt) lastBefore(at time.Duration) time.Duration {
	for k := len(a.sent) - 1; k >= 0; k-- {
		if t := a.sent[k].At.D(); t <= at {
			return t
		}
	}
	return 0
}

// sentBefore says what the attempt sent last before at, and the send
// before that: the input that killed the IUT may be either, the IUT
// having read the first while the harness was already sending the next.
func (a *attempt) sentBefore(at time.Duration) string {
	var parts []string
	for k := len(a.sent) - 1; k >= 0 && len(parts) < 2; k-- {
		e := a.sent[k]
		if e.At.D() <= at {
			parts = append(parts, fmt.Sprintf("sent %s %s before", brief(e), rounded(report.Millis(at-e.At.D()))))
		}
	}
	return strings.Join(parts, ", and before that ")
}

func indexes(as []*attempt) []int {
	out := make([]int, len(as))
	for k, a := range as {
		out[k] = a.i
	}
	return out
}

func joinLines(ls []string) string {
	s := ""
	for k, l := range ls {
		if k > 0 {
			s += " | "
		}
		s += l
	}
	return s
}
