package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// A step that needs the work to end is not observable only when the IUT
// reported the work under way and nothing the step waits for, and answered
// the fresh work sent after the ceiling; otherwise its failure stands, and
// without a work under way no proof is even asked for.
func TestUnendedWork(t *testing.T) {
	trace := func(state string, detail bool) map[string]any {
		body := map[string]any{"state": state}
		if detail {
			body["message"] = "why"
		}
		return map[string]any{"kind": "trace", "work_id": "w1", "body": body}
	}
	receipt := func(forID, status string) map[string]any {
		return map[string]any{"kind": "receipt", "work_id": "w1", "body": map[string]any{"for_id": forID, "status": status}}
	}
	ended := &scenario.Expect{Match: map[string]any{"kind": "trace", "work_id": "w1", "body": map[string]any{"state": "completed"}}, NeedsEnd: "ended work"}
	paused := &scenario.Expect{AnyOf: []map[string]any{
		{"kind": "trace", "work_id": "w1", "body": map[string]any{"state": map[string]any{"$in": []any{"completed", "needs_input"}}, "message": map[string]any{"$present": true}}},
	}, NeedsEnd: "ended or paused work"}
	for _, tc := range []struct {
		name     string
		step     *scenario.Expect
		sent     []map[string]any
		answered bool   // the IUT answers the proof
		want     string // in the skip message; "" when the step's failure stands
		proved   bool   // a proof was sent
	}{
		{"working, still serving", ended, []map[string]any{receipt("m1", "accepted"), trace("working", false)}, true, "work w1 is still working", true},
		{"accepted only, still serving", ended, []map[string]any{receipt("m1", "accepted")}, true, "work w1 is still working", true},
		{"paused where the step waits for an end", ended, []map[string]any{trace("working", false), trace("needs_input", true)}, true, "work w1 is still waiting for input (needs_input)", true},
		{"working, no longer serving", ended, []map[string]any{trace("working", false)}, false, "", true},
		{"paused without the detail the step asks for", paused, []map[string]any{trace("working", false), trace("needs_input", false)}, true, "", false},
		{"ended in another state", ended, []map[string]any{trace("working", false), trace("failed", true)}, true, "", false},
		{"refused", ended, []map[string]any{receipt("m1", "rejected")}, true, "", false},
		{"never reported", ended, nil, true, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newInbox()
			w := &waiter{r: &runner{start: time.Now()}, tctx: &scenario.Context{}, in: in}
			w.noteSend([]string{"m1", "w1"}, 1)
			for i, env := range tc.sent {
				in.add(&message{seq: i + 1, env: env}, false)
			}
			proved := false
			w.prove = func(context.Context) ([]string, error) {
				proved = true
				if tc.answered {
					in.add(&message{seq: 100, env: map[string]any{"kind": "receipt", "body": map[string]any{"for_id": "proof", "status": "accepted"}}}, false)
				}
				return []string{"proof", "proof-work"}, nil
			}
			// A short ceiling: the unanswered proof waits it out, the
			// answered one does not wait.
			sr, ok := w.unended(context.Background(), report.StepResult{}, tc.step, tc.step.Patterns(), 50*time.Millisecond)
			switch {
			case proved != tc.proved:
				t.Errorf("proof sent %v, want %v", proved, tc.proved)
			case tc.want == "" && ok:
				t.Errorf("%s (%s); want the step's failure to stand", sr.Outcome, sr.Message)
			case tc.want != "" && (!ok || sr.Outcome != report.Skip || !strings.Contains(sr.Message, "not observable: "+tc.step.NeedsEnd) || !strings.Contains(sr.Message, tc.want)):
				t.Errorf("%v %s (%s); want not observable saying %q", ok, sr.Outcome, sr.Message, tc.want)
			}
		})
	}
}
