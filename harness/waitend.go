package harness

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// Work at the IUT's own pace. Work Lifecycle: "The protocol does not define
// a global work timeout." A step that waits for work to end (or to pause)
// because what its scenario judges needs that state says so (needs_end).
// When its ceiling passes and the IUT has reported the work only in other,
// active states, the work is still under way, and no deadline of the
// harness's makes that a failure. Whether the IUT is still there is asked,
// not assumed: the harness sends fresh work from the scenario's first peer,
// and an answer to it is the proof that the IUT still processes what it is
// sent. Then the scenario is not observable for this IUT (skip); without
// that answer the step fails as any step whose match never came.

// servingProof is the fresh work that asks whether the IUT still serves.
func servingProof() *scenario.Send {
	return &scenario.Send{To: "iut", Envelope: map[string]any{
		"kind": "say", "id": "{{id.still-serving}}", "surface": "thread", "thread_id": "{{thread.still-serving}}",
		"work_id": "{{work.still-serving}}", "body": map[string]any{"text": "Are you still there?"},
	}}
}

// unended is the verdict of a needs_end step whose ceiling passed: not
// observable when the work is still under way and the IUT still serves;
// ok is false when that does not hold (the step fails as before).
func (w *waiter) unended(ctx context.Context, sr report.StepResult, e *scenario.Expect, pats []map[string]any, ceiling time.Duration) (_ report.StepResult, ok bool) {
	work, err := w.tctx.RenderString(e.Work())
	if err != nil || work == "" || w.prove == nil {
		return sr, false
	}
	state := w.underWay(work, pats)
	if state == "" {
		return sr, false
	}
	answer := w.stillServing(ctx, ceiling)
	if answer == nil {
		return sr, false
	}
	if state == "needs_input" {
		state = "waiting for input (needs_input)"
	}
	sr.Arrived = []string{answer.describe()}
	return sr.Judged(report.Skip, fmt.Sprintf("not observable: %s (work %s is still %s after the %s ceiling; the protocol defines no global work timeout, and the IUT still serves: it answered fresh work sent then with %s)",
		e.NeedsEnd, work, state, ceiling, answer.label())), true
}

// underWay is the state the IUT last reported work in when every report
// shows it active and none is in a state the step waits for: "working"
// after an accepted receipt or a working trace, "needs_input" when paused
// where the step waits for no pause. It is "" when the work ended, was
// refused, reached a state the step names (its verdict stands), was never
// reported, or the step names no state.
func (w *waiter) underWay(work string, pats []map[string]any) string {
	var named []string
	for _, p := range pats {
		if p["kind"] == "receipt" {
			continue // a refusal the step also takes: no state of the work
		}
		body, _ := p["body"].(map[string]any)
		states, ok := allowed(body["state"])
		if p["kind"] != "trace" || !ok {
			return "" // a step that waits for no particular state
		}
		named = append(named, states...)
	}
	if len(named) == 0 {
		return ""
	}
	carrier := w.carrier(work)
	w.in.mu.Lock()
	defer w.in.mu.Unlock()
	last := ""
	for _, m := range w.in.msgs {
		if m.env == nil || m.seq <= w.floor {
			continue
		}
		body, _ := m.env["body"].(map[string]any)
		switch m.kind() {
		case "trace":
			st, _ := body["state"].(string)
			if m.env["work_id"] != work {
				continue
			}
			if slices.Contains(named, st) || slices.Contains(terminalStates, st) || !activeState(st) {
				return ""
			}
			last = st
		case "receipt":
			if carrier == "" || body["for_id"] != carrier {
				continue
			}
			switch body["status"] {
			case "accepted":
			case "duplicate":
				continue // a copy refused, not the work
			default:
				return ""
			}
			if last == "" {
				last = "working"
			}
		}
	}
	return last
}

// activeState reports whether a trace state leaves work open.
func activeState(st string) bool {
	return st == "working" || st == "needs_input" || st == "submitted"
}

// stillServing sends the serving proof and returns the IUT's first answer
// to it (nil when none came within the ceiling, or the send failed). Its
// answers are those of a later send: no silence of the scenario counts
// them.
func (w *waiter) stillServing(ctx context.Context, ceiling time.Duration) *message {
	w.markSend()
	ids, err := w.prove(ctx)
	if err != nil || len(ids) < 2 {
		return nil
	}
	w.noteSend(ids, 1)
	pats := []map[string]any{
		{"kind": "receipt", "body": map[string]any{"for_id": ids[0]}},
		{"kind": "trace", "work_id": ids[1]},
	}
	anywhere := func(*message) bool { return true }
	t := time.NewTimer(ceiling)
	defer t.Stop()
	for {
		if hit, _, _ := w.take(pats, anywhere); hit != nil {
			return hit
		}
		select {
		case <-w.in.notify:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
