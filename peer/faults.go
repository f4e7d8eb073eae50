package peer

import (
	"fmt"
	"sort"
	"strings"
)

// Fault is one deliberate misbehaviour of the reference peer. Every fault
// must be caught by at least one scenario of the suite group it names.
type Fault struct {
	Name        string
	Group       string // the conformance suite group expected to catch it
	Description string
}

const (
	faultAcceptMalformed    = "accept-malformed"
	faultGreetCardMismatch  = "greet-card-mismatch"
	faultWhoisNoReplyTo     = "whois-no-reply-to"
	faultReopenTerminal     = "reopen-terminal"
	faultCancelNotIdem      = "cancel-not-idempotent"
	faultIgnoreContainer    = "ignore-container"
	faultAcceptExpired      = "accept-expired"
	faultNoDedupe           = "no-dedupe"
	faultRejectUnknownExt   = "reject-unknown-ext"
	faultAcceptBadSignature = "accept-bad-signature"
	faultReceiptOnBroadcast = "receipt-on-broadcast"
	faultWrongRouteToken    = "wrong-route-token"
	// Faults only a view across envelopes catches (the work-unit tracker).
	faultBackToSubmitted = "trace-back-to-submitted"
	faultReportAfterDone = "report-after-completed"
	faultContainerJump   = "container-jump"
	faultReuseID         = "reuse-message-id"
	faultForIDUnknown    = "receipt-for-unknown-id"
	faultOneFailureClass = "one-failure-class"
)

var faultList = []Fault{
	{faultAcceptMalformed, "envelope", "accepts and works on a malformed work-opening say instead of refusing it with reason malformed"},
	{faultGreetCardMismatch, "kinds", "greets with a Peer Card whose peer_id differs from the envelope from"},
	{faultWhoisNoReplyTo, "kinds", "answers whois requests without reply_to"},
	{faultReopenTerminal, "lifecycle", "a continuation on completed work is accepted and moves it back to working instead of work_closed"},
	{faultCancelNotIdem, "lifecycle", "answers every cancel with a new canceled trace, even on work already canceled"},
	{faultIgnoreContainer, "lifecycle", "treats the same work_id from another container as the same work instead of work_container_mismatch"},
	{faultAcceptExpired, "delivery", "processes envelopes whose expires_at has passed (or older than the replay age)"},
	{faultNoDedupe, "delivery", "processes a repeated message id from the same sender again instead of answering duplicate"},
	{faultRejectUnknownExt, "extensions", "refuses work that carries an ext key it does not know with reason malformed"},
	{faultAcceptBadSignature, "trust", "accepts work whose proof does not verify (tampered signed message)"},
	{faultReceiptOnBroadcast, "nats", "publishes directed receipts on the channel broadcast subject"},
	{faultWrongRouteToken, "nats", "listens on and publishes to peer subjects whose route token is derived wrongly (last 32 hex chars of SHA-256)"},
	{faultBackToSubmitted, "lifecycle", "reports a submitted trace after working, moving work back to submitted, before completing it"},
	{faultReportAfterDone, "lifecycle", "reports a working trace after the completed one"},
	{faultContainerJump, "lifecycle", "reports the completed trace in another container (a thread) than the work's"},
	{faultReuseID, "delivery", "gives the completed trace the id of the working trace before it"},
	{faultForIDUnknown, "delivery", "acknowledges work with an accepted receipt whose for_id names no envelope"},
	{faultOneFailureClass, "receiver", "refuses every broken message with reason malformed, whatever its failure class (a bad digest or signature, an unsupported protocol or kind)"},
}

// Faults lists every fault the reference peer knows, by group then name.
func Faults() []Fault {
	out := append([]Fault(nil), faultList...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return groupOrder(out[i].Group) < groupOrder(out[j].Group)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func groupOrder(g string) int {
	for i, name := range []string{"envelope", "kinds", "lifecycle", "delivery", "extensions", "trust", "nats", "receiver"} {
		if g == name {
			return i
		}
	}
	return 99
}

// faultSet is the parsed --fault list.
type faultSet map[string]bool

func parseFaults(names []string) (faultSet, error) {
	fs := faultSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		known := false
		for _, f := range faultList {
			if f.Name == n {
				known = true
				break
			}
		}
		if !known {
			return nil, fmt.Errorf("unknown fault %q (see --list-faults)", n)
		}
		fs[n] = true
	}
	return fs, nil
}
