package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// InitiateName is the profile an IUT lists in its Peer Card when it carries
// out the initiation orders of its start-up file (the Env variable
// AGH_INITIATE). A peer that advertises Name takes the same orders in band.
const InitiateName = "aghcheck.initiate/v1"

// The members of an in-band control request on a say without a work_id
// (docs/control-extension.md, "Initiation"): exactly one of them.
const (
	RequestInitiate = "initiate"
	RequestContinue = "continue"
	RequestCancel   = "cancel"
)

// Order asks the IUT to open one unit of work, as its initiator, with the
// test peer To, and says what to do with it afterwards.
type Order struct {
	// To is the target's peer id: the opening's to, and the peer subject
	// (by its route token) the opening is published on.
	To string `json:"to"`
	// Kind is the opening's kind: say or capability.
	Kind string `json:"kind"`
	// Surface is thread (a fresh thread_id of the IUT's choosing) or direct
	// (the direct_id of the IUT and To).
	Surface string `json:"surface"`
	// Text is a say's body.text, and the text of a continuation.
	Text string `json:"text,omitempty"`
	// Capability is a capability opening's body.capability; the IUT
	// computes and sets its digest.
	Capability map[string]any `json:"capability,omitempty"`
	// ExpiresIn, when positive, makes the opening carry expires_at =
	// its ts + ExpiresIn (seconds).
	ExpiresIn int `json:"expires_in,omitempty"`
	// Answer, when set, is the text of the continuation the IUT sends each
	// time the target asks for input (a valid needs_input trace of the
	// work, from the target, in its container, on active work).
	Answer string `json:"answer,omitempty"`
	// CancelOn, when set, is the state (working or needs_input) at which
	// the IUT cancels the work: a receipt with status canceled.
	CancelOn string `json:"cancel_on,omitempty"`
}

// Orders is the start-up file: the orders of a whole run.
type Orders struct {
	Orders []Order `json:"orders"`
}

// Check reports what makes o unusable, in one line.
func (o Order) Check() error {
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

// ReadOrders reads and checks a start-up file; an empty path is no orders.
func ReadOrders(path string) ([]Order, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read orders: %w", err)
	}
	var f Orders
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("orders %s: %w", path, err)
	}
	for i, o := range f.Orders {
		if err := o.Check(); err != nil {
			return nil, fmt.Errorf("orders %s: order %d: %w", path, i+1, err)
		}
	}
	return f.Orders, nil
}

// WriteOrders writes a start-up file.
func WriteOrders(path string, orders []Order) error {
	b, err := json.MarshalIndent(Orders{Orders: orders}, "", "  ")
	if err != nil {
		return fmt.Errorf("write orders: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write orders: %w", err)
	}
	return nil
}

// Request is the value of an in-band control request: exactly one member.
type Request struct {
	Initiate *Order `json:"initiate,omitempty"`
	Continue *struct {
		WorkID string `json:"work_id"`
		Text   string `json:"text"`
	} `json:"continue,omitempty"`
	Cancel *struct {
		WorkID string `json:"work_id"`
	} `json:"cancel,omitempty"`
}
