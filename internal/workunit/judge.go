package workunit

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// unit is one unit of work, keyed by (workspace, channel, work_id): the
// opening say or capability binds it to one container (erratum 8: the same
// work_id in another container is a mismatch, not new work, between the
// same peers; unrelated peers reusing a work_id elsewhere get a unit of
// their own, chained through next).
type unit struct {
	next               *unit
	work               string
	initiator, target  string
	surface, container string
	cont               uint32
	opening            key // (initiator, opening id)
	state              string
}

func (u *unit) involves(peer string) bool {
	return peer != "" && (peer == u.initiator || peer == u.target)
}

// obs is one envelope being observed: its fields read once.
type obs struct {
	t      *Tracker
	env    map[string]any
	body   map[string]any
	now    int64
	judged bool

	kind, id, from, to, ws, ch, work string
	surface, container, replyTo      string
	cont                             uint32
	out                              []rules.Finding
	acted                            []rules.Finding // of out, a receiver's duty (Result.Acted)
	// flagged: a finding already blames this envelope for changing work it
	// must not change, so the state machine does not blame it twice.
	flagged bool
}

func (o *obs) read() {
	e := o.env
	o.kind, o.id, o.from, o.to = agh.Str(e, "kind"), agh.Str(e, "id"), agh.Str(e, "from"), agh.Str(e, "to")
	o.ws, o.ch, o.work, o.replyTo = agh.Str(e, "workspace_id"), agh.Str(e, "channel"), agh.Str(e, "work_id"), agh.Str(e, "reply_to")
	o.surface, o.container = agh.Container(e)
	if o.container != "" {
		o.cont = o.t.h.sum(o.ws, o.ch, o.surface, o.container)
	}
	o.body, _ = agh.BodyOf(e)
}

func (o *obs) bodyStr(name string) string {
	s, _ := o.body[name].(string)
	return s
}

// signature hashes what makes two envelopes the same logical message, so a
// retry (same id, perhaps a fresh ts or signature) is told from an id
// reused for another message.
func (o *obs) signature() uint32 {
	return o.t.h.sum(o.kind, o.to, o.surface, o.container, o.work, o.replyTo,
		o.bodyStr("status"), o.bodyStr("for_id"), o.bodyStr("state"), o.bodyStr("type"), o.bodyStr("text"))
}

func (o *obs) add(r *rules.Rule, pointer, expected, found string) {
	if o.judged {
		o.out = append(o.out, rules.Finding{Rule: r, Pointer: pointer, Expected: expected, Found: found})
	}
}

// act is add for a finding that shows the peer acted on a message it
// received and had to refuse or leave alone (Result.Acted).
func (o *obs) act(r *rules.Rule, pointer, expected, found string) {
	o.add(r, pointer, expected, found)
	if o.judged {
		o.acted = append(o.acted, o.out[len(o.out)-1])
	}
}

// Kinds are remembered as small codes, not as the envelope's strings.
var kindCodes = map[string]uint8{"greet": 1, "whois": 2, "say": 3, "capability": 4, "receipt": 5, "trace": 6}

func (o *obs) kindCode() uint8 { return kindCodes[o.kind] }

func kindName(c uint8) string {
	for k, v := range kindCodes {
		if v == c {
			return k
		}
	}
	return "envelope"
}

// ref returns what is remembered of envelope id sent by from.
func (o *obs) ref(from, id string) (seen, bool) {
	if from == "" || id == "" {
		return seen{}, false
	}
	return o.t.lookupSeen(o.t.h.key(from, id))
}

// checkReplyTo judges that reply_to names an envelope the addressee sent
// (a whois request, on a whois response).
func (o *obs) checkReplyTo(whois bool) {
	if whois && o.bodyStr("type") != "response" {
		return
	}
	if o.replyTo == "" || o.to == "" {
		return
	}
	r, expect := requirements.DelivReplyToKnown, "the id of an envelope "+o.to+" sent"
	if whois {
		r, expect = requirements.DiscWhoisReplyToKnown, "the id of a whois request "+o.to+" sent"
	}
	s, ok := o.ref(o.to, o.replyTo)
	switch {
	case !ok && o.t.judgeable(o.now):
		o.add(r, "/reply_to", expect, o.replyTo+" (never seen)")
	case ok && whois && s.kind != kindCodes["whois"]:
		o.add(r, "/reply_to", expect, o.replyTo+" (a "+kindName(s.kind)+")")
	}
}

// conversation follows a say or capability that carries a work_id: it
// opens the work, or continues it, and returns the forbid flag of a
// continuation that must not change the work.
func (o *obs) conversation() uint8 {
	if o.work == "" || o.cont == 0 {
		return 0
	}
	u, related := o.lookup()
	switch {
	case u != nil:
		switch {
		case o.from == u.initiator && agh.IsTerminal(u.state):
			return forbidTerminal
		case o.from == u.initiator || o.from == u.target || u.target == "":
			return 0
		}
		return forbidOutsider
	case related != nil:
		return forbidContainer
	}
	o.open(o.from, o.to, agh.StateSubmitted)
	return 0
}

// lookup finds the work unit of the envelope's container, or else one with
// the same work_id elsewhere between the same peers.
func (o *obs) lookup() (u, related *unit) {
	for x := o.t.unitChain(o.t.h.key(o.ws, o.ch, o.work)); x != nil; x = x.next {
		if x.cont == o.cont {
			return x, nil
		}
		if x.involves(o.from) || x.involves(o.to) {
			related = x
		}
	}
	return nil, related
}

// The strings a unit keeps are cloned: a decoded envelope's strings share
// the memory of its whole text, which one kept id would keep alive.
func (o *obs) open(initiator, target, state string) *unit {
	t := o.t
	u := &unit{work: strings.Clone(o.work), initiator: strings.Clone(initiator), target: strings.Clone(target),
		surface: strings.Clone(o.surface), container: strings.Clone(o.container), cont: o.cont,
		opening: t.h.key(o.from, o.id), state: strings.Clone(state)}
	t.addUnit(t.h.key(o.ws, o.ch, o.work), u)
	if !agh.IsTerminal(state) {
		t.cur.open++
	}
	return u
}

// setState moves a unit (always in the current generation once looked
// up) to state, keeping the count of open units.
func (t *Tracker) setState(u *unit, state string) {
	was, is := !agh.IsTerminal(u.state), !agh.IsTerminal(state)
	switch {
	case was && !is:
		t.cur.open--
	case !was && is:
		t.cur.open++
	}
	u.state = strings.Clone(state)
}

// isRefusal reports whether a receipt status refuses the message it answers.
func isRefusal(status string) bool {
	switch status {
	case agh.StatusRejected, agh.StatusDuplicate, agh.StatusExpired, agh.StatusUnsupported:
		return true
	}
	return false
}

var forbidRules = []struct {
	flag uint8
	rule *rules.Rule
	why  string
}{
	{forbidTerminal, requirements.LifeTerminal, "a continuation of terminal work"},
	{forbidContainer, requirements.LifeContainer, "a message with the work's work_id from another container"},
	{forbidOutsider, requirements.LifeNonParticipant, "a message from a peer that is neither initiator nor target"},
}

// report follows a receipt or a trace.
func (o *obs) report() {
	status := o.bodyStr("status")
	refusal := o.kind == "receipt" && isRefusal(status)

	// What this envelope answers: a receipt's for_id, a trace's causation_id.
	var (
		cause    seen
		hasCause bool
		causeKey key
	)
	if o.kind == "receipt" {
		forID := o.bodyStr("for_id")
		cause, hasCause = o.ref(o.to, forID)
		causeKey = o.t.h.key(o.to, forID)
		if !hasCause && status == "canceled" {
			// An initiator's cancel names the opening it sent itself
			// (docs/errata.md, "What a cancel's for_id names").
			if _, own := o.ref(o.from, forID); own {
				forID = ""
			}
		}
		if !hasCause && forID != "" && o.to != "" && o.t.judgeable(o.now) {
			o.add(requirements.DelivForIDKnown, "/body/for_id", "the id of an envelope "+o.to+" sent", forID+" (never seen)")
		}
	} else {
		cause, hasCause = o.ref(o.to, agh.Str(o.env, "causation_id"))
	}
	if hasCause && !refusal {
		for _, f := range forbidRules {
			if cause.flags&f.flag != 0 {
				o.act(f.rule, "", "a refusal, or no reply, to "+f.why, article(o.describe())+" acting on it")
				o.flagged = true
			}
		}
		if cause.flags&hasWork == 0 && o.work != "" && (cause.kind == kindCodes["say"] || cause.kind == kindCodes["capability"]) {
			o.act(requirements.LifeNoInvention, "/work_id", "no work for a "+kindName(cause.kind)+" without work_id", o.work)
			o.flagged = true
		}
	}
	misplaced := false // LIFE-CORRELATION already holds it against this receipt
	if hasCause && o.kind == "receipt" && cause.cont != 0 && o.cont != 0 && cause.cont != o.cont && !o.refusesInWork(cause, refusal) {
		// Name what differs: the workspace or the channel before the
		// container, which a different channel changes too.
		misplaced = true
		switch {
		case cause.ws != o.t.h.short(o.ws):
			o.add(requirements.LifeCorrelation, "/workspace_id", "the workspace of the acknowledged envelope", o.ws+" (another workspace)")
		case cause.ch != o.t.h.short(o.ch):
			o.add(requirements.LifeCorrelation, "/channel", "the channel of the acknowledged envelope", o.ch+" (another channel)")
		default:
			o.add(requirements.LifeCorrelation, "", "the surface and container of the acknowledged envelope", o.where()+" (another container)")
		}
	}
	if o.work == "" || o.cont == 0 {
		return
	}
	u, related := o.lookup()
	switch {
	case u == nil && related != nil:
		if !refusal && !o.flagged && !misplaced {
			o.add(requirements.LifeCorrelation, "", fmt.Sprintf("work %s in %s %s", o.work, related.surface, related.container), o.where()+" (another container)")
		}
		return
	case u == nil:
		// Work opened before the tracker looked (or never seen opening):
		// follow it from here, with the reporter as its target.
		if refusal {
			return
		}
		u = o.open(o.to, o.from, agh.StateSubmitted)
	}
	if u.target == "" && o.from != u.initiator {
		u.target = strings.Clone(o.from)
	}
	switch o.from {
	case u.target:
		if !refusal && !o.flagged && o.to != "" && o.to != u.initiator {
			// Whom a report addresses is a SHOULD (Message Kinds: to
			// "SHOULD target the work initiator"), not LIFE-CORRELATION's
			// MUST on what it carries.
			r := agh.RuleTraceTo
			if o.kind == "receipt" {
				r = agh.RuleReceiptTo
			}
			o.add(r, "/to", "the work's initiator "+u.initiator, o.to)
		}
		o.targetReport(u, status, refusal, hasCause && causeKey == u.opening)
	case u.initiator:
		// The initiator's receipts (a cancel request, an acknowledgement)
		// ask; only the target's reports move the work.
	default:
		if !refusal {
			o.add(requirements.LifeParticipants, "/from", "the work's initiator "+u.initiator+" or target "+u.target, o.from)
		}
	}
}

// refusesInWork reports whether a receipt in another container than the
// envelope it acknowledges is a refusal of a message that carried a work's
// work_id from another container, given in that work's own container. The
// pages allow either container for it (docs/errata.md, erratum 14): the
// receipt acknowledges the refused message (its container), and it
// "MUST match the work being acknowledged" (Message Kinds), the work that
// message named (the work's container).
func (o *obs) refusesInWork(cause seen, refusal bool) bool {
	if !refusal || cause.flags&forbidContainer == 0 || o.work == "" {
		return false
	}
	u, _ := o.lookup()
	return u != nil
}

// targetReport applies the target's receipt or trace to the work.
func (o *obs) targetReport(u *unit, status string, refusal, onOpening bool) {
	if o.kind == "trace" {
		o.move(u, o.bodyStr("state"))
		return
	}
	switch {
	case status == agh.StatusAccepted && agh.IsTerminal(u.state):
		if !o.flagged {
			o.add(requirements.LifeTerminal, "/body/status", "nothing but refusals after the work is "+u.state, status)
		}
	case status == agh.StatusAccepted && u.state == agh.StateSubmitted:
		o.t.setState(u, agh.StateWorking)
	case status == agh.StatusCanceled:
		o.move(u, agh.StateCanceled)
	case refusal && onOpening && u.state == agh.StateSubmitted && status != agh.StatusDuplicate:
		// The opening refused: the work never started.
		o.t.setState(u, agh.StateFailed)
	}
}

// move applies a state the target reports.
func (o *obs) move(u *unit, next string) {
	cur := u.state
	switch {
	case !agh.IsWorkState(next):
		// TRACE-STATE judges it, one envelope at a time.
	case cur == agh.StateCanceled && next == agh.StateCanceled:
		if !o.flagged {
			o.act(requirements.LifeCancelIdempotent, "/body/state", "no second cancellation of canceled work", next)
		}
	case agh.IsTerminal(cur):
		if !o.flagged {
			o.add(requirements.LifeTerminal, "/body/state", "nothing but refusals after the work is "+cur, next)
		}
	case !agh.CanTransition(cur, next):
		want := "a state that may follow " + cur
		if next == agh.StateSubmitted {
			want = "never back to submitted (work is " + cur + ")"
		}
		o.add(requirements.LifeTransitions, "/body/state", want, next)
		if next != agh.StateSubmitted {
			o.t.setState(u, next)
		}
	default:
		o.t.setState(u, next)
	}
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func (o *obs) where() string { return o.surface + " " + o.container }

func (o *obs) describe() string {
	if s := o.bodyStr("status"); o.kind == "receipt" && s != "" {
		return s + " receipt"
	}
	if s := o.bodyStr("state"); o.kind == "trace" && s != "" {
		return s + " trace"
	}
	return o.kind
}

// Judged are the rules the tracker applies to what a peer sends (the
// clause inventory lists them as judged on the IUT's traffic).
var Judged = []*rules.Rule{
	requirements.DelivForIDKnown, requirements.DelivIDUnique, requirements.DelivReplyToKnown,
	requirements.DiscGreetHeartbeat, requirements.DiscWhoisReplyToKnown, requirements.LifeCancelIdempotent,
	requirements.LifeContainer, requirements.LifeCorrelation, requirements.LifeNoInvention,
	requirements.LifeNonParticipant, requirements.LifeParticipants, requirements.LifeTerminal,
	requirements.LifeTransitions,
}
