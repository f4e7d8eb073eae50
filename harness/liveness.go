package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
)

// Liveness follows whether the IUT is alive, from every source the run has:
//   - its process (an --iut command) exiting, with any status, 0 included;
//   - its broker connections (the embedded broker names every connection
//     made with the IUT's credentials, whatever name the client gives; each
//     one that closes is a disconnect, named as it happens, even when a new
//     one took its place at once: see iut_conns.go);
//   - its deafness: nothing addressed to it answered, and a probe left
//     unanswered, for longer than its answers so far allow (deafness.go).
//
// Each incarnation of the IUT (the first, and each after a restart or a
// reconnect) has a context that its death cancels: the scenarios in flight
// stop at once and are not judged on the interrupted attempt (see rounds).

// death ends one incarnation of the IUT.
type death struct {
	event *report.LifeEvent
	// The IUT died between after and at (since the run started): for an
	// exit or a disconnect both are when it happened; a deaf IUT was last
	// heard answering at after and was deaf when a probe went unanswered
	// at at. What it received in that span, or just before, may have
	// killed it.
	after, at time.Duration
	// uptime is how long the incarnation had lived at at.
	uptime uptime
	// settled: a lost connection was waited on (runner.settle); back: the
	// IUT came back on its own.
	settled, back bool
	// prompt: a deafness the broker showed at once (the IUT's subscription
	// to its peer subject gone), not one a window without answers told.
	prompt bool
}

// uptime is how long an incarnation had lived, counted two ways: since its
// process started (for an attached IUT, since it greeted) and since the
// greet that began it. A peer's timer may run from either, and a loaded
// machine starts processes at uneven speeds.
type uptime struct{ proc, greeted time.Duration }

func (u uptime) String() string { return rounded(report.Millis(u.proc)).String() }

func (d *death) Error() string { return d.event.Kind + ": " + d.event.Cause }

// life is one incarnation of the IUT.
type life struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	born   time.Duration // when its process started (since the run started)
	began  time.Duration // when it greeted and the run took it on
	played atomic.Int32  // scenarios started on it: it is fresh while 0
}

// every calls check every d, from a goroutine of its own, while l lives
// and check says to go on: how each watcher of an incarnation polls.
func (l *life) every(d time.Duration, check func() (more bool)) {
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-l.ctx.Done():
				return
			case <-t.C:
			}
			if !check() {
				return
			}
		}
	}()
}

// died is the death that ended l (nil while it lives).
func (l *life) died() *death {
	var d *death
	if errors.As(context.Cause(l.ctx), &d) {
		return d
	}
	return nil
}

// fresh reports whether nothing was played on l yet.
func (l *life) fresh() bool { return l.played.Load() == 0 }

// tailLines is how many of the IUT's last output lines an event keeps.
const tailLines = 8

type liveness struct {
	r *runner

	mu     sync.Mutex
	cur    *life
	events []*report.LifeEvent
	iut    string // the IUT's peer id, once known

	// Deafness (deafness.go).
	probeID       string // the identity probes come from
	probeMsg      string // the id of the probe outstanding ("" when none)
	probes        int
	asked         map[string]time.Duration // directed input id or work_id → sent, until its first answer
	askOrder      []string
	answeredProbe bool          // the IUT has answered a probe: deafness can be told
	lifeAnswered  bool          // its current incarnation has answered something
	probedAt      time.Duration // the probe outstanding (0: none)
	lastAnswer    time.Duration // the IUT's latest answer to a directed input
	slowest       time.Duration // its slowest reply so far
	// brokerAsked is the probe the broker was asked about: whether the
	// IUT still subscribes to its peer subject.
	brokerAsked string
	// wasDeaf: a window without answers showed the IUT deaf in this run
	// (deafAgain).
	wasDeaf bool
}

func newLiveness(r *runner) *liveness {
	return &liveness{r: r, probeID: "aghcheck-probe." + r.tag, asked: map[string]time.Duration{}}
}

// begin starts a new incarnation under the run's context; born is when
// its process started (since the run started).
func (lv *liveness) begin(ctx context.Context, born time.Duration) *life {
	c, cancel := context.WithCancelCause(ctx)
	now := time.Since(lv.r.start)
	l := &life{ctx: c, cancel: cancel, born: born, began: now}
	lv.mu.Lock()
	lv.cur = l
	lv.iut = lv.r.iutID
	// The new incarnation has answered nothing yet: it is given a whole
	// window from now, and what the last one was asked is forgotten.
	lv.lastAnswer, lv.probedAt, lv.probeMsg, lv.lifeAnswered = now, 0, "", false
	clear(lv.asked)
	lv.askOrder = lv.askOrder[:0]
	lv.mu.Unlock()
	return l
}

func (lv *liveness) current() *life {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	return lv.cur
}

// die records the death of incarnation l (once), now, and interrupts it.
func (lv *liveness) die(l *life, kind, cause string) {
	now := time.Since(lv.r.start)
	lv.dieSpan(l, kind, cause, now, now)
}

// dieAt is die for a death that happened at (since the run started).
func (lv *liveness) dieAt(l *life, kind, cause string, at time.Duration) {
	lv.dieSpan(l, kind, cause, at, at)
}

// dieSpan is die for a death that happened between after and at.
func (lv *liveness) dieSpan(l *life, kind, cause string, after, at time.Duration) {
	lv.end(l, &death{event: &report.LifeEvent{Kind: kind, Cause: cause}, after: min(after, at), at: at})
}

// end records death d of incarnation l (once; d.event gives its kind and
// cause) and interrupts it.
func (lv *liveness) end(l *life, d *death) {
	if l == nil || l.died() != nil || l.ctx.Err() != nil {
		return
	}
	ev := lv.record(d.event.Kind, d.event.Cause)
	lv.mu.Lock()
	ev.At = report.Millis(d.at)
	lv.mu.Unlock()
	d.event, d.uptime = ev, uptime{proc: d.at - l.born, greeted: d.at - l.began}
	l.cancel(d)
}

// record adds an event, with the IUT's latest output, and tells
// Config.Life at once.
func (lv *liveness) record(kind, cause string) *report.LifeEvent {
	ev := report.LifeEvent{At: report.Millis(time.Since(lv.r.start)), Kind: kind, Cause: cause}
	if p := lv.r.process(); p != nil {
		ev.Stdout, ev.Stderr = lastLines(p.Stdout(), tailLines), lastLines(p.Stderr(), tailLines)
		ev.Said = errorLine(p.Stderr())
	}
	ptr := &ev
	lv.mu.Lock()
	lv.events = append(lv.events, ptr)
	lv.mu.Unlock()
	if !ptr.Death() {
		lv.tell(*ptr)
	}
	return ptr
}

// tell passes an event to Config.Life; deaths are told once the
// scenarios they interrupted are known (see rounds).
func (lv *liveness) tell(ev report.LifeEvent) {
	if lv.r.cfg.Life != nil {
		lv.r.progress.Lock()
		lv.r.cfg.Life(ev)
		lv.r.progress.Unlock()
	}
}

// snapshot is the events so far.
func (lv *liveness) snapshot() []report.LifeEvent {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	out := make([]report.LifeEvent, len(lv.events))
	for k, ev := range lv.events {
		out[k] = *ev
	}
	return out
}

// watchProcess interrupts l when the IUT's process exits.
func (lv *liveness) watchProcess(l *life) {
	p := lv.r.process()
	if p == nil {
		return
	}
	go func() {
		select {
		case <-p.Done():
			if !p.StoppedByHarness() {
				lv.die(l, report.LifeExited, p.Status())
			}
		case <-l.ctx.Done():
		}
	}()
}

// errorLine is the last line of s, not indented, that names a panic, an
// error or an exception ("" when none).
func errorLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		l := lines[k]
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		low := strings.ToLower(l)
		if strings.Contains(low, "panic") || strings.Contains(low, "error") || strings.Contains(low, "exception") || strings.Contains(low, "fatal") {
			return l
		}
	}
	return ""
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// liveReport puts the IUT's liveness into the report: its events,
// restarts and killers, the run's latency, and whether the run is
// incomplete. A death is charged once, where it has a cause: the
// scenario that reproducibly kills the IUT fails (a receiver's duty to
// survive what it receives). A death no scenario causes charges nothing:
// it is listed with what it followed, and the scenarios it interrupted are
// played again or are error. It is never a finding on what the IUT sent.
func (r *runner) liveReport(rep *report.Report) {
	rep.IUT.Events = r.life.snapshot()
	rep.IUT.Restarts = r.restarts
	rep.IUT.Killers = r.killers
	rep.IUT.Crashed = slices.ContainsFunc(rep.IUT.Events, report.LifeEvent.Death)
}
