package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// waiter matches what the IUT sent one scenario's peers against the
// scenario's expect and silence steps, waiting as long as a step allows.
type waiter struct {
	r        *runner
	tctx     *scenario.Context
	in       *inbox
	peers    peerSet
	first    string // the peer an expect listens on when a step names none
	mark     int    // the last message seen before the latest send
	greetSeq int    // the IUT's opening greet, never "what arrived instead"
	floor    int    // messages up to this one were set aside (setAside)
	markedAt time.Duration
	sends    []sent
	// question is the last needs_input trace the scenario sent on each
	// work, by work id: the IUT's refusal of it rules out the continuation
	// that would answer it (an earlier one's does not: a later question
	// may be answered).
	question map[string]string
	// orders are the initiation orders the scenario gave (ruleout.go).
	orders  []order
	watches []*watch
	// latencies are the reply times of the expects that passed: from the
	// latest send before the match to the match's arrival.
	latencies []time.Duration
	life      *life // the incarnation the scenario plays against
	// prove publishes the proof that the IUT still serves (needs_end,
	// waitend.go) and returns the ids an answer to it carries.
	prove func(context.Context) ([]string, error)
	// step is the index of the step being played; matched the message
	// each expect step matched, by step index (for before).
	step    int
	matched map[int]*message
	// noJoinGreet says why a scenario judging the IUT's join greet has
	// none to judge: the IUT it started answered the harness's whois
	// without greeting first. A presence greet that comes later is not a
	// join greet, and whether one came before the step's ceiling would
	// be the peer's clock against the harness's.
	noJoinGreet string
}

// markSend starts the silence window of the next send: taken before
// publishing, since a fast IUT answers at once.
func (w *waiter) markSend() {
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	if n := len(w.in.msgs); n > 0 {
		w.mark = w.in.msgs[n-1].seq
	}
	w.markedAt = time.Since(w.r.start)
}

// where resolves an expect/silence "on" into a description and a subject
// test.
func (w *waiter) where(on string) (string, func(*message) bool) {
	if on == "" {
		on = w.first
	}
	var subject string
	switch {
	case on == "any":
		return "any subject", func(*message) bool { return true }
	case on == "broadcast":
		subject = agh.BroadcastSubject(w.r.ws, w.r.ch)
	case strings.HasPrefix(on, "subject:"):
		raw := strings.TrimPrefix(on, "subject:")
		var err error
		if subject, err = w.tctx.RenderString(raw); err != nil {
			subject = raw
		}
	default:
		subject = agh.PeerSubject(w.r.ws, w.r.ch, w.tctx.Peers[on].ID)
	}
	return subject, func(m *message) bool { return m.subject == subject }
}

func (w *waiter) patterns(list []map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(list))
	for _, pat := range list {
		r, err := w.tctx.RenderMap(pat)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// expect waits for an unconsumed IUT envelope matching one of the step's
// patterns. One that matches on the wrong subject fails the step at once.
func (w *waiter) expect(ctx context.Context, e *scenario.Expect) report.StepResult {
	var sr report.StepResult
	pats, err := w.patterns(e.Patterns())
	if err != nil {
		return sr.Judged(report.Error, err.Error())
	}
	sr.Expected = pats
	var unobs []map[string]any
	if e.Unobservable != nil {
		if unobs, err = w.patterns(e.Unobservable.AnyOf); err != nil {
			return sr.Judged(report.Error, err.Error())
		}
	}
	wantSubject, onOK := w.where(e.On)
	if w.noJoinGreet != "" && expected(pats) == "matching greet" {
		return sr.Judged(report.Fail, w.noJoinGreet)
	}
	if e.Before > 0 {
		return w.before(sr, e, pats, unobs, onOK, wantSubject)
	}
	// The protocol sets no reply deadline: the step ends when its match
	// arrives. The ceiling only ends a wait that can no longer succeed; a
	// step's own timeout can raise it, never lower it.
	ceiling := max(w.r.cfg.StepTimeout, time.Duration(e.Timeout))
	deadline := time.NewTimer(ceiling)
	defer deadline.Stop()
	for {
		hit, misplaced, elsewhere := w.take(pats, onOK)
		if hit != nil {
			for name, ptr := range e.Capture {
				v, ok := scenario.Get(hit.env, ptr)
				if !ok {
					return sr.Judged(report.Fail, fmt.Sprintf("matched %s but it has nothing at %s to capture as %s", hit.label(), ptr, name))
				}
				w.tctx.Captures[name] = v
			}
			w.latencies = append(w.latencies, w.replyTime(hit))
			if w.matched == nil {
				w.matched = map[int]*message{}
			}
			w.matched[w.step] = hit
			return sr.Judged(report.Pass, "")
		}
		if misplaced != nil {
			sr.Arrived = []string{misplaced.describe()}
			return sr.Judged(report.Fail, fmt.Sprintf("the expected %s arrived on %s, not on %s", misplaced.label(), misplaced.subject, wantSubject))
		}
		if elsewhere != nil {
			sr.Arrived = []string{elsewhere.describe()}
			return sr.Judged(report.Fail, elsewhereMessage(elsewhere, wantSubject, pats))
		}
		if m := w.earliest(unobs, onOK); m != nil {
			sr.Arrived = []string{m.describe()}
			return sr.Judged(report.Skip, fmt.Sprintf("not observable: %s (the IUT sent %s)", e.Unobservable.Because, m.label()))
		}
		// What the step declares unobservable comes first: an answer
		// that rules the match out may be exactly that.
		if m := w.ruledOut(pats, onOK); m != nil {
			sr.Arrived = []string{m.describe()}
			return sr.Judged(report.Fail, ruledOutMessage(m, pats))
		}
		select {
		case <-w.in.notify:
		case <-deadline.C:
			if deaf, why := w.r.life.deaf(ctx); deaf && w.life != nil {
				// Not this scenario's failure: the IUT stopped listening.
				w.r.life.die(w.life, report.LifeDeaf, why)
				return sr.Judged(report.Error, "interrupted: the IUT is deaf ("+why+")")
			}
			if e.NeedsEnd != "" {
				if res, ok := w.unended(ctx, sr, e, pats, ceiling); ok {
					return res
				}
			}
			var rel int
			sr.Arrived, rel = w.unmatched(pats)
			msg := fmt.Sprintf("no %s on %s within %s (the --step-timeout ceiling)", expected(pats), wantSubject, ceiling)
			switch {
			case len(sr.Arrived) == 0:
				msg += "; nothing arrived"
			case rel == 0:
				msg += "; nothing for this work or message arrived"
			}
			return sr.Judged(report.Fail, msg)
		case <-ctx.Done():
			sr.Arrived, _ = w.unmatched(pats)
			return sr.Judged(report.Fail, fmt.Sprintf("no %s on %s before the scenario's ceiling (--timeout)", expected(pats), wantSubject))
		}
	}
}

// expected names what a step's patterns wait for: the kind they all name
// ("receipt"), else "matching envelope".
func expected(pats []map[string]any) string {
	kind := ""
	for i, p := range pats {
		k, ok := p["kind"].(string)
		if !ok || (i > 0 && k != kind) {
			return "matching envelope"
		}
		kind = k
	}
	if kind == "" {
		return "matching envelope"
	}
	return "matching " + kind
}

// replyTime is how long after the latest send before it m arrived.
func (w *waiter) replyTime(m *message) time.Duration {
	for i := len(w.sends) - 1; i >= 0; i-- {
		if w.sends[i].at <= m.at {
			return m.at - w.sends[i].at
		}
	}
	return 0
}

// take consumes the first unconsumed envelope matching pats: a hit when
// onOK wants it where it came, else misplaced; or, before any match, the
// IUT's one answer to the awaited message on a subject onOK does not want
// (elsewhere: answersAwaited). The silences being watched have their look
// first.
func (w *waiter) take(pats []map[string]any, onOK func(*message) bool) (hit, misplaced, elsewhere *message) {
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	w.watchLocked()
	// The first match decides, in the order the IUT published: whether a
	// match on the right subject that came after one on the wrong subject
	// counted must not depend on whether it had arrived when the step
	// looked. So does the first answer elsewhere.
	var first *message
	for _, m := range w.in.msgs {
		if m.seq <= w.floor || w.in.consumed[m.seq] || m.env == nil {
			continue
		}
		switch {
		case anyMatch(pats, m.env) && onOK(m):
			hit = m
		case anyMatch(pats, m.env):
			misplaced = m
		case len(pats) > 0 && !onOK(m) && w.answersAwaited(pats, m):
			elsewhere = m
		default:
			continue
		}
		first = m
		break
	}
	if first != nil {
		w.in.consumed[first.seq] = true
	}
	return hit, misplaced, elsewhere
}

// earliest is the first unconsumed envelope matching one of pats where onOK
// wants it, left unconsumed (nil when none, or pats is empty).
func (w *waiter) earliest(pats []map[string]any, onOK func(*message) bool) *message {
	if len(pats) == 0 {
		return nil
	}
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	for _, m := range w.in.msgs {
		if m.seq > w.floor && !w.in.consumed[m.seq] && m.env != nil && onOK(m) && anyMatch(pats, m.env) {
			return m
		}
	}
	return nil
}

func anyMatch(pats []map[string]any, env map[string]any) bool {
	for _, pat := range pats {
		if scenario.Matches(pat, env) {
			return true
		}
	}
	return len(pats) == 0
}

// unmatched describes the unconsumed envelopes of the exchange the step
// waits for (see pinned) with the reason each fails the first pattern:
// "expected versus arrived". The others are only counted; rel is how many
// were related.
func (w *waiter) unmatched(pats []map[string]any) (out []string, rel int) {
	pins := pinned(pats)
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	others, more := 0, 0
	for _, m := range w.in.msgs {
		if w.in.consumed[m.seq] || m.seq == w.greetSeq || m.seq <= w.floor {
			continue
		}
		if !pins.relate(m) {
			others++
			continue
		}
		rel++
		if len(out) == 8 {
			more++
			continue
		}
		d := m.describe()
		if m.env != nil && len(pats) > 0 {
			_, why := scenario.Match(pats[0], m.env)
			d += " — " + why
		}
		out = append(out, d)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… %d more", more))
	}
	if others > 0 {
		out = append(out, fmt.Sprintf("(%d unrelated: other work or messages)", others))
	}
	return out, rel
}

// correlations are the members that tie an envelope to one exchange: its
// work, or the message it answers.
var correlations = [][]string{{"work_id"}, {"reply_to"}, {"body", "for_id"}}

// pin is a correlation value a pattern names literally.
type pin struct {
	path  []string
	value string
}

// pins are the pins of the patterns of one step.
type pins []pin

func pinned(pats []map[string]any) pins {
	var ps pins
	for _, p := range pats {
		for _, path := range correlations {
			if v, ok := member(p, path).(string); ok {
				ps = append(ps, pin{path, v})
			}
		}
	}
	return ps
}

// relate reports whether m belongs to the exchange the pins name: the same
// work_id, reply_to or body.for_id. With no pins everything relates; bytes
// that are not an envelope cannot be placed, so they are shown. It runs
// over a whole inbox under its lock: plain map lookups only.
func (ps pins) relate(m *message) bool {
	if len(ps) == 0 || m.env == nil {
		return true
	}
	for _, p := range ps {
		if v, ok := member(m.env, p.path).(string); ok && v == p.value {
			return true
		}
	}
	return false
}

// member is the value at path in nested objects (nil when absent).
func member(v any, path []string) any {
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// A silence has no window. The step only starts watching: every message
// that arrives where it looks after the send it follows, up to the end of
// the scenario, is held against it, except answers to the scenario's later
// sends (they carry a later send's id or work_id). Its verdict waits for
// the end of the scenario (settleSilences): broken when a forbidden
// message arrived at any time, kept only when a later expect showed the IUT
// processed what came before (the proof), unproven otherwise. So a slow
// peer can neither break a silence late unseen nor keep one by being slow.

// watch is one silence being watched.
type watch struct {
	step  int // the step's index in the scenario
	pats  []map[string]any
	onOK  func(*message) bool
	after int // messages up to this one arrived before the send the silence follows
	sends int // the scenario's sends from this index on came after the silence
	next  int // the inbox position to look at next
	// breach is the first message that broke the silence.
	breach *message
}

// sent is one send of the scenario: the last message seen before it, and
// the ids an answer to it carries (its id and work_id).
type sent struct {
	after int
	at    time.Duration // since the run started
	ids   []string
	times int // how often it was published (repeat)
}

// silence starts watching for what must not arrive; by default anything
// addressed to the scenario's peers. A silence without patterns is about
// answers: presence traffic (a greet, a whois asking who the newly greeted
// test peers are) does not break it.
func (w *waiter) silence(step int, s *scenario.Silence) report.StepResult {
	var sr report.StepResult
	pats, err := w.patterns(s.Patterns())
	if err != nil {
		return sr.Judged(report.Error, err.Error())
	}
	sr.Expected = pats
	onOK := w.peers.addressed
	if s.On != "" {
		_, onOK = w.where(s.On)
	}
	w.watches = append(w.watches, &watch{step: step, pats: pats, onOK: onOK, after: w.mark, sends: len(w.sends)})
	w.in.mu.Lock()
	w.watchLocked()
	w.in.mu.Unlock()
	return sr.Judged(report.Pass, "")
}

// watchLocked holds every message that arrived since the last look against
// the silences being watched. It runs before an expect takes anything, so
// a later expect never consumes what broke an earlier silence. Inbox lock
// held.
func (w *waiter) watchLocked() {
	for _, s := range w.watches {
		for ; s.breach == nil && s.next < len(w.in.msgs); s.next++ {
			m := w.in.msgs[s.next]
			if m.seq <= s.after || w.in.consumed[m.seq] || !s.onOK(m) || (len(s.pats) == 0 && m.presence()) || w.answersLater(m, s.sends) {
				continue
			}
			if m.env == nil || anyMatch(s.pats, m.env) {
				// Not consumed: a later expect may still need it (a SHOULD
				// silence must not take what a MUST step waits for).
				s.breach = m
			}
		}
	}
}

// answersLater reports whether m answers one of the sends from index from
// on: it arrived after that send and carries its id or work_id where an
// answer does (work_id, reply_to, body.for_id).
func (w *waiter) answersLater(m *message, from int) bool {
	if m.env == nil {
		return false
	}
	for _, snd := range w.sends[from:] {
		if m.seq <= snd.after {
			continue
		}
		for _, path := range correlations {
			if v, ok := member(m.env, path).(string); ok && slices.Contains(snd.ids, v) {
				return true
			}
		}
	}
	return false
}

// noteQuestion records that the send id was a needs_input trace of work.
func (w *waiter) noteQuestion(id, work string) {
	if w.question == nil {
		w.question = map[string]string{}
	}
	w.question[work] = id
}

// noteSend records a send's correlation ids and how often it was
// published (see sent).
func (w *waiter) noteSend(ids []string, times int) {
	w.sends = append(w.sends, sent{after: w.mark, at: w.markedAt, ids: ids, times: times})
}

// before judges an expect step by order, not time: its match must have
// arrived before the envelope step e.Before matched, whose arrival shows
// the IUT had processed what came before it. Nothing is waited for.
func (w *waiter) before(sr report.StepResult, e *scenario.Expect, pats, unobs []map[string]any, onOK func(*message) bool, subject string) report.StepResult {
	proof := w.matched[e.Before-1]
	if proof == nil {
		return sr.Judged(report.Skip, fmt.Sprintf("could not tell: step %d saw no answer, so nothing shows the order", e.Before))
	}
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	// ahead lists what arrived before the proof, unconsumed, where the
	// step looks.
	var ahead []*message
	for _, m := range w.in.msgs {
		if m.seq > w.floor && m.seq < proof.seq && !w.in.consumed[m.seq] && m.env != nil && onOK(m) {
			ahead = append(ahead, m)
		}
	}
	for _, m := range ahead {
		if anyMatch(pats, m.env) {
			w.in.consumed[m.seq] = true
			return sr.Judged(report.Pass, "")
		}
	}
	// No match came first, but an answer the step declares unobservable
	// did: by the same order, that answer is what the IUT made of it.
	for _, m := range ahead {
		if len(unobs) > 0 && anyMatch(unobs, m.env) {
			sr.Arrived = []string{m.describe()}
			return sr.Judged(report.Skip, fmt.Sprintf("not observable: %s (the IUT sent %s)", e.Unobservable.Because, m.label()))
		}
	}
	sr.Arrived = []string{proof.describe()}
	return sr.Judged(report.Fail, fmt.Sprintf("no %s on %s before the IUT's %s of step %d", expected(pats), subject, proof.label(), e.Before))
}
