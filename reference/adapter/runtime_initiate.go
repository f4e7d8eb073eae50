//go:build ignore

// This file needs the reference runtime's internal network package, so it
// is only built inside a copy of github.com/compozy/agh: scripts/reference.sh
// copies it there with main.go and config.go (not stub.go) and builds those
// files by name, which the go command does whatever their constraints. The
// "ignore" constraint keeps it out of every build of aghcheck's own module,
// and out of its `go mod tidy`, which would otherwise try to resolve the
// runtime's internal package.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	aghconfig "github.com/compozy/agh/internal/config"
	"github.com/compozy/agh/internal/network"
)

// initiate opens work for o through the runtime's send path, as an agent
// session does with `agh network send` or the agh__network_send tool: the
// agent (the caller) chooses the work_id and, on a thread, the thread_id,
// and passes the direct room the runtime resolves for the pair (what
// network_direct_resolve gives an agent); the runtime's Router.PrepareSend
// builds the envelope (its id, ts, from, its own derivation of direct_id),
// validates it (the capability digest too), checks that the target is
// present and that its lifecycle allows the message, and
// Router.PublishPrepared publishes it on the target's peer subject and
// starts tracking the work it opened. These are the two halves of the
// runtime's Manager.Send, without its persistence.
func (a *adapter) initiate(ctx context.Context, o order, why string) {
	workID := "work_" + randomHex()
	surface := network.Surface(o.Surface)
	to := o.To
	req := network.SendRequest{
		SessionID: sessionID,
		Channel:   a.cfg.Channel,
		Kind:      network.Kind(o.Kind),
		To:        &to,
		Surface:   &surface,
		WorkID:    &workID,
	}
	switch o.Surface {
	case "thread":
		threadID := "thread_" + randomHex()
		req.ThreadID = &threadID
	case "direct":
		directID, _, _, err := network.DirectRoomIdentity(a.workspace, a.cfg.Channel, a.cfg.PeerID, o.To)
		if err != nil {
			a.log.Printf("initiator: %s (%s) not opened: the runtime resolves no direct room: %v", o, why, err)
			return
		}
		req.DirectID = &directID
	}
	var err error
	if o.Kind == "capability" {
		if req.Body, err = capabilityBody(o.Capability); err != nil {
			a.log.Printf("initiator: %s (%s) not opened: %v", o, why, err)
			return
		}
	} else if req.Body, err = json.Marshal(network.SayBody{Text: o.text()}); err != nil {
		a.log.Printf("initiator: %s (%s) not opened: %v", o, why, err)
		return
	}

	// The runtime takes an absolute expires_at from its caller (the
	// CLI's --expires-at) and stamps ts itself, from its clock: the agent
	// reads the clock, and builds again should the second have turned
	// between the two, so that expires_at is ts + expires_in.
	var prepared network.SendResult
	for attempt := 0; ; attempt++ {
		if o.ExpiresIn > 0 {
			at := time.Now().Unix() + int64(o.ExpiresIn)
			req.ExpiresAt = &at
		}
		prepared, err = a.router.PrepareSend(ctx, req)
		if err != nil {
			a.log.Printf("initiator: %s (%s) not opened: the runtime refused: %v", o, why, err)
			return
		}
		e := prepared.Envelope
		if o.ExpiresIn == 0 || e.ExpiresAt == nil || *e.ExpiresAt == e.TS+int64(o.ExpiresIn) || attempt == 2 {
			break
		}
	}
	sent, err := a.router.PublishPrepared(ctx, prepared)
	if err != nil {
		a.log.Printf("initiator: %s (%s) not opened: %v", o, why, err)
		return
	}
	a.opened[workID] = &openedWork{order: o, opening: sent.Envelope}
	a.log.Printf("initiator: opened work %s with %s %s (%s; %s) on %s", workID, o.Kind, sent.ID, o, why, sent.Subject)
}

// followUp is the agent, as initiator, on a receipt or trace of work it
// opened that the router delivered (so the router applied it to the work):
// it continues the work or cancels it as the order says (follow).
func (a *adapter) followUp(ctx context.Context, ow *openedWork, env network.Envelope) {
	work := *env.WorkID
	if ow.opening.To == nil || env.From != *ow.opening.To {
		a.log.Printf("initiator: %s %s on work %s is not from its target: read only", env.Kind, env.ID, work)
		return
	}
	status, state := "", ""
	body, err := env.DecodeBody()
	switch b := body.(type) {
	case network.ReceiptBody:
		status = string(b.Status)
		if b.ForID != ow.opening.ID {
			// Only an accepted receipt of the opening says the work is
			// being worked on.
			status = ""
		}
		a.log.Printf("initiator: work %s: receipt %s %s for %s", work, env.ID, b.Status, b.ForID)
	case network.TraceBody:
		state = string(b.State)
		a.log.Printf("initiator: work %s: trace %s %s", work, env.ID, b.State)
	default:
		if err != nil {
			a.log.Printf("initiator: work %s: %s %s: %v", work, env.Kind, env.ID, err)
		} else {
			a.log.Printf("initiator: work %s: reads %s %s", work, env.Kind, env.ID)
		}
		return
	}
	switch follow(ow.order, status, state) {
	case followContinue:
		a.continueWork(ctx, ow, ow.order.Answer, &env.ID, "answer to "+env.ID)
	case followCancel:
		a.cancelWork(ctx, ow, &env.ID, "cancel_on "+ow.order.CancelOn+", on "+env.ID)
	}
}

// continueWork sends a continuation say on work the agent opened, in the
// opening's container, through Router.Send, which refuses it when the
// runtime holds the work closed.
func (a *adapter) continueWork(ctx context.Context, ow *openedWork, text string, causation *string, why string) {
	body, err := json.Marshal(network.SayBody{Text: text})
	if err != nil {
		a.log.Printf("initiator: continuation of work %s: %v", *ow.opening.WorkID, err)
		return
	}
	a.sendOnOpened(ctx, ow, network.KindSay, body, causation, "say (continuation)", why)
}

// cancelWork sends the initiator's cancel, a receipt with status canceled
// for the opening (no reply_to: it answers no message of the target's;
// causation_id the message that made the agent cancel, if any), through
// Router.Send, which refuses it when the runtime holds the work closed (a
// second cancel among them).
func (a *adapter) cancelWork(ctx context.Context, ow *openedWork, causation *string, why string) {
	body, err := json.Marshal(network.ReceiptBody{ForID: ow.opening.ID, Status: network.ReceiptStatusCanceled})
	if err != nil {
		a.log.Printf("initiator: cancel of work %s: %v", *ow.opening.WorkID, err)
		return
	}
	a.sendOnOpened(ctx, ow, network.KindReceipt, body, causation, "receipt(canceled)", why)
}

func (a *adapter) sendOnOpened(ctx context.Context, ow *openedWork, kind network.Kind, body json.RawMessage, causation *string, what, why string) {
	o := ow.opening
	req := network.SendRequest{
		SessionID:   sessionID,
		Channel:     a.cfg.Channel,
		Kind:        kind,
		To:          o.To,
		Surface:     o.Surface,
		ThreadID:    o.ThreadID,
		DirectID:    o.DirectID,
		WorkID:      o.WorkID,
		TraceID:     o.TraceID,
		CausationID: causation,
		Body:        body,
	}
	sent, err := a.router.Send(ctx, req)
	if err != nil {
		a.log.Printf("initiator: %s for work %s (%s) not sent: the runtime refused: %v", what, *o.WorkID, why, err)
		return
	}
	a.log.Printf("initiator: sent %s %s for work %s (%s)", what, sent.ID, *o.WorkID, why)
}

// capabilityBody is a capability opening's body for the order's document,
// as an agent passes it to `agh network send --body`: the document as given,
// with the digest the runtime computes (aghconfig.CanonicalCapabilityDigest,
// the function its own validation checks a digest against) in place of any
// given. The runtime reads the members its CapabilityEnvelopePayload knows
// and publishes the body as it was passed, other members included.
func capabilityBody(doc map[string]any) (json.RawMessage, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("capability: %w", err)
	}
	var c network.CapabilityEnvelopePayload
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("capability: the runtime's capability document cannot hold it: %w", err)
	}
	digest, err := aghconfig.CanonicalCapabilityDigest(aghconfig.CapabilityDef{
		ID:                c.ID,
		Summary:           c.Summary,
		Outcome:           c.Outcome,
		Version:           c.Version,
		ContextNeeded:     c.ContextNeeded,
		ArtifactsExpected: c.ArtifactsExpected,
		ExecutionOutline:  c.ExecutionOutline,
		Constraints:       c.Constraints,
		Examples:          c.Examples,
		Requirements:      c.Requirements,
	})
	if err != nil {
		return nil, fmt.Errorf("capability digest: %w", err)
	}
	withDigest := make(map[string]any, len(doc)+1)
	for k, v := range doc {
		withDigest[k] = v
	}
	withDigest["digest"] = digest
	return json.Marshal(map[string]any{"capability": withDigest})
}
