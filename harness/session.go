package harness

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// A Session keeps one broker and one IUT up while its caller plays
// scenarios at it in batches of the caller's own making, as the fuzzer
// (package fuzz) does with the cases it generates as it goes. A batch is
// played exactly as a run plays its scenarios: in rounds against the
// IUT's incarnations (liveness, restarts, fair blame, killers and their
// reproducers), each scenario judged by the same player and passive judge.
// Nothing of the run is done a second way.
type Session struct {
	r      *runner
	rep    *report.Report // session-wide: the broker and the IUT
	ctx    context.Context
	stop   func()
	step   time.Duration // Config.StepTimeout
	closed bool
}

// Open starts the broker (unless t.External names one), starts the IUT
// (or attaches to it) and waits for its greet, as Run does; each Play then
// brings its scenarios. The session lives until Close, or until ctx ends.
func Open(ctx context.Context, t Target) (*Session, error) {
	cfg := config{Target: t}
	cfg.defaults()
	if _, err := cfg.level(); err != nil {
		return nil, &HarnessError{err}
	}
	r := &runner{cfg: cfg, start: time.Now(), ws: cfg.Workspace, ch: cfg.Channel, tag: randid.Hex(4), hunting: newHunting()}
	r.cfg.Scenarios = nil
	// A session lasts as long as its caller plays: no run-wide deadline
	// (each batch's hunt has its budget).
	r.cfg.Deadline = 0
	r.life = newLiveness(r)
	s := &Session{r: r, rep: r.newReport()}
	r.link = newLink(r.start, cfg.OutageTimeout)
	s.ctx, s.stop = r.link.guard(ctx)
	fail := func(err error) (*Session, error) {
		s.Close()
		return nil, &HarnessError{err}
	}
	// A session's caller tells its own progress: Config.Waiting hears
	// only the wait for the IUT to join.
	stopWaits := r.watchWaits(s.ctx)
	defer stopWaits()
	if err := r.connect(s.ctx, s.rep, false); err != nil {
		return fail(err)
	}
	if err := r.startIUT(s.rep); err != nil {
		return fail(err)
	}
	greet, err := r.awaitGreet(s.ctx)
	if err != nil {
		return fail(err)
	}
	if err := r.learnIUT(s.rep, greet); err != nil {
		return fail(err)
	}
	r.beginLife(s.ctx)
	s.step = r.cfg.StepTimeout
	return s, nil
}

// SetStepTimeout sets the ceiling of every expect step of the batches
// played from now on; 0 restores Config.StepTimeout. A caller that knows
// how fast the IUT answers may wait less for what will not come, and
// confirm with the full ceiling what rests on a shorter one.
func (s *Session) SetStepTimeout(d time.Duration) {
	if d <= 0 {
		d = s.step
	}
	s.r.cfg.StepTimeout = d
}

// IUT is what the session learned of the IUT: its peer id and card.
func (s *Session) IUT() report.IUTInfo { return s.rep.IUT }

// MaxPayload is the largest payload the session's broker carries.
func (s *Session) MaxPayload() int64 { return s.r.nc.MaxPayload() }

// Since is how long ago the session started (the origin of every Millis it
// reports).
func (s *Session) Since() time.Duration { return time.Since(s.r.start) }

// PlayOptions set how one batch is played.
type PlayOptions struct {
	Parallel int // scenarios at once (0: all)
	// ReproDir, when set, receives a reproducer for each scenario of the
	// batch that kills the IUT when played alone (see Config.ReproDir).
	ReproDir string
	// Deadline, when set, is when the caller's run must be over: the
	// batch starts no scenario, and its hunt no replay, after it; what
	// that leaves unplayed is an error (ScenarioResult.Unplayed) saying
	// Due ("the run's time ran out" when empty).
	Deadline time.Time
	Due      string
}

// Play plays scenarios at the IUT, par at once, and judges them as a run
// does. An error means the session cannot go on (it was interrupted, the
// broker stayed away, or the IUT did not come back): the batch still says
// what was judged, and the rest of it is error.
func (s *Session) Play(scs []*scenario.Scenario, opt PlayOptions) (*report.Batch, error) {
	r := s.r
	switch {
	case s.closed:
		return nil, &HarnessError{errors.New("the session is closed")}
	case r.gaveUp != "":
		return nil, &HarnessError{errors.New(r.gaveUp)}
	}
	r.cfg.Scenarios, r.cfg.Parallel, r.cfg.ReproDir = scs, opt.Parallel, opt.ReproDir
	r.cfg.Deadline, r.due = 0, ""
	if !opt.Deadline.IsZero() {
		r.cfg.Deadline = max(opt.Deadline.Sub(r.start), time.Nanosecond)
		r.due = cmp.Or(opt.Due, "the run's time ran out")
	}
	if l := r.life.current(); l != nil && errors.Is(context.Cause(l.ctx), errFlooded) {
		// The last batch's flood stopped the IUT's incarnation (not a
		// death): this batch has a budget of its own.
		r.beginLife(s.ctx)
	}
	rep := r.newReport()
	rep.IUT = s.rep.IUT // what the gates look at: its card
	todo := make([]int, len(scs))
	for i := range todo {
		todo[i] = i
	}
	events, killers := len(r.life.snapshot()), len(r.killers)
	r.playAll(s.ctx, rep, r.gateAll(rep, todo))
	b := &report.Batch{Results: rep.Scenarios, Events: r.life.snapshot()[events:], Killers: append([]report.Killer(nil), r.killers[killers:]...)}
	b.Published, b.Flood = s.drain(rep)
	b.Flooded = b.Flood != ""
	if err := s.ctx.Err(); err != nil {
		r.unplayable(rep, todo, "")
		return b, &HarnessError{interruption(s.ctx)}
	}
	if r.gaveUp != "" {
		return b, &HarnessError{errors.New(r.gaveUp)}
	}
	return b, nil
}

// drain takes what the passive judge holds since the last batch: the
// envelopes with findings, each placed with the scenario of rep it was
// for, and how the flood budget was passed ("" when it was not). The
// session keeps nothing of what it hands out, so a long session holds the
// memory of one batch.
func (s *Session) drain(rep *report.Report) ([]report.Published, string) {
	b := s.r.bus
	b.mu.Lock()
	msgs, why := b.passive, ""
	if b.flooded {
		why = floodExample(b)
	}
	b.passive, b.flooded, b.iutCount, b.iutBytes, b.floodWhy = nil, false, 0, 0, ""
	b.mu.Unlock()
	byID, byToken := map[string]int{}, map[string]int{}
	for i, res := range rep.Scenarios {
		for _, id := range res.Peers {
			byID[id], byToken[agh.RouteToken(id)] = i, i
		}
	}
	var out []report.Published
	for _, m := range msgs {
		if len(m.findings) == 0 {
			continue
		}
		i, ok := byID[m.to()]
		if !ok {
			if i, ok = byToken[m.token]; !ok || m.token == "" {
				i = -1
			}
		}
		out = append(out, report.Published{Scenario: i, At: report.Millis(m.at), Subject: m.subject, Size: m.size, Kept: m.kept, Findings: m.findings})
	}
	return out, why
}

// Close stops the IUT and the broker and returns the session's report:
// the broker, and the IUT with its liveness events, restarts, killers and
// output. Scenarios and verdicts are the batches'.
func (s *Session) Close() *report.Report {
	if s.closed {
		return s.rep
	}
	s.closed = true
	r := s.r
	if l := r.life.current(); l != nil {
		l.cancel(nil)
	}
	if s.stop != nil {
		s.stop()
	}
	for _, d := range r.brokerClosed() {
		s.rep.IUT.Disconnects = append(s.rep.IUT.Disconnects, d.Reason)
	}
	r.close(s.rep)
	s.rep.IUT.Events, s.rep.IUT.Restarts, s.rep.IUT.Killers = r.life.snapshot(), r.restarts, r.killers
	for _, ev := range s.rep.IUT.Events {
		s.rep.IUT.Crashed = s.rep.IUT.Crashed || ev.Death()
	}
	s.rep.Duration = report.Millis(time.Since(r.start))
	return s.rep
}
