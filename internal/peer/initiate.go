package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/randid"
)

// The peer as the initiator of work (docs/control-extension.md,
// "Initiation"): it opens work when an order says so, at start-up when the
// order's target greets or in band on a control request, and then acts on
// what the target reports as every initiator must: a continuation for each
// needs_input it is told to answer, a cancel at the state it is told to
// cancel at, nothing at all once the work is terminal.

// defaultOpeningText is the text of a say opening whose order names none:
// a say's text must not be empty.
const defaultOpeningText = "aghcheck peer: work for you"

// initiated is one unit of work this peer opened as its initiator.
type initiated struct {
	order   control.Order
	workID  string
	opening string // the opening's id: the for_id of a cancel
	where   container
	state   string
	// closed is set by a work_closed refusal: the target holds the work
	// terminal, whatever state the peer last saw.
	closed bool
	// canceled is set once a cancel went out (cancel_on cancels once).
	canceled bool
	// deliberate marks work an init- fault opened broken on purpose:
	// everything sent on it bypasses the outbound self-check, which would
	// otherwise drop it for the same fault (a bad work_id, say).
	deliberate bool
	updated    time.Time
}

func (w *initiated) terminal() bool { return w.closed || agh.IsTerminal(w.state) }

// ordersFor carries out, once per greet, every start-up order whose target
// is the peer that just greeted on the broadcast subject.
func (p *peer) ordersFor(greeter string) {
	if p.cfg.NoOrders {
		return
	}
	for _, o := range p.cfg.orders {
		if o.To == greeter {
			p.orderOrComplain("start-up order for "+o.To, o)
		}
	}
}

// orderOrComplain opens the work o asks for, or says on stderr, in one
// line, why it cannot.
func (p *peer) orderOrComplain(what string, o control.Order) {
	if err := p.initiate(o); err != nil {
		p.complain(what, err)
	}
}

// complain reports an order or request the peer does not carry out: one
// line on the IUT's standard error, as the extension asks.
func (p *peer) complain(what string, err error) {
	fmt.Fprintf(p.cfg.Stderr, "%s: %s ignored: %v\n", control.Name, what, err)
	p.log.Info("ignored", "what", what, "err", err)
}

// initiate sends the opening of a new unit of work, as the order o asks.
func (p *peer) initiate(o control.Order) error {
	w := &initiated{order: o, state: agh.StateSubmitted, updated: p.now(), workID: "work_" + randid.Hex(8)}
	if p.faults[faultInitBadWorkID] {
		w.workID, w.deliberate = "job/"+randid.Hex(8), true
	}
	switch o.Surface {
	case agh.SurfaceThread:
		w.where = container{surface: agh.SurfaceThread, id: "thread_" + randid.Hex(8)}
	case agh.SurfaceDirect:
		id, err := p.directWith(o.To)
		if err != nil {
			return err
		}
		w.where = container{surface: agh.SurfaceDirect, id: id}
		w.deliberate = w.deliberate || p.faults[faultInitDirectUnsorted] || p.faults[faultInitDirectReversed]
	default:
		return fmt.Errorf("surface %q is not thread or direct", o.Surface)
	}
	var body map[string]any
	switch o.Kind {
	case agh.KindSay:
		text := o.Text
		if text == "" {
			text = defaultOpeningText
		}
		body = map[string]any{"text": text}
	case agh.KindCapability:
		c, err := p.capabilityOf(o.Capability)
		if err != nil {
			return err
		}
		body = map[string]any{"capability": c}
		w.deliberate = w.deliberate || p.faults[faultInitBadDigest]
	default:
		return fmt.Errorf("kind %q is not say or capability", o.Kind)
	}
	env := p.envelope(o.Kind, body)
	w.opening = env["id"].(string)
	env["to"], env["work_id"] = o.To, w.workID
	w.where.apply(env)
	if o.ExpiresIn > 0 {
		ts := env["ts"].(int64)
		env["expires_at"] = ts + int64(o.ExpiresIn)
		if p.faults[faultInitExpiresMS] {
			env["expires_at"], w.deliberate = ts*1000+int64(o.ExpiresIn)*1000, true
		}
	}
	subject := "" // the target's peer subject, as to calls for
	if p.faults[faultInitUndirected] {
		env["to"], subject, w.deliberate = nil, p.peerSubject(o.To), true
	}
	if p.faults[faultInitWrongSubject] {
		subject, w.deliberate = p.broadcast, true
	}
	p.initiated[w.workID] = w
	p.log.Debug("initiating", "work_id", w.workID, "to", o.To, "kind", o.Kind, "surface", o.Surface)
	p.publishOn(subject, env, w.deliberate, nil)
	return nil
}

// directWith is the direct_id of this peer and target: the pair sorted
// byte-wise, unless an init-direct fault forgets the sort.
func (p *peer) directWith(target string) (string, error) {
	ws, ch := p.cfg.Workspace, p.cfg.Channel
	switch {
	case target == p.self:
		return "", errors.New("a direct room needs two different peers, and to is this peer")
	case p.faults[faultInitDirectUnsorted]:
		return agh.DirectIDInOrder(ws, ch, p.self, target), nil
	case p.faults[faultInitDirectReversed]:
		return agh.DirectIDInOrder(ws, ch, target, p.self), nil
	}
	return agh.DirectID(ws, ch, p.self, target)
}

// capabilityOf is an order's capability with the digest the peer computes
// in place of any given.
func (p *peer) capabilityOf(given map[string]any) (map[string]any, error) {
	c := jsonx.Copy(given).(map[string]any)
	delete(c, "digest")
	hashed := c
	if p.faults[faultInitBadDigest] {
		// The digest of another document: the id upper-cased (or, when
		// that changes nothing, suffixed).
		hashed = jsonx.Copy(c).(map[string]any)
		id, _ := c["id"].(string)
		if up := strings.ToUpper(id); up != id {
			hashed["id"] = up
		} else {
			hashed["id"] = id + "_X"
		}
	}
	d, err := capabilityDigest(hashed)
	if err != nil {
		return nil, fmt.Errorf("capability digest: %w", err)
	}
	c["digest"] = d
	return c, nil
}

// onWork starts a message of w from this peer to its target, in its
// container, caused by cause when there is one.
func (p *peer) onWork(w *initiated, kind string, body map[string]any, cause map[string]any) map[string]any {
	env := p.envelope(kind, body)
	env["to"], env["work_id"] = w.order.To, w.workID
	w.where.apply(env)
	if id := agh.Str(cause, "id"); id != "" {
		env["causation_id"] = id
	}
	return env
}

// continueWork sends the target a continuation say on w.
func (p *peer) continueWork(w *initiated, text string, cause map[string]any, deliberate bool) {
	env := p.onWork(w, agh.KindSay, map[string]any{"text": text}, cause)
	if p.faults[faultInitContinueNewThread] {
		delete(env, "direct_id")
		env["surface"], env["thread_id"] = agh.SurfaceThread, "thread_"+randid.Hex(8)
		deliberate = true
	}
	p.publish(env, deliberate || w.deliberate, nil)
}

// cancelWork asks the target to cancel w: a receipt with status canceled
// for the opening.
func (p *peer) cancelWork(w *initiated, cause map[string]any) {
	w.canceled = true
	if p.faults[faultInitCancelAsTrace] {
		p.publish(p.onWork(w, agh.KindTrace, map[string]any{"state": agh.StateCanceled}, cause), true, nil)
		return
	}
	env := p.onWork(w, agh.KindReceipt, map[string]any{"for_id": w.opening, "status": agh.StatusCanceled}, cause)
	p.publish(env, w.deliberate, nil)
}

// initiatedFor is the work this peer initiated that env names by its
// work_id, or nil.
func (p *peer) initiatedFor(env map[string]any) *initiated {
	return p.initiated[agh.Str(env, "work_id")]
}

// asInitiator takes a message on work this peer initiated, once handle has
// refused what the engine refuses, what is addressed to another peer and
// what it has seen before: only the target, in the work's container, moves
// the work.
func (p *peer) asInitiator(env map[string]any, w *initiated) {
	if c := containerOf(env); c == nil || *c != w.where {
		p.refuse(env, agh.ReasonWorkContainerMismatch, nil)
		return
	}
	if agh.Str(env, "from") != w.order.To {
		p.refuse(env, agh.ReasonNotTarget, nil)
		return
	}
	p.applyReport(env, w)
}

// applyReport applies the target's receipt or trace to w; a say or
// capability from the target on the work is conversation, and moves
// nothing.
func (p *peer) applyReport(env map[string]any, w *initiated) {
	w.updated = p.now()
	body, _ := env["body"].(map[string]any)
	switch agh.Str(env, "kind") {
	case agh.KindReceipt:
		p.initiatorReceipt(env, w, body)
	case agh.KindTrace:
		state, _ := body["state"].(string)
		p.initiatorTrace(env, w, state)
	}
}

// initiatorReceipt applies a receipt: accepted starts the work, a refusal
// of the opening fails it, work_closed (for any message of the work) closes
// it, duplicate changes nothing.
func (p *peer) initiatorReceipt(env map[string]any, w *initiated, body map[string]any) {
	status, _ := body["status"].(string)
	reason, _ := body["reason_code"].(string)
	// init-lax reads a receipt that names no message as one of the
	// opening: it is about the work, and the work is all it looks at.
	onOpening := body["for_id"] == w.opening || p.faults[faultInitLax] && body["for_id"] == nil
	ignoreRefusal := p.faults[faultInitIgnoreRefusal]
	switch {
	case w.terminal():
		// Terminal work is final.
	case status == agh.StatusDuplicate:
		if p.faults[faultInitDuplicateFails] {
			w.state = agh.StateFailed
		}
	case reason == agh.ReasonWorkClosed && !ignoreRefusal:
		w.closed = true
	case onOpening && (status == agh.StatusAccepted || (ignoreRefusal && isRefusal(status))):
		// init-ignore-refusal takes any receipt of the opening for its
		// acknowledgement: the work goes on.
		if w.state == agh.StateSubmitted {
			w.state = agh.StateWorking
			p.cancelOn(w, agh.StateWorking, env)
		}
	case onOpening && isRefusal(status):
		w.state = agh.StateFailed
	}
}

// isRefusal reports whether a receipt status refuses the message it names
// (the refusals that fail an opening; duplicate changes nothing).
func isRefusal(status string) bool {
	return status == agh.StatusRejected || status == agh.StatusExpired || status == agh.StatusUnsupported
}

// initiatorTrace applies a trace: a legal transition moves the work, and
// the order's answer and cancel_on act on the state reached.
func (p *peer) initiatorTrace(env map[string]any, w *initiated, state string) {
	answer := w.order.Answer
	if w.terminal() {
		if p.faults[faultInitAfterTerminal] && state == agh.StateNeedsInput && answer != "" {
			p.continueWork(w, answer, env, true)
		}
		return
	}
	if !legal(w.state, state) {
		p.log.Debug("ignored: not a legal transition", "work_id", w.workID, "from", w.state, "to", state)
		return
	}
	w.state = state
	if p.cancelOn(w, state, env) || w.canceled && !p.faults[faultInitAfterTerminal] {
		return // work it canceled is over for it: init-after-terminal answers all the same
	}
	if state == agh.StateNeedsInput && answer != "" {
		p.continueWork(w, answer, env, false)
	}
}

// cancelOn cancels w, once, when state is the order's cancel_on, and
// reports whether it did.
func (p *peer) cancelOn(w *initiated, state string, cause map[string]any) bool {
	if w.order.CancelOn != state || w.canceled {
		return false
	}
	p.cancelWork(w, cause)
	return true
}

// laxApply is init-lax: a receipt or trace naming work this peer initiated
// (by work_id, or a receipt by for_id) is applied before any validation,
// whoever sent it, in whatever container, however old or repeated. It
// reports whether it took env.
func (p *peer) laxApply(env map[string]any) bool {
	kind := agh.Str(env, "kind")
	if kind != agh.KindReceipt && kind != agh.KindTrace {
		return false
	}
	w := p.initiatedFor(env)
	if body, _ := env["body"].(map[string]any); w == nil && kind == agh.KindReceipt {
		for _, iw := range p.initiated {
			if body["for_id"] == iw.opening {
				w = iw
			}
		}
	}
	if w == nil {
		return false
	}
	p.applyReport(env, w)
	return true
}

// controlRequest reports whether env is an in-band control request (a
// directed say without work_id whose ext holds aghcheck.control/v1, with
// control on) and, if it is, carries it out. It is answered with nothing;
// a request the peer cannot carry out is reported on stderr.
func (p *peer) controlRequest(env map[string]any, directed bool) bool {
	ext, _ := env["ext"].(map[string]any)
	raw, ok := ext[control.Name]
	if !ok || !directed || p.cfg.NoControl || agh.Str(env, "kind") != agh.KindSay || env["work_id"] != nil {
		return false
	}
	what := "control request " + agh.Str(env, "id") + " from " + agh.Str(env, "from")
	req, err := parseRequest(raw)
	if err == nil {
		err = p.obey(req)
	}
	if err != nil {
		p.complain(what, err)
	}
	return true
}

// parseRequest reads an in-band request: exactly one of initiate, continue
// and cancel, of the shape control.Request has.
func parseRequest(raw any) (control.Request, error) {
	var req control.Request
	b, err := json.Marshal(raw)
	if err != nil {
		return req, fmt.Errorf("not JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("not a request: %w", err)
	}
	n := 0
	for _, set := range []bool{req.Initiate != nil, req.Continue != nil, req.Cancel != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return req, fmt.Errorf("want exactly one of %s, %s and %s", control.RequestInitiate, control.RequestContinue, control.RequestCancel)
	case req.Initiate != nil:
		return req, req.Initiate.Check()
	case req.Continue != nil && (req.Continue.WorkID == "" || req.Continue.Text == ""):
		return req, errors.New("continue needs work_id and text")
	case req.Cancel != nil && req.Cancel.WorkID == "":
		return req, errors.New("cancel needs work_id")
	}
	return req, nil
}

// obey carries out a parsed request.
func (p *peer) obey(req control.Request) error {
	if req.Initiate != nil {
		return p.initiate(*req.Initiate)
	}
	var id string
	if req.Continue != nil {
		id = req.Continue.WorkID
	} else {
		id = req.Cancel.WorkID
	}
	w := p.initiated[id]
	switch {
	case w == nil:
		return fmt.Errorf("no work %s was opened here", id)
	case w.closed:
		return fmt.Errorf("work %s is closed", id)
	case w.terminal():
		return fmt.Errorf("work %s is %s", id, w.state)
	case req.Continue != nil:
		p.continueWork(w, req.Continue.Text, nil, false)
	default:
		p.cancelWork(w, nil)
	}
	return nil
}
