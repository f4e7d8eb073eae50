package peer

import (
	"fmt"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
)

var capabilityDigest = agh.CapabilityDigest

// legal reports whether the target may report next after state: the
// protocol's transition table (agh.CanTransition), less a repeated
// "submitted", which a target never reports once it holds the work.
func legal(state, next string) bool {
	return next != agh.StateSubmitted && agh.CanTransition(state, next)
}

// work is one unit of work where this peer is the target.
type work struct {
	initiator string
	where     container
	state     string
	updated   time.Time
}

// lifecycle applies a directed say/capability/receipt/trace that carries a
// work_id to the work it names.
func (p *peer) lifecycle(env map[string]any) {
	wid, _ := env["work_id"].(string)
	from, _ := env["from"].(string)
	kind, _ := env["kind"].(string)
	c := p.containerOf(env)
	if wid == "" || c == nil {
		return
	}
	w := p.work[wid]
	if p.staleWork() {
		// racy-dedupe: a copy of the opening that slipped through finds
		// the work table as it was when it arrived.
		w = nil
	}
	if w == nil {
		if kind == "say" || kind == "capability" {
			p.open(env, wid, c)
		}
		// Receipts and traces for work we never saw: nothing to change.
		return
	}
	if *c != w.where && !p.faults[faultIgnoreContainer] {
		if p.faults[faultMismatchInWork] && kind != "receipt" && kind != "trace" {
			// The receipt reports on the work it refuses the message
			// for, in that work's container (erratum 14).
			p.receipt(env, &w.where, "rejected", "work_container_mismatch", "", false)
			return
		}
		p.refuse(env, "work_container_mismatch", nil)
		return
	}
	if from != w.initiator && !p.faults[faultAnyParticipant] {
		// Only the two participants may move the work.
		p.refuse(env, "not_target", nil)
		return
	}
	w.updated = p.now()
	body, _ := env["body"].(map[string]any)
	switch kind {
	case "receipt":
		if body["status"] != "canceled" {
			return
		}
		p.cancel(env, w)
	case "trace":
		if agh.IsTerminal(w.state) {
			p.receipt(env, &w.where, "rejected", "work_closed", "work is "+w.state, false)
		}
		// The initiator does not report progress on our work: ignored.
	case "say", "capability":
		p.continuation(env, w)
	}
}

func (p *peer) open(env map[string]any, wid string, c *container) {
	from, _ := env["from"].(string)
	// Kept for an hour: its own copies, not the memory of the whole message.
	where := container{strings.Clone(c.surface), strings.Clone(c.id), strings.Clone(c.loose)}
	if p.faults[faultWorkByArrival] {
		where = p.byArrival(from, where)
	}
	w := &work{initiator: strings.Clone(from), where: where, state: agh.StateSubmitted, updated: p.now()}
	p.work[strings.Clone(wid)] = w
	if p.faults[faultNoCapabilityWork] && env["kind"] == agh.KindCapability {
		// It offers no capability: it refuses the work (Message Kinds
		// §Reason codes, not_found), as a peer may.
		w.state = agh.StateFailed
		p.receipt(env, c, "rejected", "not_found", "no capability is offered here", false)
		return
	}
	ext, _ := env["ext"].(map[string]any)
	if p.faults[faultRejectUnknownExt] {
		for k := range ext {
			if k != control.Name {
				w.state = agh.StateFailed
				p.receipt(env, c, "rejected", "malformed", "unknown extension "+k, true)
				return
			}
		}
	}
	if raw, ok := ext[control.Name]; ok && !p.cfg.NoControl {
		s, err := parseScript(raw, true)
		if err == nil {
			err = s.check(w.state)
		}
		if err != nil {
			w.state = agh.StateFailed
			p.receipt(env, c, "rejected", "malformed", control.Name+": "+err.Error(), false)
			return
		}
		p.play(env, w, s)
		return
	}
	// With faultStreamAck the transport's acknowledgement of a publish
	// that awaits one (a JetStream publish) stands in for the receipt.
	if !p.faults[faultNoAcceptedReceipt] && (p.inbox == "" || !p.faults[faultStreamAck]) {
		p.receipt(env, c, "accepted", "", "", p.faults[faultAcceptMalformed])
	}
	p.trace(env, w, map[string]any{"state": agh.StateWorking}, p.faults[faultAcceptMalformed])
	if p.cfg.LongWork {
		return // still working, for as long as it takes
	}
	if p.live.pace > 0 {
		// pace:DURATION: the work stays open while the peer reads on, as
		// a runtime's does while it thinks; Run's loop completes it.
		time.AfterFunc(p.live.pace, func() {
			select {
			case p.due <- func() { p.complete(env, w) }:
			case <-p.quit:
			}
		})
		return
	}
	p.complete(env, w)
}

// complete ends work the peer did on its own with its echo; work that
// ended meanwhile (a cancel, under pace:DURATION) is left as it is.
func (p *peer) complete(env map[string]any, w *work) {
	if agh.IsTerminal(w.state) {
		return
	}
	p.beforeCompleting(env, w)
	p.trace(env, w, map[string]any{"state": agh.StateCompleted, "result": echoResult(env)}, p.faults[faultAcceptMalformed])
	p.afterCompleting(env, w)
}

// continuation handles a say/capability from the initiator on open work.
func (p *peer) continuation(env map[string]any, w *work) {
	if agh.IsTerminal(w.state) {
		if p.faults[faultReopenTerminal] && w.state == agh.StateCompleted {
			p.receipt(env, &w.where, "accepted", "", "", true)
			p.trace(env, w, map[string]any{"state": agh.StateWorking}, true)
			return
		}
		if !p.faults[faultClosedSilent] {
			p.receipt(env, &w.where, "rejected", "work_closed", "work is "+w.state, false)
		}
		return
	}
	ext, _ := env["ext"].(map[string]any)
	if raw, ok := ext[control.Name]; ok && !p.cfg.NoControl {
		s, err := parseScript(raw, false)
		if err == nil {
			err = s.check(w.state)
		}
		if err != nil {
			p.receipt(env, &w.where, "rejected", "malformed", control.Name+": "+err.Error(), false)
			return
		}
		p.play(env, w, s)
		return
	}
	if w.state != agh.StateNeedsInput || p.faults[faultNeedsInputStuck] {
		// Work that is not waiting for input takes the message as
		// conversation; the lifecycle does not move.
		return
	}
	p.trace(env, w, map[string]any{"state": agh.StateWorking}, false)
	if p.cfg.LongWork {
		return
	}
	p.trace(env, w, map[string]any{"state": agh.StateCompleted, "result": echoResult(env)}, false)
}

// cancel applies the initiator's receipt status=canceled.
func (p *peer) cancel(env map[string]any, w *work) {
	switch {
	case w.state == agh.StateCanceled && !p.faults[faultCancelNotIdem]:
		// Cancellation is idempotent: already done, nothing new to say.
	case w.state == agh.StateCanceled:
		p.trace(env, w, map[string]any{"state": agh.StateCanceled}, true)
	case agh.IsTerminal(w.state):
		p.receipt(env, &w.where, "rejected", "work_closed", "work is "+w.state, false)
	default:
		p.trace(env, w, map[string]any{"state": agh.StateCanceled, "message": "canceled by the initiator"}, false)
	}
}

// trace moves w to body["state"] and reports it to the initiator, caused
// by trigger.
func (p *peer) trace(trigger map[string]any, w *work, body map[string]any, deliberate bool) {
	w.state = strings.Clone(body["state"].(string))
	env := p.reply("trace", trigger, &w.where, body)
	env["to"] = w.initiator
	p.publish(env, deliberate, nil)
}

func echoResult(env map[string]any) map[string]any {
	body, _ := env["body"].(map[string]any)
	if env["kind"] == "capability" {
		c, _ := body["capability"].(map[string]any)
		return map[string]any{"echo": c["id"]}
	}
	return map[string]any{"echo": body["text"]}
}

// script is a parsed control extension: an optional receipt, then traces.
type script struct {
	receipt, reason string
	traces          []map[string]any
}

// parseScript reads ext["aghcheck.control/v1"]. An opening always gets a
// receipt (accepted unless scripted otherwise); a continuation only when
// the script names one.
func parseScript(raw any, opening bool) (*script, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an object")
	}
	for _, k := range []string{control.RequestInitiate, control.RequestContinue, control.RequestCancel} {
		if _, ok := m[k]; ok {
			return nil, fmt.Errorf("%s is a control request, which goes on a say without work_id", k)
		}
	}
	s := &script{}
	switch r := m["receipt"].(type) {
	case nil:
		if opening {
			s.receipt = "accepted"
		}
	case string:
		if r != "accepted" && r != "rejected" {
			return nil, fmt.Errorf("receipt %q: want accepted or rejected", r)
		}
		s.receipt = r
	default:
		return nil, fmt.Errorf("receipt: want a string")
	}
	if rc, present := m["reason_code"]; present {
		str, ok := rc.(string)
		if !ok || str == "" || s.receipt != "rejected" {
			return nil, fmt.Errorf("reason_code goes with receipt rejected, as a non-empty string")
		}
		s.reason = str
	} else if s.receipt == "rejected" {
		s.reason = "busy"
	}
	if ts, present := m["traces"]; present {
		list, ok := ts.([]any)
		if !ok {
			return nil, fmt.Errorf("traces: want an array")
		}
		for i, t := range list {
			tm, ok := t.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("traces[%d]: want an object", i)
			}
			body := map[string]any{}
			st, _ := tm["state"].(string)
			body["state"] = st
			if v, ok := tm["message"]; ok {
				if _, isStr := v.(string); !isStr {
					return nil, fmt.Errorf("traces[%d].message: want a string", i)
				}
				body["message"] = v
			}
			if v, ok := tm["result"]; ok {
				if _, isObj := v.(map[string]any); !isObj {
					return nil, fmt.Errorf("traces[%d].result: want an object", i)
				}
				body["result"] = v
			}
			if v, ok := tm["artifact_refs"]; ok {
				if _, isArr := v.([]any); !isArr {
					return nil, fmt.Errorf("traces[%d].artifact_refs: want an array", i)
				}
				body["artifact_refs"] = v
			}
			s.traces = append(s.traces, body)
		}
	}
	return s, nil
}

// check walks the script from state and refuses one that would break the
// lifecycle: the reference peer never emits an illegal transition.
func (s *script) check(state string) error {
	state = s.afterReceipt(state)
	for i, t := range s.traces {
		next := t["state"].(string)
		if !legal(state, next) {
			return fmt.Errorf("traces[%d]: %s cannot follow %s", i, quoteState(next), state)
		}
		state = next
	}
	return nil
}

func quoteState(s string) string {
	if s == "" {
		return "a missing state"
	}
	return fmt.Sprintf("%q", s)
}

// afterReceipt is the state a scripted receipt leaves the work in: on an
// opening, accepted starts it and rejected fails it; a receipt on a
// continuation acknowledges the message without moving the work.
func (s *script) afterReceipt(state string) string {
	if state != agh.StateSubmitted {
		return state
	}
	switch s.receipt {
	case "accepted":
		return agh.StateWorking
	case "rejected":
		return agh.StateFailed
	}
	return state
}

func (p *peer) play(env map[string]any, w *work, s *script) {
	if s.receipt != "" {
		p.receipt(env, &w.where, s.receipt, s.reason, "", false)
		w.state = s.afterReceipt(w.state)
	}
	for _, t := range s.traces {
		p.trace(env, w, t, false)
	}
}
