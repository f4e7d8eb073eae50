package agh

import "slices"

// Accessors and vocabulary for code that handles envelopes (the live
// harness, the reference peer), so that none of it re-spells the protocol.

// Receipt statuses.
const (
	StatusAccepted    = "accepted"
	StatusRejected    = "rejected"
	StatusDuplicate   = "duplicate"
	StatusExpired     = "expired"
	StatusUnsupported = "unsupported"
	StatusCanceled    = "canceled"
)

// Reason codes (the twelve of ReasonCodes).
const (
	ReasonMalformed             = "malformed"
	ReasonExpired               = "expired"
	ReasonDuplicate             = "duplicate"
	ReasonUnsupportedKind       = "unsupported_kind"
	ReasonUnsupportedProfile    = "unsupported_profile"
	ReasonVerificationFailed    = "verification_failed"
	ReasonNotTarget             = "not_target"
	ReasonNotFound              = "not_found"
	ReasonBusy                  = "busy"
	ReasonInternal              = "internal"
	ReasonWorkClosed            = "work_closed"
	ReasonWorkContainerMismatch = "work_container_mismatch"
)

// Work states.
const (
	StateSubmitted  = "submitted"
	StateWorking    = "working"
	StateNeedsInput = "needs_input"
	StateCompleted  = "completed"
	StateFailed     = "failed"
	StateCanceled   = "canceled"
)

// Surfaces.
const (
	SurfaceThread = "thread"
	SurfaceDirect = "direct"
)

// Kinds are the six message kinds of v0, in the pages' order.
var Kinds = []string{KindGreet, KindWhois, KindSay, KindCapability, KindReceipt, KindTrace}

// The kinds.
const (
	KindGreet      = "greet"
	KindWhois      = "whois"
	KindSay        = "say"
	KindCapability = "capability"
	KindReceipt    = "receipt"
	KindTrace      = "trace"
)

// IsDiscoveryKind reports whether kind is greet or whois (no conversation fields).
func IsDiscoveryKind(kind string) bool { return kind == KindGreet || kind == KindWhois }

// IsConversationKind reports whether kind must carry a surface and container.
func IsConversationKind(kind string) bool {
	return kind == KindSay || kind == KindCapability || kind == KindReceipt || kind == KindTrace
}

// IsKnownKind reports whether kind is one of the six v0 kinds.
func IsKnownKind(kind string) bool { return IsDiscoveryKind(kind) || IsConversationKind(kind) }

// ReceiptStatuses are the statuses of a receipt body.
var ReceiptStatuses = []string{StatusAccepted, StatusRejected, StatusDuplicate, StatusExpired, StatusUnsupported, StatusCanceled}

// ReasonCodes is the full list of registered receipt reason codes.
var ReasonCodes = []string{
	ReasonMalformed, ReasonExpired, ReasonDuplicate, ReasonUnsupportedKind, ReasonUnsupportedProfile,
	ReasonVerificationFailed, ReasonNotTarget, ReasonNotFound, ReasonBusy, ReasonInternal,
	ReasonWorkClosed, ReasonWorkContainerMismatch,
}

// IsReasonCode reports whether code is a registered reason code.
func IsReasonCode(code string) bool { return slices.Contains(ReasonCodes, code) }

// ReasonRequirement says whether a receipt status needs a reason_code:
// "absent" (accepted), "required" (rejected, duplicate, expired,
// unsupported), "optional" (canceled), or "" for an unknown status.
func ReasonRequirement(status string) string {
	switch status {
	case StatusAccepted:
		return "absent"
	case StatusRejected, StatusDuplicate, StatusExpired, StatusUnsupported:
		return "required"
	case StatusCanceled:
		return "optional"
	}
	return ""
}

// TraceStates are the work states a trace reports.
var TraceStates = []string{StateSubmitted, StateWorking, StateNeedsInput, StateCompleted, StateFailed, StateCanceled}

// IsTerminal reports whether a work state is final (completed, failed, canceled).
func IsTerminal(state string) bool {
	return state == StateCompleted || state == StateFailed || state == StateCanceled
}

// IsWorkState reports whether state is one of the six work states.
func IsWorkState(state string) bool { return slices.Contains(TraceStates, state) }

// CanTransition reports whether work may move from one state to another
// (Work Lifecycle page): terminal states are final (a repeated cancel is
// idempotent), nothing moves back to submitted, a repeated non-terminal
// state is progress, needs_input resumes to working.
func CanTransition(from, to string) bool {
	if !IsWorkState(from) || !IsWorkState(to) {
		return false
	}
	if IsTerminal(from) {
		return from == StateCanceled && to == StateCanceled
	}
	if to == StateSubmitted {
		return from == StateSubmitted
	}
	if from == to {
		return true
	}
	switch from {
	case StateSubmitted:
		return to == StateWorking || to == StateFailed || to == StateCanceled
	case StateWorking:
		return to == StateNeedsInput || IsTerminal(to)
	case StateNeedsInput:
		return to == StateWorking || IsTerminal(to)
	}
	return false
}

// BodyOf returns the envelope's body object.
func BodyOf(env map[string]any) (map[string]any, bool) {
	b, ok := env["body"].(map[string]any)
	return b, ok
}

// PeerCardOf returns body.peer_card of a greet or whois response.
func PeerCardOf(env map[string]any) (map[string]any, bool) {
	b, ok := BodyOf(env)
	if !ok {
		return nil, false
	}
	c, ok := b["peer_card"].(map[string]any)
	return c, ok
}

// CapabilityOf returns body.capability of a capability envelope.
func CapabilityOf(env map[string]any) (map[string]any, bool) {
	b, ok := BodyOf(env)
	if !ok {
		return nil, false
	}
	c, ok := b["capability"].(map[string]any)
	return c, ok
}

// Str returns a top-level string member ("" when absent, null or not a string).
func Str(env map[string]any, name string) string {
	s, _ := env[name].(string)
	return s
}

// Container returns the conversation surface and container id of an
// envelope ("", "" for discovery kinds or when absent).
func Container(env map[string]any) (surface, id string) {
	switch surface = Str(env, "surface"); surface {
	case SurfaceThread:
		return surface, Str(env, "thread_id")
	case SurfaceDirect:
		return surface, Str(env, "direct_id")
	}
	return "", ""
}

// WorkKey identifies a unit of work: it never spans containers, so the key
// is (channel, surface, container id, work_id). ok is false without work_id
// or container.
func WorkKey(env map[string]any) (key string, ok bool) {
	surface, id := Container(env)
	work := Str(env, "work_id")
	if surface == "" || id == "" || work == "" {
		return "", false
	}
	return Str(env, "channel") + "\x00" + surface + "\x00" + id + "\x00" + work, true
}
