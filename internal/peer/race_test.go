package peer

import (
	"fmt"
	"testing"
)

// raceFaultCases are the behaviour tests of the faults of a concurrent
// peer (race.go).
var raceFaultCases = []faultCase{
	// Two copies sent together both pass the dedupe lookup: the second
	// opens the work again. A copy sent after the first was handled is a
	// duplicate, as with the correct peer.
	{faultRacyDedupe, nil, func(t *testing.T, r *rig) {
		w := r.work("twice at once")
		b := r.send(w)
		r.toPeer(b)
		got := r.collect(6)
		want := "receipt(accepted) trace(working) trace(completed) receipt(accepted) trace(working) trace(completed)"
		if s := labels(got); s != want {
			t.Fatalf("two copies at once got %s, want %s", s, want)
		}
		r.toPeer(b)
		wantReceipt(t, r.expect("receipt"), w, "duplicate", "duplicate")
	}},
	// Units opened together are bound to one container: the later ones
	// report in the first one's.
	{faultWorkByArrival, nil, func(t *testing.T, r *rig) {
		var ws []map[string]any
		for i := range 5 {
			w := r.work(fmt.Sprint("unit ", i))
			ws = append(ws, w)
			r.toPeer(mustJSON(w))
		}
		thread := map[any]any{}
		for _, w := range ws {
			thread[w["work_id"]] = w["thread_id"]
		}
		mixed := 0
		for _, env := range r.collect(15) {
			if env["kind"] == "trace" && env["thread_id"] != thread[env["work_id"]] {
				mixed++
			}
		}
		// Five openings in one burst arrive within fewer than five
		// milliseconds: at least two share one.
		if mixed == 0 {
			t.Fatal("every trace of five units opened together stayed in its own thread")
		}
	}},
}

// collect returns the next n envelopes the peer sends but greets.
func (r *rig) collect(n int) []map[string]any {
	r.t.Helper()
	out := make([]map[string]any, 0, n)
	for len(out) < n {
		env, _ := r.next(wait)
		if env == nil {
			r.t.Fatalf("waited %v for envelope %d of %d, got nothing", wait, len(out)+1, n)
		}
		if env["kind"] != "greet" {
			out = append(out, env)
		}
	}
	return out
}

// labels names each envelope as kind(status or state), space-separated.
func labels(envs []map[string]any) string {
	s := ""
	for i, env := range envs {
		if i > 0 {
			s += " "
		}
		b := body(env)
		what := b["status"]
		if env["kind"] == "trace" {
			what = b["state"]
		}
		s += fmt.Sprintf("%v(%v)", env["kind"], what)
	}
	return s
}

// The correct peer answers the second of two copies sent together as a
// duplicate: the race is the fault's alone.
func TestCopiesAtOnceAnsweredDuplicate(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	w := r.work("twice at once")
	b := r.send(w)
	r.toPeer(b)
	got := r.collect(4)
	want := "receipt(accepted) trace(working) trace(completed) receipt(duplicate)"
	if s := labels(got); s != want {
		t.Fatalf("two copies at once got %s, want %s", s, want)
	}
}
