package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
)

// Deafness. A peer can stay alive and connected and stop hearing what is
// addressed to it: a client library that closes a subscription whose
// callback threw (nats.js does) leaves it greeting and answering
// broadcasts, deaf on its own peer subject. So the harness watches the
// answers to what it sends on that subject: an envelope of the IUT whose
// reply_to, body.for_id, causation_id or work_id names a message sent
// there. While no such answer comes for probeQuiet, a directed whois probe
// asks whether it still listens (a directed whois must be answered).
//
// The IUT is deaf when it has answered a probe before, its current
// incarnation has answered something (a restarted IUT may be slower than
// the one before: its first answer tells), a probe sent since its last
// answer is unanswered, and that last answer is deafAfter (or
// three times its slowest reply so far, if longer) ago. Slowness is told
// apart by the answers that do arrive: each one starts the count again,
// and a slow reply widens the window; no fixed deadline applies to a peer
// that is still answering.

// probeQuiet is how long no answer comes to what was sent on the IUT's
// peer subject before a probe asks whether it still listens. A probe is a
// question, never a verdict.
const probeQuiet = time.Second

// deafAfter is the least time without an answer, a probe outstanding, that
// makes the IUT deaf: well under the ten seconds within which deafness is
// to be named, and many times the second or less a loaded peer takes to
// answer (a slower one widens it by its own replies).
const deafAfter = 5 * time.Second

// Once a window without answers has shown the IUT deaf in the run, what
// is told after is whether it went deaf again, as it was seen to, not
// whether a peer that answers is slow: its probe goes after quietAgain
// and is given probeGrace (or three times the IUT's slowest reply, if
// longer) before the IUT is deaf again. This is what makes the hunt for
// what makes it deaf take seconds, not minutes; the first deafness of a
// run is still told by deafAfter.
const (
	quietAgain = probeQuiet / 2
	probeGrace = 500 * time.Millisecond
)

// maxAsked bounds the directed inputs remembered while they wait for
// their first answer (a long fuzz run sends millions; most are answered
// at once, and an input unanswered this many inputs later says nothing).
const maxAsked = 1 << 16

// deafPoll is how often deafness is looked for.
const deafPoll = 50 * time.Millisecond

// askedAt remembers a directed input by the ids an answer carries; lock
// held.
func (lv *liveness) askedLocked(ids []string, at time.Duration) {
	for _, id := range ids {
		if id == "" {
			continue
		}
		if _, ok := lv.asked[id]; !ok {
			lv.askOrder = append(lv.askOrder, id)
		}
		lv.asked[id] = at
	}
	for len(lv.askOrder) > maxAsked {
		delete(lv.asked, lv.askOrder[0])
		lv.askOrder = lv.askOrder[1:]
	}
}

// sentTo notes what a scenario sent: on the IUT's peer subject it is a
// directed input whose answer shows the IUT still hears.
func (lv *liveness) sentTo(subject string, ids []string) {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	if lv.iut == "" || subject != agh.PeerSubject(lv.r.ws, lv.r.ch, lv.iut) {
		return
	}
	lv.askedLocked(ids, time.Since(lv.r.start))
}

// heard notes a message: from the IUT, and answering a directed input, it
// shows the IUT hears what is addressed to it.
func (lv *liveness) heard(m *message) {
	if m.env == nil {
		return
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	if lv.iut == "" || m.from() != lv.iut {
		return
	}
	answered := false
	for _, path := range answerRefs {
		v, _ := member(m.env, path).(string)
		t, ok := lv.asked[v]
		if v == "" || !ok {
			continue
		}
		delete(lv.asked, v) // its first answer is its reply time
		lv.slowest = max(lv.slowest, m.at-t)
		answered = true
		if v == lv.probeMsg {
			lv.answeredProbe, lv.probedAt, lv.probeMsg = true, 0, ""
		}
	}
	if answered && m.at > lv.lastAnswer {
		lv.lastAnswer = m.at
	}
	lv.lifeAnswered = lv.lifeAnswered || answered
}

// answerRefs are the members by which an envelope answers another.
var answerRefs = [][]string{{"reply_to"}, {"body", "for_id"}, {"causation_id"}, {"work_id"}}

// deafWindow is how long the IUT may go without answering, a probe
// outstanding, before it is deaf; lock held.
func (lv *liveness) deafWindowLocked() time.Duration {
	least := deafAfter
	if d := lv.r.cfg.deafAfter; d > 0 {
		least = d
	}
	if lv.wasDeaf {
		least = min(least, quietAgain+probeGrace)
	}
	return max(least, 3*lv.slowest)
}

// quietLocked is how long nothing is answered before a probe asks; lock
// held.
func (lv *liveness) quietLocked() time.Duration {
	if lv.wasDeaf {
		return quietAgain
	}
	return probeQuiet
}

// watchProbes asks the IUT, while nothing addressed to it was answered
// for probeQuiet, whether it still listens, and interrupts l once the IUT
// is deaf.
func (lv *liveness) watchProbes(l *life) {
	r := lv.r
	l.every(deafPoll, func() bool {
		now := time.Since(r.start)
		lv.mu.Lock()
		window := lv.deafWindowLocked()
		// A probe left unanswered while other answers came went
		// astray: ask again.
		if lv.probedAt > 0 && lv.lastAnswer > lv.probedAt && now-lv.probedAt >= window {
			lv.probedAt, lv.probeMsg = 0, ""
		}
		quiet := now-lv.lastAnswer >= lv.quietLocked() && lv.probedAt == 0
		heard := lv.answeredProbe && lv.lifeAnswered && lv.probedAt > lv.lastAnswer
		deaf := heard && now-lv.lastAnswer >= window && now-lv.probedAt >= lv.slowest
		// A probe unanswered at the next poll: any other broker than the
		// embedded one (watchListening) says at once whether the IUT still
		// subscribes to its peer subject (asked once a probe).
		ask := heard && !deaf && r.broker == nil && now-lv.probedAt >= deafPoll && lv.brokerAsked != lv.probeMsg
		if ask {
			lv.brokerAsked = lv.probeMsg
		}
		last, probed, slowest := lv.lastAnswer, lv.probedAt, lv.slowest
		lv.mu.Unlock()
		switch {
		case deaf:
			why := fmt.Sprintf("nothing addressed to it answered since %s; a whois probe sent at %s unanswered after %s; it answered probes before, its slowest reply %s",
				rounded(report.Millis(last)), rounded(report.Millis(probed)), rounded(report.Millis(now-probed)), rounded(report.Millis(slowest)))
			// Deaf since its last answer at the latest: what was sent
			// after the probe did not make it deaf.
			lv.dieSpan(l, report.LifeDeaf, why, last, probed)
			lv.mu.Lock()
			lv.wasDeaf = true
			lv.mu.Unlock()
			return false
		case ask:
			subject := agh.PeerSubject(r.ws, r.ch, r.iutID)
			if listens, evidence := r.listened(subject); !listens && l.ctx.Err() == nil {
				why := fmt.Sprintf("it no longer subscribes to its peer subject %s (%s); nothing addressed to it answered since %s, a whois probe sent at %s unanswered; it answered probes before",
					subject, evidence, rounded(report.Millis(last)), rounded(report.Millis(probed)))
				lv.end(l, &death{event: &report.LifeEvent{Kind: report.LifeDeaf, Cause: why}, after: min(last, probed), at: probed, prompt: true})
				return false
			}
		case quiet:
			lv.probe()
		}
		return true
	})
}

// probe sends one whois probe on the IUT's peer subject.
func (lv *liveness) probe() {
	r := lv.r
	lv.mu.Lock()
	lv.probes++
	id := fmt.Sprintf("msg_probe_%s_%d", r.tag, lv.probes)
	iut := lv.iut
	lv.mu.Unlock()
	if iut == "" {
		return
	}
	env := map[string]any{
		"protocol": agh.Protocol, "id": id, "workspace_id": r.ws, "channel": r.ch,
		"kind": "whois", "from": lv.probeID, "to": iut, "ts": r.now().Unix(), "proof": nil,
		"body": map[string]any{"type": "request", "query": iut},
	}
	lv.mu.Lock()
	at := time.Since(r.start)
	lv.probedAt, lv.probeMsg = at, id
	lv.askedLocked([]string{id}, at)
	lv.mu.Unlock()
	_ = r.publishHarness(agh.PeerSubject(r.ws, r.ch, iut), env)
}

// deaf is asked by a wait that reached its ceiling with nothing matching:
// is the IUT deaf? While a probe is outstanding since its last answer, the
// caller waits for the probe's answer or for the deafness watcher's
// verdict (which interrupts the scenario); an IUT that does not answer
// probes at all is never called deaf.
func (lv *liveness) deaf(ctx context.Context) (bool, string) {
	t := time.NewTicker(deafPoll)
	defer t.Stop()
	for {
		if l := lv.current(); l != nil {
			if d := l.died(); d != nil && d.event.Kind == report.LifeDeaf {
				return true, d.event.Cause
			}
		}
		lv.mu.Lock()
		open := lv.answeredProbe && lv.lifeAnswered && lv.probedAt > lv.lastAnswer
		lv.mu.Unlock()
		if !open {
			return false, ""
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return false, ""
		}
	}
}
