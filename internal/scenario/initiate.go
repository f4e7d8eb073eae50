package scenario

import (
	"fmt"

	"github.com/aghcheck/aghcheck/internal/control"
)

// Sends reports whether the step puts something before the IUT that it may
// answer: a send, or an initiation order (the IUT's opening is its answer).
func (s *Step) Sends() bool { return s.Send != nil || s.Initiate != nil || s.AtOnce != nil }

// Published are the sends of the step: its send, or every send of its
// at_once list (none for another kind of step).
func (s *Step) Published() []*Send {
	if s.Send != nil {
		return []*Send{s.Send}
	}
	out := make([]*Send, len(s.AtOnce))
	for i := range s.AtOnce {
		out[i] = &s.AtOnce[i]
	}
	return out
}

// Concurrent reports whether the step publishes at once: an at_once step,
// or a send with copies.
func (s *Step) Concurrent() bool {
	return s.AtOnce != nil || (s.Send != nil && s.Send.Copies > 1)
}

// Resolve is the initiation order of step in, with its test peer's id (ids
// maps test peer names to ids; "" leaves the name unresolved, for a lint).
func (in *Initiate) Resolve(first string, ids map[string]string) control.Order {
	to := in.To
	if to == "" {
		to = first
	}
	if id, ok := ids[to]; ok {
		to = id
	}
	o := in.Order
	o.To = to
	return o
}

// checkInitiate reports what is wrong with step i, an initiate step: the
// peers it names, the order it makes, and what the start-up form needs
// (the target greets at this step, and it is the target of one order only:
// a greet sets off every order naming the peer).
func (sc *Scenario) checkInitiate(i int, peers map[string]*TestPeer) []string {
	in := sc.Steps[i].Initiate
	var bad []string
	for _, name := range []string{in.From, in.To} {
		if _, ok := peers[name]; name != "" && !ok {
			bad = append(bad, fmt.Sprintf("step %d: initiate names undeclared peer %q", i+1, name))
		}
	}
	if err := in.Resolve(sc.PeerNames()[0].Name, nil).Check(); err != nil {
		bad = append(bad, fmt.Sprintf("step %d: initiate: %v", i+1, err))
	}
	if !sc.Greets() {
		bad = append(bad, fmt.Sprintf("step %d: initiate needs the test peers to greet (greet: false keeps them strangers, and the start-up form is set off by the target's greet)", i+1))
	}
	target := in.To
	if target == "" {
		target = sc.PeerNames()[0].Name
	}
	for j := range i {
		if o := sc.Steps[j].Initiate; o != nil && (o.To == target || o.To == "" && target == sc.PeerNames()[0].Name) {
			bad = append(bad, fmt.Sprintf("step %d: initiate: peer %q is already the target of step %d (one order per target: its greet sets off every order naming it)", i+1, target, j+1))
		}
	}
	return bad
}
