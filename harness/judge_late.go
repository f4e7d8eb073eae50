package harness

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
)

// Everything the IUT sends about a scenario's ids and work is judged until
// the run ends, not only until the scenario ends: a scenario's test peers
// stay routed to its inbox, and once every scenario has been played (and
// what the IUT had published has arrived) each is judged again on what
// came after it ended. A silence broken late fails; so do two answers that
// contradict each other (an acceptance and a refusal of one message, in
// either order), whenever the second arrives. Nothing here waits: a run
// ends when its scenarios do.

// finished are the judged players of a run, kept for judgeLate.
type finished struct {
	mu      sync.Mutex
	players []*player
}

func (f *finished) add(p *player) {
	f.mu.Lock()
	f.players = append(f.players, p)
	f.mu.Unlock()
}

// judgeLate judges every finished scenario again on what arrived since it
// ended, then stops routing to it. A scenario's verdict was copied into the
// report when its attempt ended: the late verdict goes there.
func (r *runner) judgeLate(rep *report.Report) {
	r.finished.mu.Lock()
	players := r.finished.players
	r.finished.players = nil
	r.finished.mu.Unlock()
	byID := make(map[string]*report.ScenarioResult, len(rep.Scenarios))
	for _, sc := range rep.Scenarios {
		byID[sc.ID] = sc
	}
	for _, p := range players {
		if res := byID[p.res.ID]; res != nil && res.Outcome == p.res.Outcome && res.Message == p.res.Message {
			p.res = res // the attempt whose verdict the report holds
			p.late()
		}
		r.bus.unregister(p.in, p.peers)
	}
}

// late judges p again: silences against what arrived after it ended, and
// answers that contradict each other.
func (p *player) late() {
	res := p.res
	w := p.wait
	w.in.mu.Lock()
	w.watchLocked()
	w.in.mu.Unlock()
	for _, s := range w.watches {
		m := s.breach
		if m == nil || m.seq <= p.cutSeq {
			continue // settled when the scenario ended
		}
		i := slices.IndexFunc(res.Steps, func(sr report.StepResult) bool { return sr.Index-1 == s.step })
		if i < 0 {
			continue // never reached
		}
		sr := &res.Steps[i]
		if sr.Outcome != report.Pass && !(sr.Outcome == report.Skip && sr.Message == unheard) {
			continue
		}
		if sr.Message == unheard {
			res.Notes = slices.DeleteFunc(res.Notes, func(n string) bool { return n == fmt.Sprintf("step %d (silence): %s", sr.Index, unheard) })
		}
		sr.Arrived = []string{m.describe()}
		*sr = sr.Judged(report.Fail, fmt.Sprintf("expected silence, but the IUT sent %s %s after the scenario ended", m.label(), rounded(report.Millis(m.at-p.endedAt))))
		p.grade(sr)
	}
	p.answers()
	// What arrived late for the scenario's peers joins its transcript and
	// its passive verdict.
	var lateMsgs []*message
	var errs, warns, ownErrs, ownWarns []string
	for _, m := range p.received() {
		if m.seq > p.cutSeq && p.peers.addressed(m) {
			lateMsgs = append(lateMsgs, m)
			p.log.received(m)
			e, w, oe, ow := p.charge(m)
			errs, warns = append(errs, e...), append(warns, w...)
			ownErrs, ownWarns = append(ownErrs, oe...), append(ownWarns, ow...)
		}
	}
	p.fold(errs, warns, false)
	p.fold(ownErrs, ownWarns, true)
	if len(lateMsgs) > 0 {
		res.Exchanged = p.log.ordered()
	}
}

// contradiction finds two answers of the IUT to one message of the
// scenario that cannot both hold: an acceptance (an accepted receipt, or a
// trace of the work the message opened) and a refusal receipt. It names
// the later one.
func (p *player) contradiction() (string, *message) {
	w := p.wait
	type answers struct{ accepted, refused *message }
	// Only a message sent once: a retry may be taken once and answered
	// duplicate after.
	byID := map[string]*answers{}
	for _, s := range w.sends {
		if len(s.ids) > 0 && w.sentOnce(s.ids[0]) {
			byID[s.ids[0]] = &answers{}
		}
	}
	later := func(a, b *message) *message {
		if a.seq > b.seq {
			return a
		}
		return b
	}
	for _, m := range p.received() {
		if m.env == nil {
			continue
		}
		body, _ := m.env["body"].(map[string]any)
		switch m.kind() {
		case "receipt":
			forID, _ := body["for_id"].(string)
			a := byID[forID]
			st, _ := body["status"].(string)
			if a == nil {
				continue
			}
			switch {
			case st == "accepted" && a.accepted == nil:
				a.accepted = m
			case slices.Contains(refusalStatuses, st) && a.refused == nil:
				a.refused = m
			}
		case "trace":
			// A trace of work one message alone carried takes that message.
			work, _ := m.env["work_id"].(string)
			if a := byID[w.carrier(work)]; work != "" && a != nil && a.accepted == nil {
				a.accepted = m
			}
		}
	}
	for _, s := range w.sends {
		if len(s.ids) == 0 {
			continue
		}
		if a := byID[s.ids[0]]; a != nil && a.accepted != nil && a.refused != nil {
			m := later(a.accepted, a.refused)
			return fmt.Sprintf("the IUT both took and refused %s: %s and %s", s.ids[0], a.accepted.label(), a.refused.label()), m
		}
	}
	return "", nil
}

// endLocked records when a scenario ended, with the inbox locked: its
// last message then is the cut, and what arrives later is late. Once.
func (p *player) endLocked() {
	if p.cut {
		return
	}
	p.cut, p.endedAt = true, time.Since(p.r.start)
	if n := len(p.in.msgs); n > 0 {
		p.cutSeq = p.in.msgs[n-1].seq
	}
}

// lastWord asks the IUT, once every scenario has been played, a directed
// whois and waits for its answer: a peer processes what it receives in
// order, so what it sent in answer to anything before the question has
// been published by the time its answer comes, and the run judges it. The
// wait is bounded (three times the slowest reply of the run, at least a
// second, at most --step-timeout): a peer that leaves a directed whois
// unanswered (a SHOULD) only loses what it sends later, unjudged, as it
// would at any end.
func (r *runner) lastWord(rep *report.Report) {
	if why, _ := r.bus.floodReason(); r.iutID == "" || why != "" {
		return // after a flood, its answer would not be heard
	}
	id := "aghcheck-last." + r.tag
	peers := newPeerSet()
	peers.add(id)
	in := newInbox()
	r.bus.register(in, peers)
	defer r.bus.unregister(in, peers)
	msgID := randid.UUID()
	env := map[string]any{
		"protocol": agh.Protocol, "id": msgID, "workspace_id": r.ws, "channel": r.ch,
		"kind": "whois", "from": id, "to": r.iutID, "ts": r.now().Unix(), "proof": nil,
		"body": map[string]any{"type": "request", "query": r.iutID},
	}
	if r.publishHarness(agh.PeerSubject(r.ws, r.ch, r.iutID), env) != nil {
		return
	}
	bound := time.Second
	if l := runLatency(rep.Scenarios); l != nil {
		bound = max(bound, 3*l.Max.D())
	}
	bound = min(bound, r.cfg.StepTimeout)
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		in.mu.Lock()
		answered := slices.ContainsFunc(in.msgs, func(m *message) bool { return m.env != nil && m.env["reply_to"] == msgID })
		in.mu.Unlock()
		if answered {
			break
		}
		select {
		case <-in.notify:
		case <-deadline.C:
			return
		}
	}
	// A peer that works apart from what it receives (work in a goroutine of
	// its own) may still be reporting: the run ends once the IUT has been
	// quiet for a moment (twice its median reply, at least 50 ms), within
	// the same bound.
	quiet := 50 * time.Millisecond
	if l := runLatency(rep.Scenarios); l != nil {
		quiet = max(quiet, 2*l.Median.D())
	}
	tick := time.NewTicker(quiet / 2)
	defer tick.Stop()
	for time.Since(r.start)-r.bus.lastHeard() < quiet {
		select {
		case <-tick.C:
		case <-deadline.C:
			return
		}
	}
}

// drain returns once everything the broker delivered before now has been
// through the bus, so the IUT is judged as a sender on all of it (a fixed
// pause would leave what arrives after it unjudged, and wait for nothing
// otherwise). The flush is a round trip: the broker writes to a connection
// in order, so every message it routed to the harness before the PONG is
// then queued at its subscription. Barrier runs its function once each
// async subscription has handled what was queued before it (nats.go
// delivers a subscription's messages one at a time, in order): then
// bus.receive has returned for all of them. Bounded, in case a callback is
// stuck or the connection went down in between.
func (r *runner) drain() {
	_ = r.nc.Flush()
	handled := make(chan struct{})
	if r.nc.Barrier(func() { close(handled) }) == nil {
		select {
		case <-handled:
		case <-time.After(5 * time.Second):
		}
	}
}
