package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// player plays one scenario: it runs the steps through a sender and a
// waiter, grades them, and records the transcript.
type player struct {
	r     *runner
	sc    *scenario.Scenario
	res   *report.ScenarioResult
	in    *inbox
	peers peerSet
	send  *sender
	wait  *waiter
	log   *transcript

	grading  []scenario.Graded
	failedAt int // the step that named the scenario's failure (from 1)
	life     *life
	sent     int            // send steps played
	sentOn   map[int]string // step index (from 0) → the subject its send went to
	bursts   []burst        // what the at_once steps published (concurrent.go)
	endedAt  time.Duration  // since the run started: what arrives later is late
	// cutSeq is the last message the scenario was judged on when it
	// ended (cut once it has): what came after it is late, judged by
	// judgeLate, so no message falls between the two judgements.
	cutSeq int
	cut    bool
	// unheard is set when a send went to the IUT's peer subject, where
	// nobody listens (listen.go).
	unheard *unreachable
}

// play plays sc once against incarnation l, whose death interrupts it.
func (r *runner) play(ctx context.Context, l *life, sc *scenario.Scenario, res *report.ScenarioResult) *player {
	start := time.Now()
	defer func() { res.Duration = report.Millis(time.Since(start)) }()

	p, err := r.newPlayer(sc, res)
	if err != nil {
		res.Outcome, res.Message = report.Error, err.Error()
		return nil
	}
	p.life, p.wait.life = l, l
	// The scenario's context ends with the run or with the incarnation.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	unhook := context.AfterFunc(l.ctx, stop)
	defer unhook()
	r.bus.register(p.in, p.peers)
	kept := false
	defer func() {
		if !kept {
			r.bus.unregister(p.in, p.peers)
		}
	}()
	if r.greet != nil {
		// The IUT greeted before any scenario started: every scenario may
		// judge that greet, but silence windows start after it.
		p.in.add(r.greet, true)
		p.wait.mark, p.wait.greetSeq = r.greet.seq, r.greet.seq
	}
	p.steps(ctx)
	ended := time.Since(r.start)
	if l.died() != nil {
		return p // interrupted: not judged
	}
	if res.Unplayed {
		return p // nobody could hear it (listen.go): not judged, nothing to show
	}
	if why, at := r.bus.floodReason(); why != "" && at <= ended {
		// The scenario ended after the flood began: what the IUT sent it
		// since was not judged, and neither is the scenario.
		p.record()
		res.Outcome, res.Message = report.Error, "not judged: "+why
		return p
	}
	p.judge()
	p.answers()
	p.record()
	p.latency()
	p.loadFigures()
	if r.keepLate {
		// Still routed: judgeLate judges what comes after it ended.
		kept = true
		r.finished.add(p)
	}
	return p
}

// answers fails the scenario when two answers of the IUT to one of its
// messages contradict each other.
func (p *player) answers() {
	res := p.res
	why, m := p.contradiction()
	if why == "" || res.Outcome == report.Fail || res.Outcome == report.Error {
		return
	}
	res.Outcome, res.Message = report.Fail, why
	res.Steps = append(res.Steps, report.StepResult{Index: len(res.Steps) + 1, Kind: "answers", Level: "MUST",
		Outcome: report.Fail, Message: why, Arrived: []string{m.describe()}})
}

// sentLog is what the scenario sent, in order.
func (p *player) sentLog() []*report.ExchangedEntry {
	var out []*report.ExchangedEntry
	for _, e := range p.log.entries {
		if e.Direction == "sent" {
			out = append(out, e)
		}
	}
	return out
}

// newPlayer makes the scenario's test peers (fresh ids, fresh keys) and
// the parts that send, wait and record for them.
func (r *runner) newPlayer(sc *scenario.Scenario, res *report.ScenarioResult) (*player, error) {
	tctx := &scenario.Context{
		Workspace: r.ws, Channel: r.ch, IUT: r.iutID, Tag: randid.Hex(6),
		Peers: map[string]*scenario.TestPeer{}, Captures: map[string]any{}, Now: r.cfg.Now,
	}
	p := &player{r: r, sc: sc, res: res, in: newInbox(), peers: newPeerSet(), log: &transcript{}}
	res.Peers = map[string]string{}
	peers := r.orders.peers[sc.ID] // fixed before the IUT started, for its start-up orders
	if peers == nil {
		var err error
		if peers, err = makePeers(sc, tctx.Tag); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, pd := range sc.PeerNames() {
		names = append(names, pd.Name)
		tp := peers[pd.Name]
		tctx.Peers[pd.Name] = tp
		p.peers.add(tp.ID)
		res.Peers[pd.Name] = tp.ID
	}
	p.send = &sender{r: r, tctx: tctx, first: names[0], names: names, log: p.log}
	p.wait = &waiter{r: r, tctx: tctx, in: p.in, peers: p.peers, first: names[0]}
	p.wait.prove = func(ctx context.Context) ([]string, error) {
		_, ids, err := p.send.send(ctx, servingProof())
		return ids, err
	}
	if sc.Requires.JoinGreet && r.proc != nil && r.greet == nil {
		p.wait.noJoinGreet = fmt.Sprintf("the IUT did not greet on joining: it answered the harness's whois after %s (--greet-timeout) without a greet; a later presence greet is not a join greet", r.cfg.GreetTimeout)
	}
	return p, nil
}

// steps plays the steps in order. A step failing at its level ends the
// scenario when that is MUST (or a send or wait fails); a SHOULD step that
// fails is a warning and the scenario goes on. Silences are settled at the
// end, whichever way it ends.
func (p *player) steps(ctx context.Context) {
	runCtx := ctx
	if p.r.cfg.Timeout > 0 || p.sc.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, max(p.r.cfg.Timeout, time.Duration(p.sc.Timeout)))
		defer cancel()
	}

	res := p.res
	res.Outcome = report.Pass
	p.grading = p.sc.Grading()
	res.Checked = map[string]bool{}
	for _, g := range p.grading {
		for _, id := range g.Checks {
			res.Checked[id] = true
		}
	}
	defer p.settleSilences()
	greeted := !p.sc.Greets()
	uncaptured := map[string]int{} // capture → the step that went on without it
	for i := range p.sc.Steps {
		st := &p.sc.Steps[i]
		if name := scenario.NeedsCapture(st, uncaptured); name != "" {
			// A SHOULD or MAY expect went on without its match: the steps
			// from here would judge what it did not capture. They are not
			// played, and that is no error: the IUT answered otherwise
			// than the step hoped, and that step's verdict says so.
			steps := fmt.Sprintf("steps %d-%d", i+1, len(p.sc.Steps))
			if i+1 == len(p.sc.Steps) {
				steps = fmt.Sprintf("step %d", i+1)
			}
			res.Notes = append(res.Notes, fmt.Sprintf("%s not played: step %d needs %q, which step %d did not capture",
				steps, i+1, name, uncaptured[name]))
			return
		}
		if st.Sends() && !greeted {
			greeted = true
			if err := p.send.greetAll(ctx); err != nil {
				res.Outcome, res.Message = report.Error, "greet: "+err.Error()
				return
			}
		}
		start := time.Now()
		sr := p.step(ctx, i, st)
		if p.life != nil && p.life.died() != nil {
			return // interrupted by the IUT's death: this attempt is not judged
		}
		if p.unheard != nil {
			p.unplayed(i, p.unheard)
			return
		}
		sr.Index, sr.Kind, sr.Duration = i+1, st.Kind(), report.Millis(time.Since(start))
		sr.Level, sr.Checks = p.grading[i].Level, p.grading[i].Checks
		if (sr.Outcome == report.Fail || sr.Outcome == report.Error) && runCtx.Err() != nil {
			// The run was interrupted, not the IUT found wanting.
			sr = sr.Judged(report.Error, "run interrupted")
		}
		if why, _ := p.r.bus.floodReason(); why != "" && sr.Outcome != report.Pass {
			// What did not come may have come after the flood began, and
			// not been heard: the step is not judged.
			sr = sr.Judged(report.Error, "not judged: "+why)
		}
		res.Steps = append(res.Steps, sr)
		if p.grade(&res.Steps[len(res.Steps)-1]) {
			return
		}
		if e := st.Expect; e != nil {
			for name := range e.Capture {
				if sr.Outcome == report.Pass {
					delete(uncaptured, name) // captured again
				} else {
					uncaptured[name] = i + 1
				}
			}
		}
	}
}

// grade applies the level of step sr (already in res.Steps) to its raw
// verdict and folds it into the scenario's outcome. It reports whether the
// scenario ends there.
func (p *player) grade(sr *report.StepResult) (stop bool) {
	res := p.res
	i := sr.Index
	switch {
	case sr.Outcome == report.Fail && sr.Level == "SHOULD":
		sr.Outcome = report.Warn
		res.Notes = append(res.Notes, fmt.Sprintf("step %d (SHOULD%s): %s", i, checking(sr.Checks), sr.Message))
		res.Outcome = worse(res.Outcome, report.Warn)
	case sr.Outcome == report.Skip && sr.Kind == "expect":
		// What the scenario judges cannot be seen with this IUT
		// (unobservable): the rest would prove nothing.
		if res.Outcome == report.Pass {
			res.Outcome = report.Skip
		}
		res.Message = fmt.Sprintf("step %d (%s): %s", i, sr.Kind, sr.Message)
		return true
	case sr.Outcome == report.Fail && sr.Level == "MAY":
		sr.Outcome = report.Skip
		res.Notes = append(res.Notes, fmt.Sprintf("step %d (MAY, not offered): %s", i, sr.Message))
	case sr.Outcome == report.Fail || sr.Outcome == report.Error:
		// The earliest step that failed names the failure.
		if p.failedAt == 0 || i < p.failedAt || res.Outcome == report.Error {
			res.Outcome, res.Message, p.failedAt = sr.Outcome, fmt.Sprintf("step %d (%s): %s", i, sr.Kind, sr.Message), i
		}
		return true
	}
	return false
}

func checking(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ", " + strings.Join(ids, ", ")
}

// settleSilences gives every silence its verdict once the scenario has
// ended: broken by what arrived, kept when an expect that passed after the
// send it follows (an answer to that send, ahead of the silence, or to a
// later one) showed the IUT processed it, and unproven otherwise: a peer
// that hears nothing is silent too.
func (p *player) settleSilences() {
	w := p.wait
	w.in.mu.Lock()
	w.watchLocked()
	p.endLocked()
	w.in.mu.Unlock()
	res := p.res
	passed := map[int]bool{} // step index (from 0) → an expect that passed
	byStep := map[int]*report.StepResult{}
	for k := range res.Steps {
		st := &res.Steps[k]
		byStep[st.Index-1] = st
		if st.Kind == "expect" && st.Outcome == report.Pass {
			passed[st.Index-1] = true
		}
	}
	for _, s := range w.watches {
		sr := byStep[s.step]
		if sr == nil || sr.Outcome != report.Pass {
			continue
		}
		if m := s.breach; m != nil {
			sr.Arrived = []string{m.describe()}
			*sr = sr.Judged(report.Fail, "expected silence, but the IUT sent "+m.label())
			p.grade(sr)
			continue
		}
		if why := p.refusedListening(s.step); why != "" {
			*sr = sr.Judged(report.Fail, "expected silence, but "+why)
			p.grade(sr)
			continue
		}
		heard := false
		for j := p.sc.HeardFrom(s.step); j < len(p.sc.Steps) && !heard; j++ {
			heard = j != s.step && passed[j]
		}
		if !heard {
			*sr = sr.Judged(report.Skip, unheard)
			res.Notes = append(res.Notes, fmt.Sprintf("step %d (silence): %s", sr.Index, unheard))
		}
	}
}

// refusedListening says how the IUT asked to hear what the sends just
// before silence step i published ("" when it did not): the embedded
// broker refused it a subscription covering their subject. The confined
// IUT is never delivered a message outside the run's workspace, so its
// silence there proves nothing; the subscription it asked for shows it
// listens where the scenario checks it does not (a channel-only subject,
// another workspace's).
func (p *player) refusedListening(i int) string {
	for j := i - 1; j >= 0 && p.sc.Steps[j].Send != nil; j-- {
		subject, ok := p.sentOn[j]
		if !ok {
			continue
		}
		if pattern, refused := p.r.broker.RefusedSubscription(subject); refused {
			return fmt.Sprintf("the IUT asked to hear %s: the broker refused it the subscription %s (the embedded broker confines the IUT to the run's workspace)", subject, pattern)
		}
	}
	return ""
}

// unheard is the verdict on a silence nothing showed was heard.
const unheard = "not credited: no later step showed the IUT processed what came before"

// step plays one step and returns its verdict.
func (p *player) step(ctx context.Context, i int, st *scenario.Step) report.StepResult {
	var sr report.StepResult
	switch {
	case st.Concurrent():
		return p.atOnce(ctx, i, st)
	case st.Send != nil:
		p.wait.markSend()
		subject, ids, err := p.send.send(ctx, st.Send)
		if err != nil {
			errors.As(err, &p.unheard)
			return sr.Judged(report.Error, err.Error())
		}
		if p.sentOn == nil {
			p.sentOn = map[int]string{}
		}
		p.sentOn[i] = subject
		p.wait.noteSend(ids, max(st.Send.Repeat, 1))
		if len(ids) > 1 && asksForInput(st.Send) {
			p.wait.noteQuestion(ids[0], ids[1])
		}
		p.sent++
		return sr.Judged(report.Pass, "")
	case st.Initiate != nil:
		// The IUT's opening answers the order: silences start after it.
		p.wait.markSend()
		subject, ids, err := p.initiate(ctx, st.Initiate)
		if err != nil {
			errors.As(err, &p.unheard)
			return sr.Judged(report.Error, err.Error())
		}
		p.noteOrder(st.Initiate)
		if subject != "" {
			if p.sentOn == nil {
				p.sentOn = map[int]string{}
			}
			p.sentOn[i] = subject
			p.wait.noteSend(ids, 1)
		}
		p.sent++
		return sr.Judged(report.Pass, "")
	case st.Expect != nil:
		p.wait.step = i
		defer p.r.await(fmt.Sprintf("%s step %d: a %s", p.sc.ID, i+1, expected(st.Expect.Patterns())))()
		return p.wait.expect(ctx, st.Expect)
	case st.ExpectSilence != nil:
		return p.wait.silence(i, st.ExpectSilence)
	case st.Disconnect != "":
		if p.r.unheard != "" {
			// It drops the connections that listen on the IUT's peer
			// subject: there is none.
			p.unheard = &unreachable{p.r.unheard}
			return sr.Judged(report.Error, p.r.unheard)
		}
		return p.disconnect()
	}
	select {
	case <-time.After(time.Duration(st.Wait)):
		return sr.Judged(report.Pass, "")
	case <-ctx.Done():
		// A wait judges nothing: the harness's time limit is too short.
		return sr.Judged(report.Error, "scenario timeout during wait (raise --timeout)")
	}
}

// judge adds the passive verdict on the envelopes the scenario judged (sent
// to its peers, or matched by one of its steps): each finding counts at its
// rule's level. A finding is a defect in what the IUT sends, so it is
// charged to Core Sender, once, here: a scenario of Core Sender fails or
// warns on it; any other keeps its own verdict and carries the finding
// (SenderFindings), which fails Core Sender, and the run's passive verdict
// does not count the envelope again. --strict makes warnings failures.
func (p *player) judge() {
	res := p.res
	var errs, warns []string
	var ownErrs, ownWarns []string
	for _, m := range p.onTime() {
		if !p.peers.addressed(m) && !p.in.wasConsumed(m) {
			continue
		}
		e, w, oe, ow := p.charge(m)
		if e == nil && w == nil && oe == nil && ow == nil && !p.peers.addressed(m) {
			// A broadcast message this scenario's steps took, charged to
			// another scenario that took it too (the IUT's join greet,
			// say): which one judged first is a race, so each that took
			// it judges what it is; the passive verdict still counts it
			// once, for the scenario it was charged to.
			e, w = p.shared(m)
		}
		errs, warns = append(errs, e...), append(warns, w...)
		ownErrs, ownWarns = append(ownErrs, oe...), append(ownWarns, ow...)
	}
	if dropped := p.in.droppedCount(); dropped > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d messages not kept for this scenario (inbox limit)", dropped))
	}
	p.fold(errs, warns, false)
	p.fold(ownErrs, ownWarns, true)
	if res.Outcome == report.Warn && p.r.cfg.Strict {
		res.Outcome, res.StrictFail = report.Fail, true
		if res.Message == "" && len(res.Notes) > 0 {
			res.Message = res.Notes[0] + " (--strict)"
		}
	}
}

// charge records m's findings against the scenario, once (a message
// already charged, to this scenario or another, is not charged again), and
// returns them as lines, errors and warnings apart: those on what the IUT
// sent, of the rule engine and the work-unit tracker alike (a sender duty,
// charged to Core Sender), and those that show it acted on a message it
// had to refuse (m.acted: a receiver duty, judged with the scenario, as
// its steps are).
func (p *player) charge(m *message) (errs, warns, ownErrs, ownWarns []string) {
	if len(m.findings) == 0 || !m.charged.CompareAndSwap(false, true) {
		return nil, nil, nil, nil
	}
	m.chargedTo = p.res.ID
	res := p.res
	for _, f := range m.findings {
		s := fmt.Sprintf("IUT %s %s: %s", m.label(), m.id(), f)
		if m.actedOn(f) {
			if f.Rule.Severity == rules.Error {
				ownErrs = append(ownErrs, s)
			} else {
				ownWarns = append(ownWarns, s)
			}
			continue
		}
		if f.Rule.Severity == rules.Error {
			errs = append(errs, s)
		} else {
			warns = append(warns, s)
		}
		i := slices.IndexFunc(res.SenderFindings, func(pf report.PassiveFinding) bool { return pf.Rule == f.Rule.ID })
		if i < 0 {
			res.SenderFindings = append(res.SenderFindings, report.PassiveFinding{Rule: f.Rule.ID, Level: f.Rule.Severity.Level(), Example: s})
			i = len(res.SenderFindings) - 1
		}
		res.SenderFindings[i].Count++
	}
	return errs, warns, ownErrs, ownWarns
}

// shared returns the sender findings of m, a message charged to another
// scenario, as lines, errors and warnings apart, without charging them
// again (nothing is added to SenderFindings).
func (p *player) shared(m *message) (errs, warns []string) {
	for _, f := range m.findings {
		if m.actedOn(f) {
			continue // a receiver's: judged with the scenario that caused it
		}
		s := fmt.Sprintf("IUT %s %s: %s", m.label(), m.id(), f)
		if f.Rule.Severity == rules.Error {
			errs = append(errs, s)
		} else {
			warns = append(warns, s)
		}
	}
	return errs, warns
}

// fold applies charged findings to the scenario's outcome: a Core Sender
// scenario is judged by them, and so is any scenario by its own (the
// tracker's acted findings); any other only notes a sender defect.
func (p *player) fold(errs, warns []string, own bool) {
	res := p.res
	if !own && p.sc.Claim != senderClaim {
		for _, e := range errs {
			res.Notes = append(res.Notes, "charged to Core Sender: "+e)
		}
		for _, w := range warns {
			res.Notes = append(res.Notes, "charged to Core Sender: "+w)
		}
		return
	}
	if len(errs) > 0 && res.Outcome != report.Error {
		if res.Outcome != report.Fail {
			res.Outcome, res.Message = report.Fail, "passive validation: "+errs[0]
		}
		res.Notes = append(res.Notes, errs...)
	}
	if len(warns) > 0 {
		res.Notes = append(res.Notes, warns...)
		res.Outcome = worse(res.Outcome, report.Warn)
	}
}

// record completes the transcript with what the IUT sent the scenario's
// peers and whatever a step consumed.
func (p *player) record() {
	for _, m := range p.onTime() {
		if p.peers.addressed(m) || p.in.wasConsumed(m) {
			p.log.received(m)
		}
	}
	p.res.Exchanged = p.log.ordered()
}

// received is a snapshot of the scenario's inbox.
func (p *player) received() []*message {
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	return append([]*message(nil), p.in.msgs...)
}

// onTime is what the scenario is judged on when it ends: its inbox up to
// the cut its silences were settled at. What came after is late.
func (p *player) onTime() []*message {
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	var out []*message
	for _, m := range p.in.msgs {
		if !p.cut || m.seq <= p.cutSeq {
			out = append(out, m)
		}
	}
	return out
}

func worse(a, b report.Outcome) report.Outcome {
	rank := map[report.Outcome]int{report.Pass: 0, report.Skip: 0, report.Warn: 1, report.Fail: 2, report.Error: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
