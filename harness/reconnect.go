package harness

import (
	"fmt"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
)

// A scenario's disconnect step drops the IUT's connection at the embedded
// broker, so that the scenario can watch what the NATS binding asks of a
// peer that reconnects (greet again). The broker closes the connection as
// it would on a restart, for the IUT alone: the harness's own connection
// stays up, so no outage is recorded, and the broker does not list the
// disconnect against the IUT. The scenario runs alone (Scenario.Alone):
// whatever the IUT loses while it is away belongs to no other scenario.

// noDisconnect is why a scenario that drops the IUT's connection cannot
// run on an external broker.
const noDisconnect = "the IUT's connection can be dropped only through the embedded broker; with --nats-url the harness cannot drop it"

// disconnect drops every connection subscribed to the IUT's peer subject,
// except the harness's own, and sets aside what arrived before: the steps
// after it judge only what comes after the drop.
func (p *player) disconnect() report.StepResult {
	var sr report.StepResult
	r := p.r
	if r.broker == nil {
		return sr.Judged(report.Error, noDisconnect)
	}
	self, err := r.nc.GetClientID()
	if err != nil {
		return sr.Judged(report.Error, fmt.Sprintf("disconnect: the harness's own connection: %v", err))
	}
	if err := r.nc.Flush(); err != nil { // what was sent before reaches the IUT before it is cut off
		return sr.Judged(report.Error, fmt.Sprintf("disconnect: flush: %v", err))
	}
	subject := agh.PeerSubject(r.ws, r.ch, r.iutID)
	// Until it subscribes again, nobody listening is the drop's doing,
	// not deafness (watchProbes).
	r.dropping.Store(true)
	defer r.dropping.Store(false)
	p.wait.setAside()
	n, err := r.broker.DropClients(subject, self)
	switch {
	case err != nil:
		return sr.Judged(report.Error, "disconnect: "+err.Error())
	case n == 0:
		return sr.Judged(report.Error, "disconnect: no connection at the broker is subscribed to the IUT's peer subject "+subject)
	}
	// The step ends once the IUT listens again (its client resubscribed),
	// so that what the scenario sends next reaches it: a greet it owes on
	// reconnecting is then judged against its answer to that, not against
	// a window (expect ... before).
	ceiling := time.NewTimer(r.cfg.GreetTimeout)
	defer ceiling.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		back, err := r.broker.Subscribed(subject, self)
		switch {
		case err != nil:
			return sr.Judged(report.Error, "disconnect: "+err.Error())
		case back:
			return sr.Judged(report.Pass, "")
		}
		select {
		case <-tick.C:
		case <-ceiling.C:
			return sr.Judged(report.Error, fmt.Sprintf("disconnect: the IUT did not subscribe to %s again within %s (--greet-timeout)", subject, r.cfg.GreetTimeout))
		}
	}
}

// setAside makes what the scenario received so far invisible to its later
// expect and silence steps.
func (w *waiter) setAside() {
	w.markSend()
	w.floor = w.mark
}
