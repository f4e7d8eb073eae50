package agh

import (
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// Stage is the step of the Envelope page's validation order a rule belongs
// to (1 parse ... 7 routing); rules from other packages are placed by
// profile: input rules at 1, trust-profile rules at 6.
func Stage(r *rules.Rule) int {
	if s, ok := stageOf[r]; ok {
		return s
	}
	switch {
	case r.Profile == "input":
		return stageInput
	case trustRule(r):
		return stageTrust
	}
	return stageOther
}

// trustRule reports whether r is the trust profile's.
func trustRule(r *rules.Rule) bool {
	return r.Profile == "agh-trust" || strings.HasPrefix(r.ID, "TRUST-")
}

// RefusalReason is the receipt reason_code a receiver uses for these
// findings, following the validation order ("" when nothing refuses): the
// reason of the error-severity finding in the earliest stage wins (ties go
// to the first reported; a finding may name its own reason,
// rules.Finding.RefusalCode). Warnings never refuse.
func RefusalReason(fs []rules.Finding) string {
	best, reason := stageOther+1, ""
	for _, f := range fs {
		if f.Rule == nil || f.Rule.Severity != rules.Error || f.RefusalCode() == "" {
			continue
		}
		if s := Stage(f.Rule); s < best {
			best, reason = s, f.RefusalCode()
		}
	}
	return reason
}

// DutyReason is the reason_code of the refusal every receiver owes a
// message with findings fs, "" when a receiver may take it: RefusalReason
// without the rules a receiver may tolerate (rules.Rule.Tolerable) and,
// for a receiver that does not take the trust profile (trust false),
// without the trust profile's rules. A strict receiver may still refuse
// with RefusalReason.
func DutyReason(fs []rules.Finding, trust bool) string {
	var owed []rules.Finding
	for _, f := range fs {
		if f.Rule != nil && Owed(f.Rule, trust) {
			owed = append(owed, f)
		}
	}
	return RefusalReason(owed)
}

// Owed reports whether a receiver must refuse a message for breaking r:
// not when r is one it may tolerate (rules.Rule.Tolerable), nor a trust
// profile rule at a receiver that does not take the profile (trust false).
func Owed(r *rules.Rule, trust bool) bool {
	return r.Tolerable == "" && (trust || !trustRule(r))
}

// replyPointers are the members a refusal receipt is built from: it goes
// to the sender (from), names the message (id, for_id), sits in the
// message's work and container, and answers a message addressed to a peer.
// A finding at one of them (or on the whole document) leaves no usable
// work context.
var replyPointers = map[string]bool{
	"": true, "/id": true, "/kind": true, "/from": true, "/to": true, "/workspace_id": true, "/channel": true,
	"/work_id": true, "/surface": true, "/thread_id": true, "/direct_id": true,
}

// Answerable reports whether a refused envelope carries a usable work
// context, so that the refusal is answered with a receipt to its sender: a
// directed say or capability (work a sender asked the receiver to take on,
// Work Lifecycle §Directed work rules) whose id, from, to, work_id and
// container are present and break no rule. No page asks a receiver to
// answer a broken trace or receipt, and two peers must never bounce
// receipts at each other. Otherwise a receiver refuses in silence: a
// receipt built from broken members would be broken itself.
func Answerable(env map[string]any, fs []rules.Finding) bool {
	for _, f := range fs {
		if f.Rule != nil && f.Rule.Severity == rules.Error && replyPointers[f.Pointer] {
			return false
		}
	}
	switch Str(env, "kind") {
	case KindSay, KindCapability:
	default:
		return false
	}
	for _, k := range []string{"id", "from", "to", "work_id"} {
		if Str(env, k) == "" {
			return false
		}
	}
	_, container := Container(env)
	return container != ""
}

// RefusalStatus is the receipt status that goes with a refusal's
// reason_code: expired and duplicate are statuses of their own, the
// unsupported_* reasons are "unsupported", everything else "rejected".
func RefusalStatus(reason string) string {
	switch {
	case reason == ReasonExpired || reason == ReasonDuplicate:
		return reason
	case strings.HasPrefix(reason, "unsupported_"):
		return StatusUnsupported
	}
	return StatusRejected
}
