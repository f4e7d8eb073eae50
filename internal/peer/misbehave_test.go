package peer

import "testing"

// trackerFaultCases are the behaviour tests of the faults only the
// work-unit tracker catches (TestFaultsChangeBehaviour runs them).
var trackerFaultCases = []faultCase{
	{faultBackToSubmitted, nil, func(t *testing.T, r *rig) {
		r.send(r.work("x"))
		r.expect("receipt")
		states := []any{body(r.expect("trace"))["state"], body(r.expect("trace"))["state"], body(r.expect("trace"))["state"]}
		if states[0] != "working" || states[1] != "submitted" || states[2] != "completed" {
			t.Fatalf("trace states %v, want working, submitted, completed", states)
		}
	}},
	{faultReportAfterDone, nil, func(t *testing.T, r *rig) {
		completeDefault(r, r.work("x"))
		if s := body(r.expect("trace"))["state"]; s != "working" {
			t.Fatalf("after completed: a %v trace, want working", s)
		}
	}},
	{faultContainerJump, nil, func(t *testing.T, r *rig) {
		w := r.work("x")
		r.send(w)
		r.expect("receipt")
		r.expect("trace")
		if done := r.expect("trace"); done["thread_id"] == w["thread_id"] {
			t.Fatalf("the completed trace stayed in %v", done["thread_id"])
		}
	}},
	{faultReuseID, nil, func(t *testing.T, r *rig) {
		r.send(r.work("x"))
		r.expect("receipt")
		working, done := r.expect("trace"), r.expect("trace")
		if working["id"] != done["id"] || body(done)["state"] != "completed" {
			t.Fatalf("trace ids %v and %v, want one id twice", working["id"], done["id"])
		}
	}},
	{faultForIDUnknown, nil, func(t *testing.T, r *rig) {
		w := r.work("x")
		r.send(w)
		if got := body(r.expect("receipt"))["for_id"]; got == w["id"] {
			t.Fatalf("receipt for_id %v names the opening", got)
		}
	}},
}
