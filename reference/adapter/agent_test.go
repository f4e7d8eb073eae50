package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The agent follows a control script, or works at once without one, and
// refuses a script that would break the lifecycle with one malformed
// receipt (docs/control-extension.md).
func TestPlan(t *testing.T) {
	open := func(state string) *agentWork { return &agentWork{state: state, initiator: "alice"} }
	show := func(rs []reply) string {
		var out []string
		for _, r := range rs {
			if r.Status != "" {
				out = append(out, "receipt("+r.Status+" "+r.ReasonCode+")")
			} else {
				out = append(out, "trace("+r.State+")")
			}
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		name   string
		w      *agentWork
		cancel bool
		script string
		want   string
		next   string
	}{
		{"opening, no script", nil, false, "", "receipt(accepted ) trace(working) trace(completed)", "completed"},
		{"opening, held open", nil, false, `{"receipt":"accepted","traces":[{"state":"working"},{"state":"needs_input","message":"Which branch?"}]}`,
			"receipt(accepted ) trace(working) trace(needs_input)", "needs_input"},
		{"opening, receipt by default", nil, false, `{"traces":[{"state":"working"}]}`, "receipt(accepted ) trace(working)", "working"},
		{"opening, busy", nil, false, `{"receipt":"rejected"}`, "receipt(rejected busy)", "failed"},
		{"answer while waiting", open("needs_input"), false, "", "trace(working) trace(completed)", "completed"},
		{"answer while working: read", open("working"), false, "", "", "working"},
		{"scripted answer", open("needs_input"), false, `{"traces":[{"state":"working"}]}`, "trace(working)", "working"},
		{"cancel open work", open("working"), true, "", "trace(canceled)", "canceled"},
		{"cancel again", open("canceled"), true, "", "", "canceled"},
		{"cancel ended work", open("completed"), true, "", "", "completed"},
		{"cancel unknown work", nil, true, "", "", "submitted"},
		{"not an object", nil, false, `"go"`, "receipt(rejected malformed)", "failed"},
		{"null", nil, false, `null`, "receipt(rejected malformed)", "failed"},
		{"unknown member", nil, false, `{"receipts":"accepted"}`, "receipt(rejected malformed)", "failed"},
		{"reason without rejected", nil, false, `{"receipt":"accepted","reason_code":"busy"}`, "receipt(rejected malformed)", "failed"},
		{"needs_input from submitted", nil, false, `{"receipt":"rejected","traces":[{"state":"needs_input"}]}`, "receipt(rejected malformed)", "failed"},
		{"after terminal", nil, false, `{"traces":[{"state":"completed"},{"state":"working"}]}`, "receipt(rejected malformed)", "failed"},
		{"submitted trace", nil, false, `{"traces":[{"state":"submitted"}]}`, "receipt(rejected malformed)", "failed"},
		{"bad continuation keeps the work", open("needs_input"), false, `{"traces":[{"state":"paused"}]}`, "receipt(rejected malformed)", "needs_input"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var raw json.RawMessage
			if tt.script != "" {
				raw = json.RawMessage(tt.script)
			}
			got, next := plan(tt.w, tt.cancel, raw)
			if show(got) != tt.want || next != tt.next {
				t.Errorf("%q then %s, want %q then %s", show(got), next, tt.want, tt.next)
			}
			for _, r := range got {
				if r.ReasonCode == "malformed" && !strings.HasPrefix(r.Detail, controlProfile+": ") {
					t.Errorf("detail %q does not name the extension", r.Detail)
				}
			}
		})
	}
}
