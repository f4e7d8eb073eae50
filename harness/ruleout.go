package harness

import (
	"fmt"
	"maps"
	"slices"

	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// An expect step ends on its match, or on an answer that rules the match
// out: the IUT's own answer to the message or work the step waits on, of a
// kind no later message can undo. That answer is the evidence, and no
// ceiling needs to run out. Only what the pages make final counts:
//
//   - a receipt answers one publication: once every publication of a
//     message has had its receipt, one the step's pattern does not take
//     (another status, or a refusal with another reason_code) rules out
//     the one it waits for;
//   - a refusal receipt of the message that opened a work (of each copy,
//     when it was sent more than once) rules out any trace or acceptance
//     of that work (refused work is never worked on),
//     and a trace of that work rules out its refusal (it was worked on);
//     a terminal trace of it, where the step looks, rules out an
//     acceptance of that message too (terminal work is final);
//   - a terminal trace (completed, failed, canceled) is final: it rules out
//     another state of the same work, and, where it is the trace the step
//     waits for in all but its body (the same work, container and
//     addressee, a state the step takes), a body the step does not take
//     (a completed trace without the detail the step asks for);
//   - a refusal receipt of the last needs_input trace the scenario sent on
//     a work (sent once) rules out the say of that work that would answer
//     it (a refused message is not acted on);
//   - the IUT cancels work it opened once (docs/control-extension.md):
//     a canceled trace it sent on that work, where its canceled receipt
//     is awaited, was that cancel, in the target's kind;
//   - an opening answers an initiation order, once (docs/control-extension.md):
//     once the IUT has opened as many works on a target's subject as the
//     scenario ordered there, of that kind, an opening that matches no
//     pattern rules out the opening the step waits for there (a pattern
//     of that kind from the IUT with no literal work_id).
//
// A pattern that names nothing these rules read (a literal for_id or
// work_id, the statuses it takes, an opening's kind) is never ruled out:
// then the step waits as before.

// refusalStatuses are the receipt statuses that refuse a message.
var refusalStatuses = []string{"rejected", "expired", "duplicate", "unsupported"}

// terminalStates are the trace states no later message reopens.
var terminalStates = []string{"completed", "failed", "canceled"}

// allowed reads a pattern member that names the values it takes: a
// literal string or {$in: [strings]}; ok is false for anything else.
func allowed(v any) (vals []string, ok bool) {
	switch t := v.(type) {
	case string:
		return []string{t}, true
	case map[string]any:
		list, isList := t["$in"].([]any)
		if len(t) != 1 || !isList {
			return nil, false
		}
		for _, x := range list {
			s, isStr := x.(string)
			if !isStr {
				return nil, false
			}
			vals = append(vals, s)
		}
		return vals, true
	}
	return nil, false
}

// sentOnce reports whether id was sent exactly once by the scenario: an
// answer to it is then an answer to that send, not to a retry.
func (w *waiter) sentOnce(id string) bool {
	n := 0
	for _, s := range w.sends {
		if len(s.ids) > 0 && s.ids[0] == id {
			n += s.times
		}
	}
	return n == 1
}

// answeredAll reports whether the IUT has sent as many receipts for id as
// id was published: each publication has had its answer, so one that
// matches no pattern is the IUT's last word (a repeat is answered too, as
// duplicate or otherwise). Inbox lock held.
func (w *waiter) answeredAll(id string) bool {
	sent := 0
	for _, s := range w.sends {
		if len(s.ids) > 0 && s.ids[0] == id {
			sent += s.times
		}
	}
	got := 0
	for _, m := range w.in.msgs {
		if m.kind() == "receipt" && member(m.env, []string{"body", "for_id"}) == id {
			got++
		}
	}
	return sent > 0 && got >= sent
}

// allRefused reports whether every publication of id has had its receipt
// and each was a refusal, one at least not a duplicate: no copy of it was
// taken, so the work it carried is never worked on. Inbox lock held.
func (w *waiter) allRefused(id string) bool {
	if !w.answeredAll(id) {
		return false
	}
	refused := false
	for _, m := range w.in.msgs {
		if m.kind() != "receipt" || member(m.env, []string{"body", "for_id"}) != id {
			continue
		}
		st, _ := member(m.env, []string{"body", "status"}).(string)
		if !slices.Contains(refusalStatuses, st) {
			return false
		}
		refused = refused || st != "duplicate"
	}
	return refused
}

// carried is the one work the send id carried, "" when it carried none
// or several.
func (w *waiter) carried(id string) string {
	for _, s := range w.sends {
		if len(s.ids) == 2 && s.ids[0] == id {
			return s.ids[1]
		}
	}
	return ""
}

// carrier is the id of the one message that carried work (sent once or
// more), "" when none or several did (a follow-up on the same work opens
// it again when the first message was refused).
func (w *waiter) carrier(work string) string {
	id := ""
	for _, s := range w.sends {
		if len(s.ids) > 1 && slices.Contains(s.ids[1:], work) {
			if id != "" && id != s.ids[0] {
				return ""
			}
			id = s.ids[0]
		}
	}
	return id
}

// contradicts reports whether m, an IUT answer that matches no pattern of
// the step, rules out pattern p; here is whether m came where the step
// looks.
func (w *waiter) contradicts(p map[string]any, m *message, here bool) bool {
	pk, _ := p["kind"].(string)
	body, _ := p["body"].(map[string]any)
	mbody, _ := m.env["body"].(map[string]any)
	mwork, _ := m.env["work_id"].(string)
	switch pk {
	case "receipt":
		if m.kind() == "trace" && w.cancelSentAsTrace(p, m) {
			return true
		}
		forID, _ := body["for_id"].(string)
		if forID == "" {
			return false
		}
		work, _ := p["work_id"].(string)
		switch m.kind() {
		case "receipt":
			// m matches no pattern: another status, or the right status
			// with another reason_code or work. Once every publication
			// has had its receipt, no other will come.
			return mbody["for_id"] == forID && w.answeredAll(forID)
		case "trace":
			statuses, ok := allowed(body["status"])
			if _, named := body["status"]; !named {
				// Any answer: an acceptance or a refusal (a receiver
				// sends no canceled receipt for work it was sent).
				statuses, ok = append([]string{"accepted"}, refusalStatuses...), true
			}
			if !ok {
				return false
			}
			if work == "" {
				work = w.carried(forID)
			}
			if work == "" || mwork != work || w.carrier(work) != forID {
				return false
			}
			st, _ := mbody["state"].(string)
			for _, want := range statuses {
				switch {
				case slices.Contains(refusalStatuses, want) && w.sentOnce(forID):
					// Worked on: the refusal of the message that opened
					// the work will not come (a copy of it may be
					// refused as a duplicate).
				case want == "accepted" && here && slices.Contains(terminalStates, st):
					// Terminal work is final: an acceptance of its
					// opening (of any copy of it) after the terminal
					// trace would move it again. Only where the step
					// looks, so that the two came in the order the IUT
					// sent them.
				default:
					return false
				}
			}
			return true
		}
	case "say", "capability":
		if w.openingRuledOut(p, m) {
			return true
		}
		if pk != "say" {
			return false
		}
		// The question the continuation would answer was refused.
		work, _ := p["work_id"].(string)
		forID, _ := mbody["for_id"].(string)
		st, _ := mbody["status"].(string)
		return m.kind() == "receipt" && work != "" && forID != "" && w.question[work] == forID &&
			slices.Contains(refusalStatuses, st) && w.sentOnce(forID)
	case "trace":
		work, _ := p["work_id"].(string)
		if work == "" {
			return false
		}
		switch m.kind() {
		case "trace":
			states, ok := allowed(body["state"])
			st, _ := mbody["state"].(string)
			if mwork != work || !slices.Contains(terminalStates, st) {
				return false
			}
			return (ok && !slices.Contains(states, st)) || scenario.Matches(withoutBody(p), m.env)
		case "receipt":
			// The message that opened the work was refused: it has no work.
			forID, _ := mbody["for_id"].(string)
			st, _ := mbody["status"].(string)
			if forID == "" || !slices.Contains(refusalStatuses, st) || w.carrier(work) != forID {
				return false
			}
			// Sent once, or each copy answered and every answer a refusal.
			return w.sentOnce(forID) || w.allRefused(forID)
		}
	}
	return false
}

// withoutBody is pattern p less its body: what places a trace (its work,
// container, addressee, cause).
func withoutBody(p map[string]any) map[string]any {
	q := maps.Clone(p)
	delete(q, "body")
	return q
}

// ruledOut is the first unconsumed IUT answer where the step looks (onOK)
// that rules out every pattern of an expect step (nil when none does).
func (w *waiter) ruledOut(pats []map[string]any, onOK func(*message) bool) *message {
	if len(pats) == 0 {
		return nil
	}
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	for _, m := range w.in.msgs {
		if m.seq <= w.floor || w.in.consumed[m.seq] || m.env == nil || anyMatch(pats, m.env) {
			continue
		}
		here := onOK(m)
		if k := m.kind(); k != "receipt" && k != "trace" && !(here && (k == "say" || k == "capability")) {
			continue
		}
		all := true
		for _, p := range pats {
			if !w.contradicts(p, m, here) {
				all = false
				break
			}
		}
		if all {
			return m
		}
	}
	return nil
}

// ruledOutMessage says why a step failed before its ceiling.
func ruledOutMessage(m *message, pats []map[string]any) string {
	return fmt.Sprintf("the IUT answered with %s, which rules out the %s the step waits for", m.label(), expected(pats)[len("matching "):])
}

// An answer that arrived elsewhere. The IUT answers a message once: one
// whois response per request (reply_to), one receipt per publication
// (body.for_id). When that answer comes on a subject other than the one
// the step looks at, the match is ruled out as surely as by a refusal,
// whether or not the rest of it matches the step's pattern (a response
// broadcast with to null matches no pattern that names the requester):
// the step ends at once and names the subject it came on. Traces are
// many per work, so a trace elsewhere rules nothing out (the passive
// subject rule judges it).

// answersAwaited reports whether m, an IUT envelope matching none of pats,
// is the one answer to the message a pattern of pats waits on: the kind
// the pattern names, and the reply_to or receipt for_id it names literally,
// of a message the scenario sent once.
func (w *waiter) answersAwaited(pats []map[string]any, m *message) bool {
	for _, p := range pats {
		pk, _ := p["kind"].(string)
		if pk == "" || pk != m.kind() {
			continue
		}
		if r, ok := p["reply_to"].(string); ok && r != "" && m.env["reply_to"] == r && w.sentOnce(r) {
			return true
		}
		body, _ := p["body"].(map[string]any)
		if f, ok := body["for_id"].(string); ok && f != "" && pk == "receipt" && member(m.env, []string{"body", "for_id"}) == f && w.sentOnce(f) {
			return true
		}
	}
	return false
}

// elsewhereMessage says why a step failed on an answer that came on
// another subject.
func elsewhereMessage(m *message, subject string, pats []map[string]any) string {
	return fmt.Sprintf("the IUT answered on %s, not on %s: its %s answers the message the step waits on, which rules out the %s", m.subject, subject, m.label(), expected(pats)[len("matching "):])
}

// asksForInput reports whether a send step is a needs_input trace: what
// the IUT, as the initiator, answers with a continuation.
func asksForInput(s *scenario.Send) bool {
	if s == nil || s.Envelope == nil {
		return false
	}
	body, _ := s.Envelope["body"].(map[string]any)
	return s.Envelope["kind"] == "trace" && body["state"] == "needs_input"
}

// An initiation order the scenario gave: the IUT opens its work once, on
// the target's peer subject.
type order struct {
	subject, kind, text string
}

// noteOrder records an initiate step's order, to the target whose peer
// subject is subject.
func (w *waiter) noteOrder(subject string, o control.Order) {
	w.orders = append(w.orders, order{subject: subject, kind: o.Kind, text: o.Text})
}

// openingRuledOut reports whether m, an IUT envelope matching no pattern,
// is an opening that rules out p: p waits for an opening of m's kind (no
// literal work_id, from the IUT, a say's text the order's if it names
// one), m is one (see opening), and every order of its kind to its
// target has had its opening. Inbox lock held.
func (w *waiter) openingRuledOut(p map[string]any, m *message) bool {
	kind := m.kind()
	if pk, _ := p["kind"].(string); pk != kind || p["from"] != w.tctx.IUT {
		return false
	}
	if _, literal := p["work_id"].(string); literal {
		return false
	}
	o := w.opening(m)
	if o == nil {
		return false
	}
	if body, ok := p["body"].(map[string]any); ok {
		if text, ok := body["text"].(string); ok && text != o.text {
			return false
		}
	}
	ordered, opened := 0, map[string]bool{}
	for _, x := range w.orders {
		if x.subject == m.subject && x.kind == kind {
			ordered++
		}
	}
	for _, n := range w.in.msgs {
		if n.kind() == kind && n.subject == m.subject && w.opening(n) != nil {
			work, _ := n.env["work_id"].(string)
			opened[work] = true
		}
	}
	return ordered > 0 && len(opened) >= ordered
}

// opening is the order m opens work for, or nil: m is from the IUT, on
// the subject of an order of its kind, and is the first envelope the IUT
// sent under a work_id the scenario had not sent before it came (one of
// its own making, which the scenario's answers then carry).
// Inbox lock held.
func (w *waiter) opening(m *message) *order {
	work, _ := m.env["work_id"].(string)
	if work == "" || m.env["from"] != w.tctx.IUT {
		return nil
	}
	for _, s := range w.sends {
		if len(s.ids) > 1 && slices.Contains(s.ids[1:], work) && s.after < m.seq {
			return nil // sent before m came: the scenario's work, not the IUT's
		}
	}
	for _, n := range w.in.msgs {
		if n.seq < m.seq && member(n.env, []string{"work_id"}) == work {
			return nil // an earlier message of the work: m is not its opening
		}
	}
	for i := range w.orders {
		if o := &w.orders[i]; o.subject == m.subject && o.kind == m.kind() {
			return o
		}
	}
	return nil
}

// cancelSentAsTrace reports whether m, a trace, is the IUT's cancel of
// work it opened sent in the target's kind, where p waits for its canceled
// receipt: p asks for status canceled only, from the IUT, on a literal
// work; m is from the IUT, on that work, state canceled; and the IUT
// opened the work. Inbox lock held.
func (w *waiter) cancelSentAsTrace(p map[string]any, m *message) bool {
	body, _ := p["body"].(map[string]any)
	statuses, ok := allowed(body["status"])
	work, _ := p["work_id"].(string)
	if !ok || !slices.Equal(statuses, []string{"canceled"}) || work == "" || p["from"] != w.tctx.IUT {
		return false
	}
	mbody, _ := m.env["body"].(map[string]any)
	if m.env["from"] != w.tctx.IUT || m.env["work_id"] != work || mbody["state"] != "canceled" {
		return false
	}
	return slices.ContainsFunc(w.in.msgs, func(n *message) bool {
		return n.env["work_id"] == work && w.opening(n) != nil
	})
}
