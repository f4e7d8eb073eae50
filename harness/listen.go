package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
)

// Listening. A peer that greets but subscribes to no subject its directed
// envelopes are published on (a route token derived wrongly, a subject
// spelled another way) hears nothing addressed to it: every scenario that
// sends it directed traffic would wait out its ceilings and fail for that
// one defect. The broker can tell at once whether anybody listens on the
// IUT's peer subject:
//   - the embedded broker lists the subscriptions of every connection but
//     the harness's (an in-process call, no message);
//   - any other broker answers a message published there with a reply
//     subject itself, with "no responders", when nobody but the harness
//     (which does not hear what it publishes) subscribes to it, and does
//     so before it answers the harness's ping (Flush): no ceiling decides
//     it. The message is a directed whois, which a peer that does listen
//     answers as any other.
//
// A peer may subscribe just after it greets: nobody listens only when,
// listenGrace after the greet, still nobody does. Then the run names the
// defect once, NATS-PEER-SUBJECT, on the scenarios that check it, and
// every other scenario that would send the IUT directed traffic is not
// played (an error, never a failure): it could not be.

// listenGrace is how long after its greet the IUT has to subscribe to its
// own peer subject: a greet announces a peer that can be reached.
const listenGrace = time.Second

// listenPoll is how often the broker is asked meanwhile.
const listenPoll = 50 * time.Millisecond

// unreachable is the error of a send to the IUT's peer subject when
// nobody listens there: the scenario cannot be played.
type unreachable struct{ why string }

func (u *unreachable) Error() string { return u.why }

// checkListening asks the broker whether anybody listens on the IUT's
// peer subject, up to listenGrace after its greet (greetAt, since the run
// started), and notes why nobody does (r.unheard) when so. A broker that
// cannot say (an error, a server without headers) counts as listening: the
// scenarios then judge as before.
func (r *runner) checkListening(ctx context.Context, greetAt time.Duration) {
	subject := agh.PeerSubject(r.ws, r.ch, r.iutID)
	deadline := r.start.Add(greetAt + listenGrace)
	tick := time.NewTicker(listenPoll)
	defer tick.Stop()
	for {
		if l := r.life.current(); l == nil || l.ctx.Err() != nil {
			return // dead, not deaf: the liveness watchers name it
		}
		heard, evidence := r.listened(subject)
		if heard {
			return
		}
		if !time.Now().Before(deadline) {
			r.unheard = fmt.Sprintf("nobody subscribes to the IUT's peer subject %s (route token %s of its peer id %q) %s after its greet: %s",
				subject, agh.RouteToken(r.iutID), r.iutID, listenGrace, evidence)
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// listened reports whether anybody but the harness subscribes to subject,
// and, when nobody does, what shows it.
func (r *runner) listened(subject string) (bool, string) {
	if r.broker != nil {
		open, subs, err := r.listeners(subject)
		if err != nil || len(open) == 0 {
			return true, "" // not connected: dead, not deaf, if anything
		}
		for _, on := range open {
			if on {
				return true, ""
			}
		}
		return false, subscribedTo(subs)
	}
	none, err := r.noResponders(subject)
	if err != nil || !none {
		return true, ""
	}
	return false, "the broker answered a message published there with no responders"
}

// listeners asks the embedded broker which connections but the
// harness's are open, whether each subscribes to subject, and what they
// subscribe to.
func (r *runner) listeners(subject string) (map[uint64]bool, []string, error) {
	self, err := r.nc.GetClientID()
	if err != nil {
		return nil, nil, err
	}
	return r.broker.Listeners(subject, self)
}

// subscribedTo says where the IUT's connections listen.
func subscribedTo(subs []string) string {
	if len(subs) == 0 {
		return "the broker lists no subscription of the IUT's"
	}
	return "the IUT's connections subscribe to " + strings.Join(subs, ", ")
}

// watchListening interrupts l, on the embedded broker, as soon as a
// connection of the IUT that subscribed to its peer subject in this
// incarnation is still open and no longer does, and none other does: the
// IUT is deaf at once (a client library that closes a subscription whose
// callback threw, as nats.js does), with no window to wait out. A
// connection that closed is the connection watcher's to name, and one the
// harness dropped (a disconnect step) is not the IUT's doing.
func (lv *liveness) watchListening(l *life) {
	r := lv.r
	if r.broker == nil {
		return
	}
	subject := agh.PeerSubject(r.ws, r.ch, r.iutID)
	seen := map[uint64]bool{} // connections seen subscribed in l
	var last time.Duration    // when one last was
	look := func() bool {
		if r.dropping.Load() {
			clear(seen)
			return true
		}
		open, subs, err := r.listeners(subject)
		if err != nil {
			return false
		}
		now := time.Since(r.start)
		gone := false
		for cid, on := range open {
			switch {
			case on:
				seen[cid], last = true, now
				return true
			case seen[cid]:
				gone = true
			}
		}
		if gone {
			why := fmt.Sprintf("it no longer subscribes to its peer subject %s (%s), still connected", subject, subscribedTo(subs))
			lv.end(l, &death{event: &report.LifeEvent{Kind: report.LifeDeaf, Cause: why}, after: last, at: now, prompt: true})
			return false
		}
		return true
	}
	// Once now, before anything is played on l: an input that makes it
	// deaf at once must find it seen listening.
	if look() {
		l.every(deafPoll, look)
	}
}

// noResponders publishes a directed whois to the IUT on subject with a
// reply subject of the harness's and reports whether the broker answered
// that nobody subscribes there.
func (r *runner) noResponders(subject string) (bool, error) {
	inbox := r.nc.NewInbox()
	sub, err := r.nc.SubscribeSync(inbox)
	if err != nil {
		return false, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	env := r.whois(r.harnessID(), r.iutID)
	data, err := json.Marshal(env)
	if err != nil {
		return false, err
	}
	r.bus.track.sent(data)
	if err := r.nc.PublishMsg(&nats.Msg{Subject: subject, Reply: inbox, Data: data}); err != nil {
		return false, err
	}
	// The broker answers no responders as it routes the message, before
	// the pong to this flush: by then the answer is queued, or none came.
	if err := r.nc.Flush(); err != nil {
		return false, err
	}
	m, err := sub.NextMsg(0)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return true, nil
	case errors.Is(err, nats.ErrTimeout):
		return false, nil
	case err != nil:
		return false, err
	}
	return m.Header.Get("Status") == "503", nil
}

// unheardSend is the error of a send on subject when nobody listens on
// the IUT's peer subject and subject is that one (nil otherwise).
func (r *runner) unheardSend(subject string) error {
	if r.unheard == "" || r.iutID == "" || subject != agh.PeerSubject(r.ws, r.ch, r.iutID) {
		return nil
	}
	return &unreachable{r.unheard}
}

// unplayed ends a scenario whose send to the IUT's peer subject nobody
// could hear (step i, from 0): a scenario that checks NATS-PEER-SUBJECT
// fails on it, the defect it is there to find; any other is not played.
func (p *player) unplayed(i int, u *unreachable) {
	res := p.res
	rule := requirements.NATSListen.ID
	if !slices.Contains(p.sc.Requirements, rule) {
		res.Outcome, res.Message, res.Unplayed = report.Error, "not played: "+u.why, true
		res.Steps = nil
		return
	}
	msg := rule + ": " + u.why
	res.Steps = append(res.Steps, report.StepResult{Index: i + 1, Kind: "send", Level: "MUST", Checks: []string{rule},
		Outcome: report.Fail, Message: msg})
	res.Checked[rule] = true
	res.Outcome, res.Message, p.failedAt = report.Fail, fmt.Sprintf("step %d (send): %s", i+1, msg), i+1
}
