package harness

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/agh"
	"github.com/aghcheck/aghcheck/harness/scenario"
	"github.com/aghcheck/aghcheck/rules"
	"github.com/aghcheck/aghcheck/trust"
)

// errHarness marks a failure of the harness itself (outcome error).
type errHarness struct{ err error }

func (e errHarness) Error() string { return e.err.Error() }

// player runs one scenario.
type player struct {
	r        *runner
	sc       *scenario.Scenario
	ctx      *scenario.Context
	in       *inbox
	res      *ScenarioResult
	peerIDs  []string
	mark     int // highest seq seen before the latest send
	greetSeq int // the IUT's opening greet, never "what arrived instead"
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (r *runner) play(ctx context.Context, sc *scenario.Scenario, res *ScenarioResult) {
	start := time.Now()
	defer func() { res.Duration = Millis(time.Since(start)) }()

	p := &player{r: r, sc: sc, in: newInbox(), res: res}
	p.ctx = &scenario.Context{
		Workspace: r.ws, Channel: r.ch, IUT: r.iutID, Tag: randomHex(6),
		Peers: map[string]*scenario.TestPeer{}, Captures: map[string]any{}, Now: r.cfg.Now,
	}
	res.Peers = map[string]string{}
	for _, pd := range sc.PeerNames() {
		tp := &scenario.TestPeer{Name: pd.Name}
		if pd.Key {
			_, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				res.Outcome, res.Message = Error, "generate test key: "+err.Error()
				return
			}
			tp.Key = priv
			tp.ID = trust.Handle(pd.Name, priv.Public().(ed25519.PublicKey))
		} else {
			tp.ID = pd.Name + "." + p.ctx.Tag
		}
		p.ctx.Peers[pd.Name] = tp
		p.peerIDs = append(p.peerIDs, tp.ID)
		res.Peers[pd.Name] = tp.ID
	}
	r.bus.register(p.in, p.peerIDs)
	defer r.bus.unregister(p.in, p.peerIDs)
	if r.greet != nil {
		// The IUT greeted before any scenario started: every scenario may
		// judge that greet, but silence windows start after it.
		p.in.add(r.greet, true)
		p.mark, p.greetSeq = r.greet.seq, r.greet.seq
	}

	timeout := r.cfg.Timeout
	if sc.Timeout > 0 {
		timeout = time.Duration(sc.Timeout)
	}
	runCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	res.Outcome = Pass
	for i, st := range sc.Steps {
		stepStart := time.Now()
		out, msg, sr := p.step(ctx, i, &st)
		sr.Index, sr.Kind, sr.Outcome, sr.Message = i+1, st.Kind(), out, msg
		sr.Duration = Millis(time.Since(stepStart))
		if (out == Fail || out == Error) && runCtx.Err() != nil {
			// The run was interrupted, not the IUT found wanting.
			out, msg = Error, "run interrupted"
			sr.Outcome, sr.Message = out, msg
		}
		if out == Fail || out == Error {
			switch {
			case out == Fail && st.Level == "SHOULD":
				sr.Outcome = Warn
				res.Notes = append(res.Notes, fmt.Sprintf("step %d (SHOULD): %s", i+1, msg))
				res.Outcome = worse(res.Outcome, Warn)
			case out == Fail && st.Level == "MAY":
				sr.Outcome = Skip
				res.Notes = append(res.Notes, fmt.Sprintf("step %d (MAY, not offered): %s", i+1, msg))
			default:
				res.Steps = append(res.Steps, sr)
				res.Outcome, res.Message = out, fmt.Sprintf("step %d (%s): %s", i+1, st.Kind(), msg)
				p.finish()
				return
			}
		}
		res.Steps = append(res.Steps, sr)
	}
	p.finish()
}

// finish adds the passive verdict on the envelopes the IUT sent to this
// scenario's peers, grades the scenario level and records the transcript.
func (p *player) finish() {
	res := p.res
	p.in.mu.Lock()
	msgs := append([]*message(nil), p.in.msgs...)
	dropped := p.in.dropped
	p.in.mu.Unlock()
	mine := map[string]bool{}
	for _, id := range p.peerIDs {
		mine[id] = true
	}
	var errs, warns []string
	for _, m := range msgs {
		tok, onPeer := peerToken(m.subject, p.r.ws, p.r.ch)
		if !(mine[m.to()] || (onPeer && p.tokenMine(tok))) {
			continue
		}
		for _, f := range m.findings {
			s := fmt.Sprintf("IUT %s %s: %s", describeKind(m), m.id(), f)
			if f.Rule.Severity == rules.Error {
				errs = append(errs, s)
			} else {
				warns = append(warns, s)
			}
		}
	}
	if dropped > 0 {
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
	// A scenario's level softens what its failure means.
	switch {
	case res.Outcome == Fail && p.sc.Level == "SHOULD":
		res.Outcome = Warn
	case res.Outcome == Fail && p.sc.Level == "MAY":
		res.Outcome = Skip
		res.Message = "optional behaviour not offered: " + res.Message
	}
	if res.Outcome == Warn && p.r.cfg.Strict {
		res.Outcome = Fail
		if res.Message == "" && len(res.Notes) > 0 {
			res.Message = res.Notes[0] + " (--strict)"
		}
	}
	// The transcript: what the scenario sent and what the IUT sent it.
	for _, m := range msgs {
		tok, onPeer := peerToken(m.subject, p.r.ws, p.r.ch)
		if mine[m.to()] || (onPeer && p.tokenMine(tok)) || p.in.consumed[m.seq] {
			res.Exchanged = append(res.Exchanged, entry(m, "received", ""))
		}
	}
	sort.SliceStable(res.Exchanged, func(i, j int) bool { return res.Exchanged[i].At < res.Exchanged[j].At })
}

func (p *player) tokenMine(tok string) bool {
	for _, id := range p.peerIDs {
		if agh.RouteToken(id) == tok {
			return true
		}
	}
	return false
}

func (m *message) id() string {
	if s, ok := m.env["id"].(string); ok {
		return s
	}
	return ""
}

func describeKind(m *message) string {
	if m.env == nil {
		return "bytes"
	}
	k := m.kind()
	if body, ok := m.env["body"].(map[string]any); ok {
		switch k {
		case "receipt":
			return fmt.Sprintf("receipt(%v%s)", body["status"], opt(body["reason_code"]))
		case "trace":
			return fmt.Sprintf("trace(%v)", body["state"])
		case "whois":
			return fmt.Sprintf("whois(%v)", body["type"])
		}
	}
	if k == "" {
		return "envelope"
	}
	return k
}

func opt(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(" %v", v)
}

func entry(m *message, dir, peer string) *ExchangedEntry {
	e := &ExchangedEntry{At: Millis(m.at), Direction: dir, Peer: peer, Subject: m.subject}
	if json.Valid(m.raw) && len(m.raw) <= 64<<10 {
		e.Envelope = json.RawMessage(m.raw)
	} else {
		raw := m.raw
		if len(raw) > 512 {
			raw = raw[:512]
		}
		e.Raw = fmt.Sprintf("%q (%d bytes)", raw, len(m.raw))
	}
	for _, f := range m.findings {
		e.Findings = append(e.Findings, f.String())
	}
	return e
}

func worse(a, b Outcome) Outcome {
	rank := map[Outcome]int{Pass: 0, Skip: 0, Warn: 1, Fail: 2, Error: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func (p *player) lastSeq() int {
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	if n := len(p.in.msgs); n > 0 {
		return p.in.msgs[n-1].seq
	}
	return p.mark
}

func (p *player) step(ctx context.Context, i int, st *scenario.Step) (Outcome, string, StepResult) {
	var sr StepResult
	if err := p.r.iutGone(); err != nil {
		return Fail, err.Error(), sr
	}
	switch {
	case st.Send != nil:
		// Silence is judged on what arrives after the latest send: taken
		// before publishing, since a fast IUT answers at once.
		p.mark = p.lastSeq()
		if err := p.send(ctx, st.Send); err != nil {
			var he errHarness
			if errors.As(err, &he) {
				return Error, err.Error(), sr
			}
			return Fail, err.Error(), sr
		}
		return Pass, "", sr
	case st.Expect != nil:
		return p.expect(ctx, st.Expect, &sr)
	case st.ExpectSilence != nil:
		return p.silence(ctx, st.ExpectSilence, &sr)
	default:
		select {
		case <-time.After(time.Duration(st.Wait)):
			return Pass, "", sr
		case <-ctx.Done():
			// A wait judges nothing: the harness's time limit is too short.
			return Error, "scenario timeout during wait (raise --timeout)", sr
		}
	}
}

// send builds, signs and publishes one message from a test peer.
func (p *player) send(ctx context.Context, s *scenario.Send) error {
	fromName := s.From
	if fromName == "" {
		fromName = p.sc.PeerNames()[0].Name
	}
	from := p.ctx.Peers[fromName]
	var (
		data    []byte
		subject string
		err     error
	)
	if s.Subject != "" {
		if subject, err = p.ctx.RenderString(s.Subject); err != nil {
			return errHarness{err}
		}
	}
	target := func() string {
		switch s.To {
		case "", "iut":
			return agh.PeerSubject(p.r.ws, p.r.ch, p.r.iutID)
		case "broadcast":
			return agh.BroadcastSubject(p.r.ws, p.r.ch)
		}
		return agh.PeerSubject(p.r.ws, p.r.ch, p.ctx.Peers[s.To].ID)
	}
	switch {
	case s.Raw != nil:
		txt, err := p.ctx.RenderString(*s.Raw)
		if err != nil {
			return errHarness{err}
		}
		data = []byte(txt)
		if subject == "" {
			subject = target()
		}
	case s.RawBase64 != "":
		if data, err = base64.StdEncoding.DecodeString(s.RawBase64); err != nil {
			return errHarness{err}
		}
		if subject == "" {
			subject = target()
		}
	default:
		env, err := p.envelope(s, from)
		if err != nil {
			return errHarness{err}
		}
		if subject == "" {
			if s.To == "" {
				if subject, err = agh.Subject(env); err != nil {
					subject = target()
				}
			} else {
				subject = target()
			}
		}
		if data, err = json.Marshal(env); err != nil {
			return errHarness{fmt.Errorf("encode envelope: %w", err)}
		}
	}
	n := max(s.Repeat, 1)
	for range n {
		if s.JetStream {
			if p.r.js == nil {
				return errHarness{errors.New("jetstream send without a JetStream broker")}
			}
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err = p.r.js.Publish(pctx, subject, data)
			cancel()
		} else {
			err = p.r.nc.Publish(subject, data)
		}
		if err != nil {
			return errHarness{fmt.Errorf("publish on %s: %w", subject, err)}
		}
	}
	if err := p.r.nc.Flush(); err != nil {
		return errHarness{fmt.Errorf("flush: %w", err)}
	}
	e := &ExchangedEntry{At: Millis(time.Since(p.r.start)), Direction: "sent", Peer: fromName, Subject: subject}
	if json.Valid(data) && len(data) <= 64<<10 {
		e.Envelope = json.RawMessage(data)
	} else {
		shown := data
		if len(shown) > 512 {
			shown = shown[:512]
		}
		e.Raw = fmt.Sprintf("%q (%d bytes)", shown, len(data))
	}
	if n > 1 {
		e.Raw += fmt.Sprintf(" ×%d", n)
	}
	p.res.Exchanged = append(p.res.Exchanged, e)
	return nil
}

func (p *player) envelope(s *scenario.Send, from *scenario.TestPeer) (map[string]any, error) {
	env := map[string]any{
		"protocol":     agh.Protocol,
		"id":           "msg_" + p.ctx.Tag + "_" + randomHex(4),
		"workspace_id": p.r.ws,
		"channel":      p.r.ch,
		"from":         from.ID,
		"ts":           json.Number(fmt.Sprint(p.r.now().Unix())),
		"proof":        nil,
	}
	switch s.To {
	case "iut":
		env["to"] = p.r.iutID
	case "broadcast", "":
		env["to"] = nil
	default:
		env["to"] = p.ctx.Peers[s.To].ID
	}
	over, err := p.ctx.RenderMap(s.Envelope)
	if err != nil {
		return nil, err
	}
	for k, v := range over {
		env[k] = v
	}
	for _, k := range s.Drop {
		delete(env, k)
	}
	if s.Digest {
		body, _ := env["body"].(map[string]any)
		capDoc, _ := body["capability"].(map[string]any)
		if capDoc == nil {
			return nil, errors.New("digest: the envelope has no body.capability")
		}
		d, err := agh.CapabilityDigest(capDoc)
		if err != nil {
			return nil, fmt.Errorf("digest: %w", err)
		}
		capDoc["digest"] = d
	}
	if s.Sign {
		if err := trust.Sign(env, from.Key, from.Name); err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
	}
	if s.Tamper != nil {
		t, err := p.ctx.RenderMap(s.Tamper)
		if err != nil {
			return nil, err
		}
		merge(env, t)
	}
	return env, nil
}

// merge overlays src onto dst, recursing into objects.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// where resolves an expect/silence "on" to a subject test ("" = any).
func (p *player) where(on string) (string, func(*message) bool) {
	if on == "" {
		on = p.sc.PeerNames()[0].Name
	}
	switch {
	case on == "any":
		return "any subject", func(*message) bool { return true }
	case on == "broadcast":
		s := agh.BroadcastSubject(p.r.ws, p.r.ch)
		return s, func(m *message) bool { return m.subject == s }
	case strings.HasPrefix(on, "subject:"):
		s, err := p.ctx.RenderString(strings.TrimPrefix(on, "subject:"))
		if err != nil {
			s = strings.TrimPrefix(on, "subject:")
		}
		return s, func(m *message) bool { return m.subject == s }
	}
	s := agh.PeerSubject(p.r.ws, p.r.ch, p.ctx.Peers[on].ID)
	return s, func(m *message) bool { return m.subject == s }
}

func (p *player) patterns(list []map[string]any) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(list))
	for _, pat := range list {
		r, err := p.ctx.RenderMap(pat)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (p *player) expect(ctx context.Context, e *scenario.Expect, sr *StepResult) (Outcome, string, StepResult) {
	pats, err := p.patterns(e.Patterns())
	if err != nil {
		return Error, err.Error(), *sr
	}
	sr.Expected = pats
	wantSubject, onOK := p.where(e.On)
	timeout := p.r.cfg.StepTimeout
	if e.Timeout > 0 {
		timeout = time.Duration(e.Timeout)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	seen := 0
	for {
		p.in.mu.Lock()
		var hit, misplaced *message
		for _, m := range p.in.msgs {
			if p.in.consumed[m.seq] || m.env == nil {
				continue
			}
			if anyMatch(pats, m.env) {
				if onOK(m) {
					hit = m
					break
				}
				if misplaced == nil {
					misplaced = m
				}
			}
		}
		if hit != nil {
			p.in.consumed[hit.seq] = true
		} else if misplaced != nil {
			p.in.consumed[misplaced.seq] = true
		}
		seen = len(p.in.msgs)
		p.in.mu.Unlock()
		if hit != nil {
			for name, ptr := range e.Capture {
				v, ok := scenario.Get(hit.env, ptr)
				if !ok {
					return Fail, fmt.Sprintf("matched %s but it has nothing at %s to capture as %s", describeKind(hit), ptr, name), *sr
				}
				p.ctx.Captures[name] = v
			}
			return Pass, "", *sr
		}
		if misplaced != nil {
			sr.Arrived = []string{p.describe(misplaced)}
			return Fail, fmt.Sprintf("the expected %s arrived on %s, not on %s", describeKind(misplaced), misplaced.subject, wantSubject), *sr
		}
		select {
		case <-p.in.notify:
		case <-deadline.C:
			sr.Arrived = p.unmatched(pats)
			msg := fmt.Sprintf("no matching envelope on %s within %s", wantSubject, timeout)
			if len(sr.Arrived) == 0 {
				msg += "; nothing arrived"
			}
			return Fail, msg, *sr
		case <-ctx.Done():
			sr.Arrived = p.unmatched(pats)
			return Fail, "scenario timeout while waiting for an envelope", *sr
		case <-p.r.iutDone:
			// Let the broker deliver what the IUT sent before it died.
			if seen == p.countMsgs() {
				time.Sleep(20 * time.Millisecond)
				if seen == p.countMsgs() {
					return Fail, p.r.iutGone().Error(), *sr
				}
			}
		}
	}
}

func (p *player) countMsgs() int {
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	return len(p.in.msgs)
}

func anyMatch(pats []map[string]any, env map[string]any) bool {
	for _, pat := range pats {
		if ok, _ := scenario.Match(pat, env); ok {
			return true
		}
	}
	return len(pats) == 0
}

// unmatched describes the unconsumed envelopes with the reason each fails
// the first pattern: "expected versus arrived".
func (p *player) unmatched(pats []map[string]any) []string {
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	var out []string
	for _, m := range p.in.msgs {
		if p.in.consumed[m.seq] || m.seq == p.greetSeq {
			continue
		}
		if len(out) == 8 {
			out = append(out, "…")
			break
		}
		d := p.describe(m)
		if m.env != nil && len(pats) > 0 {
			_, why := scenario.Match(pats[0], m.env)
			d += " — " + why
		}
		out = append(out, d)
	}
	return out
}

func (p *player) describe(m *message) string {
	if m.env == nil {
		return fmt.Sprintf("%d bytes that are not an envelope on %s", len(m.raw), m.subject)
	}
	return fmt.Sprintf("%s %s from %s on %s", describeKind(m), m.id(), m.from(), m.subject)
}

func (p *player) silence(ctx context.Context, s *scenario.Silence, sr *StepResult) (Outcome, string, StepResult) {
	pats, err := p.patterns(s.Patterns())
	if err != nil {
		return Error, err.Error(), *sr
	}
	sr.Expected = pats
	var onOK func(*message) bool
	if s.On == "" {
		// Default: nothing directed at this scenario's peers.
		onOK = func(m *message) bool {
			tok, ok := peerToken(m.subject, p.r.ws, p.r.ch)
			return (ok && p.tokenMine(tok)) || p.isMine(m.to())
		}
	} else {
		_, onOK = p.where(s.On)
	}
	window := time.Duration(s.Window)
	if window == 0 {
		window = p.r.cfg.SilenceWindow
	}
	cut := false
	select {
	case <-time.After(window):
	case <-ctx.Done():
		cut = true
	}
	p.in.mu.Lock()
	defer p.in.mu.Unlock()
	for _, m := range p.in.msgs {
		if m.seq <= p.mark || p.in.consumed[m.seq] || !onOK(m) {
			continue
		}
		if m.env == nil || anyMatch(pats, m.env) {
			p.in.consumed[m.seq] = true
			sr.Arrived = []string{p.describe(m)}
			return Fail, fmt.Sprintf("expected silence for %s, but the IUT sent %s", window, describeKind(m)), *sr
		}
	}
	if cut {
		// Nothing broke the silence: the harness's own time limit ended
		// the window early, so the step has no verdict on the IUT.
		return Error, fmt.Sprintf("scenario timeout during a %s silence window (raise --timeout)", window), *sr
	}
	return Pass, "", *sr
}

func (p *player) isMine(id string) bool {
	for _, x := range p.peerIDs {
		if x == id {
			return true
		}
	}
	return false
}

var _ = nats.ErrTimeout
