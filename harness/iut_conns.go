package harness

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/report"
)

// connPoll is how often the embedded broker is asked which connections
// serve the IUT (an in-process call, no network).
const connPoll = 20 * time.Millisecond

// exitGrace is how long a closed connection waits for its process's exit
// to be seen, so that the death is named for what it is at once; an exit
// seen later still names it, before it is told (runner.settle).
const exitGrace = 250 * time.Millisecond

// iutConns lists the IUT's connections at the embedded broker: every
// connection made with the IUT's credentials but the harness's own,
// whatever name the client gave (a name is the client's to choose, and
// proves nothing). The IUT's credentials are those it was told (r.iutEP):
// on a confined broker a user of its own, which the harness's connection
// never uses, so the harness's user (r.ep) would name none of them and the
// IUT would look disconnected from the start.
func (r *runner) iutConns() ([]broker.Conn, error) {
	self, err := r.nc.GetClientID()
	if err != nil {
		return nil, fmt.Errorf("the harness's own connection: %w", err)
	}
	return r.broker.Conns(self, r.iutEP.User)
}

// watchConnection interrupts l when a broker connection of the IUT closes
// (embedded broker only), naming every connection that closed, even one
// that opened and closed between two looks and one whose place a new
// connection took at once: a client that reconnects at once is back, not
// unharmed. A connection the harness dropped on purpose (a disconnect
// step) is no death.
func (lv *liveness) watchConnection(l *life) {
	r := lv.r
	if r.broker == nil {
		return
	}
	conns, err := r.iutConns()
	if err != nil {
		return
	}
	// What closed before this incarnation is not its death.
	known := map[uint64]bool{}
	open := 0
	for _, c := range conns {
		if c.Open() {
			open++
		} else {
			known[c.CID] = true
		}
	}
	if open == 0 {
		// The IUT has just greeted: its connection is there, unless it
		// is already gone.
		lv.dieAt(l, report.LifeDisconnected, "it has no broker connection any more", time.Since(r.start))
		return
	}
	l.every(connPoll, func() bool {
		conns, err := r.iutConns()
		if err != nil {
			return false
		}
		var closed []broker.Conn
		for _, c := range conns {
			if c.Open() || known[c.CID] {
				continue
			}
			known[c.CID] = true
			if !c.ByHarness {
				closed = append(closed, c)
			}
		}
		if len(closed) == 0 {
			return true
		}
		lv.disconnected(l, closed)
		return false
	})
}

// disconnected ends l for the connections that closed: an exit when the
// process ends at once (a process that exits closes its connections
// first), else a disconnect naming each connection.
func (lv *liveness) disconnected(l *life, closed []broker.Conn) {
	r := lv.r
	// The broker knows when it closed: what was sent after that did not
	// kill it.
	at := time.Since(r.start)
	if c := closed[0].Closed; !c.IsZero() && c.After(r.start) {
		at = c.Sub(r.start)
	}
	if p := r.process(); p != nil {
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
	names := make([]string, len(closed))
	for k, c := range closed {
		names[k] = connLabel(c)
	}
	what := "broker connection closed"
	if len(closed) > 1 {
		what = fmt.Sprintf("%d broker connections closed", len(closed))
	}
	lv.dieAt(l, report.LifeDisconnected, what+": "+strings.Join(names, "; "), at)
}

// connLabel names a closed connection: the broker's reason, its id, and
// the name the client gave (quoted: it is the IUT's text).
func connLabel(c broker.Conn) string {
	s := cmp.Or(c.Reason, "closed") + fmt.Sprintf(" (connection %d", c.CID)
	if c.Name != "" {
		s += fmt.Sprintf(" named %q", c.Name)
	}
	if !c.Opened.IsZero() && !c.Closed.IsZero() {
		s += fmt.Sprintf(", open %s", c.Closed.Sub(c.Opened).Round(time.Millisecond))
	}
	return s + ")"
}
