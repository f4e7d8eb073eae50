package harness

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/harness/scenario"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/trust"
)

// player plays one scenario: it runs the steps through a sender and a
// waiter, grades them, and records the transcript.
type player struct {
	r     *runner
	sc    *scenario.Scenario
	res   *ScenarioResult
	in    *inbox
	peers peerSet
	send  *sender
	wait  *waiter
	log   *transcript
}

func (r *runner) play(ctx context.Context, sc *scenario.Scenario, res *ScenarioResult) {
	start := time.Now()
	defer func() { res.Duration = Millis(time.Since(start)) }()

	p, err := r.newPlayer(sc, res)
	if err != nil {
		res.Outcome, res.Message = Error, err.Error()
		return
	}
	r.bus.register(p.in, p.peers)
	defer r.bus.unregister(p.in, p.peers)
	if r.greet != nil {
		// The IUT greeted before any scenario started: every scenario may
		// judge that greet, but silence windows start after it.
		p.in.add(r.greet, true)
		p.wait.mark, p.wait.greetSeq = r.greet.seq, r.greet.seq
	}
	p.steps(ctx)
	p.judge()
	p.record()
}

// newPlayer makes the scenario's test peers (fresh ids, fresh keys) and
// the parts that send, wait and record for them.
func (r *runner) newPlayer(sc *scenario.Scenario, res *ScenarioResult) (*player, error) {
	tctx := &scenario.Context{
		Workspace: r.ws, Channel: r.ch, IUT: r.iutID, Tag: randid.Hex(6),
		Peers: map[string]*scenario.TestPeer{}, Captures: map[string]any{}, Now: r.cfg.Now,
	}
	p := &player{r: r, sc: sc, res: res, in: newInbox(), peers: newPeerSet(), log: &transcript{}}
	res.Peers = map[string]string{}
	var names []string
	for _, pd := range sc.PeerNames() {
		names = append(names, pd.Name)
		tp := &scenario.TestPeer{Name: pd.Name}
		if pd.Key {
			_, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return nil, fmt.Errorf("generate test key: %w", err)
			}
			tp.Key = priv
			tp.ID = trust.Handle(pd.Name, priv.Public().(ed25519.PublicKey))
		} else {
			tp.ID = pd.Name + "." + tctx.Tag
		}
		tctx.Peers[pd.Name] = tp
		p.peers.add(tp.ID)
		res.Peers[pd.Name] = tp.ID
	}
	p.send = &sender{r: r, tctx: tctx, first: names[0], names: names, log: p.log}
	p.wait = &waiter{r: r, tctx: tctx, in: p.in, peers: p.peers, first: names[0]}
	return p, nil
}

// steps plays the steps in order. A step failing at its level ends the
// scenario when that is MUST (or a send or wait fails); a SHOULD step that
// fails is a warning and the scenario goes on.
func (p *player) steps(ctx context.Context) {
	timeout := p.r.cfg.Timeout
	if p.sc.Timeout > 0 {
		timeout = time.Duration(p.sc.Timeout)
	}
	runCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	res := p.res
	res.Outcome = Pass
	grading := p.sc.Grading()
	res.checked = map[string]bool{}
	for _, g := range grading {
		for _, id := range g.Checks {
			res.checked[id] = true
		}
	}
	greeted := !p.sc.Greets()
	for i := range p.sc.Steps {
		st := &p.sc.Steps[i]
		if st.Send != nil && !greeted {
			greeted = true
			if err := p.send.greetAll(ctx); err != nil {
				res.Outcome, res.Message = Error, "greet: "+err.Error()
				return
			}
		}
		start := time.Now()
		sr := p.step(ctx, st)
		sr.Index, sr.Kind, sr.Duration = i+1, st.Kind(), Millis(time.Since(start))
		sr.Level, sr.Checks = grading[i].Level, grading[i].Checks
		if (sr.Outcome == Fail || sr.Outcome == Error) && runCtx.Err() != nil {
			// The run was interrupted, not the IUT found wanting.
			sr = sr.judged(Error, "run interrupted")
		}
		switch {
		case sr.Outcome == Fail && sr.Level == "SHOULD":
			sr.Outcome = Warn
			res.Notes = append(res.Notes, fmt.Sprintf("step %d (SHOULD%s): %s", i+1, checking(sr.Checks), sr.Message))
			res.Outcome = worse(res.Outcome, Warn)
		case sr.Outcome == Skip && st.Expect != nil:
			// What the scenario judges cannot be seen with this IUT
			// (unobservable): the rest would prove nothing.
			res.Steps = append(res.Steps, sr)
			if res.Outcome == Pass {
				res.Outcome = Skip
			}
			res.Message = fmt.Sprintf("step %d (%s): %s", i+1, st.Kind(), sr.Message)
			p.creditSilences()
			return
		case sr.Outcome == Fail && sr.Level == "MAY":
			sr.Outcome = Skip
			res.Notes = append(res.Notes, fmt.Sprintf("step %d (MAY, not offered): %s", i+1, sr.Message))
		case sr.Outcome == Fail || sr.Outcome == Error:
			res.Steps = append(res.Steps, sr)
			res.Outcome, res.Message = sr.Outcome, fmt.Sprintf("step %d (%s): %s", i+1, st.Kind(), sr.Message)
			p.creditSilences()
			return
		}
		res.Steps = append(res.Steps, sr)
	}
	p.creditSilences()
}

func checking(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ", " + strings.Join(ids, ", ")
}

// creditSilences takes back the pass of every silence that no expect step
// showed was heard: a peer that hears nothing is silent too. The proof is
// an expect that passed after the send the silence follows, before the
// silence (an answer to that send) or after it (valid work served later).
func (p *player) creditSilences() {
	res := p.res
	passed := map[int]bool{} // step index (from 0) → an expect that passed
	for _, st := range res.Steps {
		if st.Kind == "expect" && st.Outcome == Pass {
			passed[st.Index-1] = true
		}
	}
	for k := range res.Steps {
		st := &res.Steps[k]
		if st.Kind != "expect_silence" || st.Outcome != Pass {
			continue
		}
		heard := false
		for j := p.sc.HeardFrom(st.Index - 1); j < len(p.sc.Steps) && !heard; j++ {
			heard = passed[j]
		}
		if !heard {
			*st = st.judged(Skip, unheard)
			res.Notes = append(res.Notes, fmt.Sprintf("step %d (silence): %s", st.Index, unheard))
		}
	}
}

// unheard is the verdict on a silence nothing showed was heard.
const unheard = "not credited: no later step showed the IUT was listening"

// step plays one step and returns its verdict.
func (p *player) step(ctx context.Context, st *scenario.Step) StepResult {
	var sr StepResult
	if err := p.r.iutGone(); err != nil {
		return sr.judged(Fail, err.Error())
	}
	switch {
	case st.Send != nil:
		p.wait.markSend()
		if err := p.send.send(ctx, st.Send); err != nil {
			return sr.judged(Error, err.Error())
		}
		return sr.judged(Pass, "")
	case st.Expect != nil:
		return p.wait.expect(ctx, st.Expect)
	case st.ExpectSilence != nil:
		return p.wait.silence(ctx, st.ExpectSilence)
	case st.Disconnect != "":
		return p.disconnect()
	}
	select {
	case <-time.After(time.Duration(st.Wait)):
		return sr.judged(Pass, "")
	case <-ctx.Done():
		// A wait judges nothing: the harness's time limit is too short.
		return sr.judged(Error, "scenario timeout during wait (raise --timeout)")
	}
}

// judge adds the passive verdict on the envelopes the scenario judged (sent
// to its peers, or matched by one of its steps): each finding counts at its
// rule's level. --strict makes warnings failures.
func (p *player) judge() {
	res := p.res
	var errs, warns []string
	for _, m := range p.received() {
		if !p.peers.addressed(m) && !p.in.wasConsumed(m) {
			continue
		}
		for _, f := range m.findings {
			s := fmt.Sprintf("IUT %s %s: %s", m.label(), m.id(), f)
			if f.Rule.Severity == rules.Error {
				errs = append(errs, s)
			} else {
				warns = append(warns, s)
			}
		}
	}
	if dropped := p.in.droppedCount(); dropped > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d messages not kept for this scenario (inbox limit)", dropped))
	}
	if len(errs) > 0 && res.Outcome != Error {
		if res.Outcome != Fail {
			res.Outcome, res.Message = Fail, "passive validation: "+errs[0]
		}
		res.Notes = append(res.Notes, errs...)
	}
	if len(warns) > 0 {
		res.Notes = append(res.Notes, warns...)
		res.Outcome = worse(res.Outcome, Warn)
	}
	if res.Outcome == Warn && p.r.cfg.Strict {
		res.Outcome = Fail
		if res.Message == "" && len(res.Notes) > 0 {
			res.Message = res.Notes[0] + " (--strict)"
		}
	}
}

// record completes the transcript with what the IUT sent the scenario's
// peers and whatever a step consumed.
func (p *player) record() {
	for _, m := range p.received() {
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

func worse(a, b Outcome) Outcome {
	rank := map[Outcome]int{Pass: 0, Skip: 0, Warn: 1, Fail: 2, Error: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
