package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
)

// Liveness follows whether the IUT is alive, from every source the run has:
//   - its process (an --iut command) exiting, with any status, 0 included;
//   - its broker connection closing (the embedded broker lists the IUT's
//     client connections, every one but the harness's; one that closes is
//     a disconnect, even when a new one took its place at once);
//   - its deafness or absence: a directed whois probe, sent while nothing
//     else is heard from it, that it leaves unanswered for a whole wait
//     ceiling, when it did answer one before.
//
// Each incarnation of the IUT (the first, and each after a restart or a
// reconnect) has a context that its death cancels: the scenarios in flight
// stop at once and are not judged on the interrupted attempt (see rounds).

// death ends one incarnation of the IUT.
type death struct {
	event *report.LifeEvent
	at    time.Duration // since the run started
}

func (d *death) Error() string { return d.event.Kind + ": " + d.event.Cause }

// life is one incarnation of the IUT.
type life struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// died is the death that ended l (nil while it lives).
func (l *life) died() *death {
	var d *death
	if errors.As(context.Cause(l.ctx), &d) {
		return d
	}
	return nil
}

// tailLines is how many of the IUT's last output lines an event keeps.
const tailLines = 8

// probeQuiet is how long the IUT may be quiet, while scenarios wait on
// it, before a probe asks whether it still listens. A probe is a question,
// never a verdict: only the wait ceiling makes an unanswered one deafness.
const probeQuiet = time.Second

type liveness struct {
	r *runner

	mu        sync.Mutex
	cur       *life
	events    []*report.LifeEvent
	probeID   string
	answered  bool          // the IUT has answered a probe: deafness can be told
	probedAt  time.Duration // the latest probe not yet answered (0: none)
	lastHeard time.Duration
}

func newLiveness(r *runner) *liveness {
	return &liveness{r: r, probeID: "aghcheck-probe." + r.tag}
}

// begin starts a new incarnation under the run's context.
func (lv *liveness) begin(ctx context.Context) *life {
	c, cancel := context.WithCancelCause(ctx)
	l := &life{ctx: c, cancel: cancel}
	lv.mu.Lock()
	lv.cur = l
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
	lv.dieAt(l, kind, cause, time.Since(lv.r.start))
}

// dieAt is die for a death that happened at (since the run started).
func (lv *liveness) dieAt(l *life, kind, cause string, at time.Duration) {
	if l == nil || l.died() != nil || l.ctx.Err() != nil {
		return
	}
	ev := lv.record(kind, cause)
	lv.mu.Lock()
	ev.At = report.Millis(at)
	lv.mu.Unlock()
	l.cancel(&death{event: ev, at: at})
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

// heard notes a message from the IUT: it is alive and listening.
func (lv *liveness) heard(m *message) {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	lv.lastHeard = m.at
	if m.kind() == "whois" && m.to() == lv.probeID {
		lv.answered, lv.probedAt = true, 0
	}
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

// connPoll is how often the embedded broker is asked which connections
// serve the IUT (an in-process call, no network).
const connPoll = 20 * time.Millisecond

// watchConnection interrupts l when a broker connection of the IUT closes
// (embedded broker only). A connection the harness dropped on purpose (a
// disconnect step) is no death.
func (lv *liveness) watchConnection(l *life) {
	r := lv.r
	if r.broker == nil {
		return
	}
	self, err := r.nc.GetClientID()
	if err != nil {
		return
	}
	// The IUT has just greeted: its connection is there, unless it is
	// already gone.
	seen, err := r.broker.Clients(self)
	if err != nil {
		return
	}
	if len(seen) == 0 {
		lv.dieAt(l, report.LifeDisconnected, "it has no broker connection any more", time.Since(r.start))
		return
	}
	go func() {
		t := time.NewTicker(connPoll)
		defer t.Stop()
		pending := 0
		for {
			select {
			case <-l.ctx.Done():
				return
			case <-t.C:
			}
			cids, err := r.broker.Clients(self)
			if err != nil {
				return
			}
			// A connection of the IUT that closed is a disconnect even
			// when a new one already took its place: a client that
			// reconnects at once is back, not unharmed.
			lost, c, ok := uint64(0), broker.Closure{}, false
			for _, cid := range seen {
				if slices.Contains(cids, cid) {
					continue
				}
				if c, ok = r.broker.Closed(cid); !c.ByHarness {
					lost = cid
					break
				}
			}
			if lost == 0 {
				seen, pending = cids, 0
				continue
			}
			if !ok && pending < closedPolls {
				pending++ // gone from the open list, not yet on the closed one
				continue
			}
			// The broker knows when it closed: what was sent after that
			// did not kill it.
			at := time.Since(r.start)
			if !c.At.IsZero() && c.At.After(r.start) {
				at = c.At.Sub(r.start)
			}
			if p := r.process(); p != nil {
				// A process that exits closes its connection first: name
				// the exit when it follows at once.
				select {
				case <-p.Done():
					if !p.StoppedByHarness() {
						lv.dieAt(l, report.LifeExited, p.Status(), at)
						return
					}
				case <-time.After(exitGrace):
				case <-l.ctx.Done():
					return
				}
			}
			lv.dieAt(l, report.LifeDisconnected, "broker connection closed: "+cmp.Or(c.Reason, "closed"), at)
			return
		}
	}()
}

// closedPolls is how many polls a connection may be missing from both the
// broker's open and closed lists before it counts as closed anyway.
const closedPolls = 10

// exitGrace is how long a closed connection waits for its process's exit
// to be seen, so that the death is named for what it is.
const exitGrace = 250 * time.Millisecond

// watchProbes asks the IUT, while it has been quiet for probeQuiet, whether
// it still listens: a directed whois from the harness's probe identity.
func (lv *liveness) watchProbes(l *life) {
	go func() {
		t := time.NewTicker(probeQuiet)
		defer t.Stop()
		for {
			select {
			case <-l.ctx.Done():
				return
			case <-t.C:
			}
			now := time.Since(lv.r.start)
			lv.mu.Lock()
			quiet := now-lv.lastHeard >= probeQuiet && lv.probedAt == 0
			lv.mu.Unlock()
			if quiet {
				lv.probe()
			}
		}
	}()
}

// probe sends one whois probe.
func (lv *liveness) probe() {
	r := lv.r
	env := map[string]any{
		"protocol": agh.Protocol, "id": "msg_probe_" + r.tag + "_" + fmt.Sprint(time.Now().UnixNano()), "workspace_id": r.ws, "channel": r.ch,
		"kind": "whois", "from": lv.probeID, "to": r.iutID, "ts": r.now().Unix(), "proof": nil,
		"body": map[string]any{"type": "request", "query": r.iutID},
	}
	lv.mu.Lock()
	lv.probedAt = time.Since(r.start)
	lv.mu.Unlock()
	_ = r.publishHarness(agh.PeerSubject(r.ws, r.ch, r.iutID), env)
}

// deaf is asked by a wait that reached its ceiling with nothing matching:
// is the IUT deaf? It is when it answers probes, has said nothing since
// a probe was sent, and leaves that probe unanswered for a whole ceiling
// (--step-timeout). While the question is open (a probe unanswered for
// less) the caller waits for the answer, at most one more ceiling; an IUT
// that does not answer probes at all is never called deaf.
func (lv *liveness) deaf(ctx context.Context) (bool, string) {
	ceiling := lv.r.cfg.StepTimeout
	t := time.NewTicker(connPoll)
	defer t.Stop()
	for {
		lv.mu.Lock()
		answered, heard, probed := lv.answered, lv.lastHeard, lv.probedAt
		lv.mu.Unlock()
		now := time.Since(lv.r.start)
		switch {
		case !answered:
			return false, ""
		case probed == 0 || heard > probed:
			if now-heard < probeQuiet {
				return false, "" // it spoke just now: alive
			}
			lv.probe()
		case now-probed >= ceiling:
			return true, fmt.Sprintf("a whois probe sent at %s is unanswered after %s (--step-timeout), and nothing was heard from it since %s; it answered probes before",
				rounded(report.Millis(probed)), ceiling, rounded(report.Millis(heard)))
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return false, ""
		}
	}
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
// restarts and killers, the survival finding for its deaths, the run's
// latency, and whether the run is incomplete.
func (r *runner) liveReport(rep *report.Report) {
	rep.IUT.Events = r.life.snapshot()
	rep.IUT.Restarts = r.restarts
	rep.IUT.Killers = r.killers
	deaths := 0
	example := ""
	for _, ev := range rep.IUT.Events {
		if ev.Death() {
			deaths++
			if example == "" {
				example = ev.String()
			}
		}
	}
	rep.IUT.Crashed = deaths > 0
	if deaths == 0 {
		return
	}
	rule := requirements.PeerSurvives
	p := &rep.Passive
	p.Findings = append(p.Findings, report.PassiveFinding{Rule: rule.ID, Level: rule.Severity.Level(), Count: deaths, RunWide: true, Example: example})
	p.Outcome = worse(p.Outcome, report.Fail)
}
