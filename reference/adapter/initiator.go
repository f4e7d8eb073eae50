package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// The initiation half of aghcheck's IUT contract (docs/control-extension.md,
// "Initiation: the IUT as the initiator of work"): the harness orders the
// IUT to open work with a test peer, in band (a control request on a
// directed say without a work_id, to a peer listing controlProfile) or at
// start-up (the file named by AGH_INITIATE, to a peer listing
// initiateProfile). The agent only turns an order into send requests; the
// runtime's send path builds, validates, tracks and publishes them, and its
// router applies (or refuses) what the target sends back.
//
// This file needs no runtime and is tested in aghcheck's own module. It
// cannot import aghcheck's internal/control (the adapter is built inside the
// runtime's module), so order and controlRequest repeat its shapes;
// initiator_test.go checks that they stay the same.

// initiateProfile is the profile of an IUT that carries out the orders of
// its start-up file.
const initiateProfile = "aghcheck.initiate/v1"

// order is one initiation order (control.Order).
type order struct {
	To         string         `json:"to"`
	Kind       string         `json:"kind"`
	Surface    string         `json:"surface"`
	Text       string         `json:"text,omitempty"`
	Capability map[string]any `json:"capability,omitempty"`
	ExpiresIn  int            `json:"expires_in,omitempty"`
	Answer     string         `json:"answer,omitempty"`
	CancelOn   string         `json:"cancel_on,omitempty"`
}

// defaultOrderText is a say opening's body.text when the order gives none.
const defaultOrderText = "aghcheck order: please work on this"

// check reports what makes o unusable, in one line (control.Order.Check).
func (o order) check() error {
	var bad []string
	if o.To == "" {
		bad = append(bad, "to is required")
	}
	if o.Kind != "say" && o.Kind != "capability" {
		bad = append(bad, fmt.Sprintf("kind %q is not say or capability", o.Kind))
	}
	if o.Surface != "thread" && o.Surface != "direct" {
		bad = append(bad, fmt.Sprintf("surface %q is not thread or direct", o.Surface))
	}
	if o.Kind == "capability" && o.Capability == nil {
		bad = append(bad, "a capability order needs capability")
	}
	if o.ExpiresIn < 0 || o.ExpiresIn > 3600 {
		bad = append(bad, fmt.Sprintf("expires_in %d is not between 1 and 3600", o.ExpiresIn))
	}
	switch o.CancelOn {
	case "", "working", "needs_input":
	default:
		bad = append(bad, fmt.Sprintf("cancel_on %q is not working or needs_input", o.CancelOn))
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// text is a say opening's body.text.
func (o order) text() string {
	if o.Text != "" {
		return o.Text
	}
	return defaultOrderText
}

// String is the order in one log line.
func (o order) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s to %s on a %s", o.Kind, o.To, o.Surface)
	if o.ExpiresIn > 0 {
		fmt.Fprintf(&b, ", expires_in %d", o.ExpiresIn)
	}
	if o.Answer != "" {
		fmt.Fprintf(&b, ", answer %q", o.Answer)
	}
	if o.CancelOn != "" {
		fmt.Fprintf(&b, ", cancel_on %s", o.CancelOn)
	}
	return b.String()
}

// readOrders reads and checks the start-up file (control.ReadOrders); an
// empty path is no orders.
func readOrders(path string) ([]order, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read orders: %w", err)
	}
	var f struct {
		Orders []order `json:"orders"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("orders %s: %w", path, err)
	}
	for i, o := range f.Orders {
		if err := o.check(); err != nil {
			return nil, fmt.Errorf("orders %s: order %d: %w", path, i+1, err)
		}
	}
	return f.Orders, nil
}

// ordersFor is the orders of the start-up file whose target is peer: each
// greet of peer carries them out again (a scenario played twice is served
// twice).
func ordersFor(orders []order, peer string) []order {
	var out []order
	for _, o := range orders {
		if o.To == peer {
			out = append(out, o)
		}
	}
	return out
}

// workRef names a work item the agent opened, for an in-band continue or
// cancel request.
type workRef struct {
	WorkID string `json:"work_id"`
	Text   string `json:"text,omitempty"`
}

// controlRequest is an in-band request: exactly one of its members
// (control.Request).
type controlRequest struct {
	Initiate *order   `json:"initiate,omitempty"`
	Continue *workRef `json:"continue,omitempty"`
	Cancel   *workRef `json:"cancel,omitempty"`
}

// parseRequest reads the control extension's value on a say without a
// work_id. A request of another shape is an error, which the adapter
// reports on its standard error and otherwise ignores.
func parseRequest(raw json.RawMessage) (controlRequest, error) {
	const shape = "an in-band request is an object with exactly one of initiate, continue and cancel"
	var req controlRequest
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return req, errors.New(shape)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || len(members) != 1 {
		return req, errors.New(shape)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return controlRequest{}, fmt.Errorf("%s: %v", shape, err)
	}
	switch {
	case req.Initiate != nil:
		if err := req.Initiate.check(); err != nil {
			return controlRequest{}, fmt.Errorf("initiate: %w", err)
		}
	case req.Continue != nil:
		if req.Continue.WorkID == "" {
			return controlRequest{}, errors.New("continue: work_id is required")
		}
	case req.Cancel != nil:
		if req.Cancel.WorkID == "" || req.Cancel.Text != "" {
			return controlRequest{}, errors.New("cancel: want exactly work_id")
		}
	default:
		return controlRequest{}, errors.New(shape)
	}
	return req, nil
}

// followUp is what the agent sends on work it opened when the router
// delivers a receipt or trace of it from the target.
type followUp int

const (
	followNone     followUp = iota
	followContinue          // a say with the order's answer
	followCancel            // a receipt with status canceled
)

// follow decides the agent's follow-up for a receipt (status set) or a
// trace (state set) of work opened for o. The agent keeps no lifecycle of
// its own for the work it opened: the router delivers only what it applied
// to the work, and refuses to send what its lifecycle does not allow (a
// continuation or a second cancel of closed work), so what the target's
// messages do to the work, and what the initiator may still send, is the
// runtime's. A cancel_on state wins over answer when both apply.
func follow(o order, status, state string) followUp {
	switch {
	case o.CancelOn == "working" && (state == "working" || status == "accepted"):
		return followCancel
	case o.CancelOn == "needs_input" && state == "needs_input":
		return followCancel
	case o.Answer != "" && state == "needs_input":
		return followContinue
	}
	return followNone
}
