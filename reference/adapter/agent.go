package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// controlProfile is aghcheck's test-only extension (docs/control-extension.md):
// the key a test peer sets in ext to script the agent, and the profile the
// adapter's Peer Card lists so that the lifecycle scenarios gated on it play.
// The script only decides what the agent sends; the runtime's router still
// validates, tracks and may refuse every message, so the lifecycle the
// scenarios judge is the runtime's.
const controlProfile = "aghcheck.control/v1"

// reply is one message the agent sends for a work item: a receipt (Status
// set) or a trace (State set).
type reply struct {
	Status     string // accepted, rejected
	ReasonCode string
	Detail     string

	State        string
	Message      string
	Result       json.RawMessage
	ArtifactRefs []json.RawMessage
}

// controlScript is the extension's value.
type controlScript struct {
	Receipt    *string           `json:"receipt"`
	ReasonCode *string           `json:"reason_code"`
	Traces     []json.RawMessage `json:"traces"`
}

type controlTrace struct {
	State        *string           `json:"state"`
	Message      *string           `json:"message"`
	Result       json.RawMessage   `json:"result"`
	ArtifactRefs []json.RawMessage `json:"artifact_refs"`
}

// agentWork is the agent's own view of one work item it took on: its state
// as the agent last reported it, and who opened it.
type agentWork struct {
	state     string
	initiator string
}

func terminal(state string) bool {
	return state == "completed" || state == "failed" || state == "canceled"
}

// plan decides the agent's replies to one message delivered to it, for work
// w (nil: the message opens the work): a say or capability following the
// control script in raw (nil when it carries none), or the initiator's
// cancel (a receipt with status canceled). It returns the replies and the
// state the work is in once they are sent. A script that would break the
// lifecycle, or is not of the extension's shape, is answered with one
// rejected receipt (malformed, detail aghcheck.control/v1: ...), as the
// extension says.
func plan(w *agentWork, cancel bool, raw json.RawMessage) ([]reply, string) {
	opening := w == nil
	state := "submitted"
	if !opening {
		state = w.state
	}
	if cancel {
		// Canceled once: reported with a trace while the work is open;
		// nothing new for work already canceled or ended.
		if opening || terminal(state) {
			return nil, state
		}
		return []reply{{State: "canceled"}}, "canceled"
	}
	if raw == nil {
		return unscripted(opening, state)
	}
	replies, next, err := scripted(opening, state, raw)
	if err != nil {
		refused := reply{Status: "rejected", ReasonCode: "malformed", Detail: controlProfile + ": " + err.Error()}
		if opening {
			return []reply{refused}, "failed"
		}
		return []reply{refused}, state
	}
	return replies, next
}

// unscripted is the agent without a script: new work is accepted, worked
// and completed at once; an answer to work waiting for input resumes and
// completes it; anything else delivered is conversation it only reads.
func unscripted(opening bool, state string) ([]reply, string) {
	done := reply{State: "completed", Result: json.RawMessage(`{"done":true}`)}
	switch {
	case opening:
		return []reply{{Status: "accepted"}, {State: "working", Message: "on it"}, done}, "completed"
	case state == "needs_input":
		return []reply{{State: "working", Message: "resumed"}, done}, "completed"
	}
	return nil, state
}

// scripted checks a script against the lifecycle from state and lists its
// replies.
func scripted(opening bool, state string, raw json.RawMessage) ([]reply, string, error) {
	var sc controlScript
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, "", errors.New("the extension's value is not an object of receipt, reason_code and traces")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, "", errors.New("the extension's value is not an object of receipt, reason_code and traces")
	}
	var out []reply
	receipt := ""
	if sc.Receipt != nil {
		receipt = *sc.Receipt
	} else if opening {
		receipt = "accepted"
	}
	switch receipt {
	case "":
		if sc.ReasonCode != nil {
			return nil, "", errors.New("reason_code without receipt rejected")
		}
	case "accepted":
		if sc.ReasonCode != nil {
			return nil, "", errors.New("reason_code without receipt rejected")
		}
		out = append(out, reply{Status: "accepted"})
		if opening {
			state = "working"
		}
	case "rejected":
		r := reply{Status: "rejected", ReasonCode: "busy"}
		if sc.ReasonCode != nil {
			r.ReasonCode = *sc.ReasonCode
		}
		out = append(out, r)
		if opening {
			state = "failed"
		}
	default:
		return nil, "", fmt.Errorf("receipt %q: want accepted or rejected", receipt)
	}
	for i, rawTrace := range sc.Traces {
		var t controlTrace
		if err := json.Unmarshal(rawTrace, &t); err != nil || t.State == nil {
			return nil, "", fmt.Errorf("trace %d: want an object with a state", i+1)
		}
		next := *t.State
		if err := transition(state, next); err != nil {
			return nil, "", fmt.Errorf("trace %d: %w", i+1, err)
		}
		r := reply{State: next, Result: t.Result, ArtifactRefs: t.ArtifactRefs}
		if t.Message != nil {
			r.Message = *t.Message
		}
		out = append(out, r)
		state = next
	}
	return out, state, nil
}

// transition refuses a trace the Work Lifecycle page does not allow from
// state.
func transition(state, next string) error {
	switch next {
	case "working", "needs_input", "completed", "failed", "canceled":
	case "submitted":
		return errors.New("submitted is never reported by a trace")
	default:
		return fmt.Errorf("unknown state %q", next)
	}
	switch {
	case terminal(state):
		return fmt.Errorf("%s after the terminal state %s", next, state)
	case state == "submitted" && (next == "needs_input" || next == "completed"):
		return fmt.Errorf("%s straight from submitted", next)
	}
	return nil
}
