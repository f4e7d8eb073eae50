package peer

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
)

// edgeFaultCases are the behaviour tests of the faults and variants that
// show a verdict holds at the edges: an answer on another subject, a
// refusal in the work's container, a direct room on either side of the
// peer's id.
var edgeFaultCases = []faultCase{
	{faultWhoisOnBroadcast, nil, func(t *testing.T, r *rig) {
		req := r.env("whois", map[string]any{"type": "request", "query": ""})
		r.send(req)
		for {
			env, subj := r.next(wait)
			if env == nil {
				t.Fatal("no whois response")
			}
			if env["kind"] != "whois" {
				continue
			}
			if subj != agh.BroadcastSubject(testWS, testChannel) || env["to"] != nil || env["reply_to"] != req["id"] {
				t.Fatalf("whois response on %s to %v reply_to %v; want it broadcast (to null) answering %v", subj, env["to"], env["reply_to"], req["id"])
			}
			return
		}
	}},
	{faultMismatchInWork, nil, func(t *testing.T, r *rig) {
		w := r.work("held open")
		w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "needs_input", "message": "?"}}}}
		r.send(w)
		r.expect("receipt")
		r.expect("trace")
		other := r.follow(w, "say", map[string]any{"text": "from elsewhere"})
		other["thread_id"] = "thread_elsewhere"
		r.send(other)
		got := r.expect("receipt")
		wantReceipt(t, got, other, "rejected", "work_container_mismatch")
		if got["thread_id"] != w["thread_id"] {
			t.Errorf("refusal in thread %v, want the work's %v", got["thread_id"], w["thread_id"])
		}
	}},
	{faultDirectUnsorted, nil, func(t *testing.T, r *rig) {
		// The tester (tester.…) sorts after the peer (ref.…): the sorted
		// pair is (peer, tester), the fault's is (tester, peer).
		room := func(text, directID string) map[string]any {
			w := r.work(text)
			delete(w, "thread_id")
			w["surface"], w["direct_id"] = agh.SurfaceDirect, directID
			return w
		}
		sorted, err := agh.DirectID(testWS, testChannel, r.me, r.peerID)
		if err != nil {
			t.Fatal(err)
		}
		right := room("the sorted pair", sorted)
		r.send(right)
		wantReceipt(t, r.expect("receipt"), right, "rejected", "malformed")
		unsorted := room("the pair unsorted", agh.DirectIDInOrder(testWS, testChannel, r.me, r.peerID))
		r.send(unsorted)
		wantReceipt(t, r.expect("receipt"), unsorted, "accepted", "")
	}},
}

// With LongWork the work the peer does on its own stays working: the
// opening gets its receipt and working trace and nothing more, and so does
// an answer to needs_input; scripted work still follows its script.
func TestLongWork(t *testing.T) {
	r := newRig(t, withConfig(func(c *Config) { c.LongWork = true }))
	w := r.work("take your time")
	r.send(w)
	wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	wantTrace(t, r.expect("trace"), w, w, "working")
	r.silence()
	paused := r.work("ask me")
	paused["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "working"}, map[string]any{"state": "needs_input", "message": "which?"}}}}
	r.send(paused)
	r.expect("receipt")
	r.expect("trace")
	wantTrace(t, r.expect("trace"), paused, paused, "needs_input")
	answer := r.follow(paused, "say", map[string]any{"text": "this one"})
	r.send(answer)
	wantTrace(t, r.expect("trace"), paused, answer, "working")
	r.silence()
}
