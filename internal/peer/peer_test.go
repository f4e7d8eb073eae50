package peer

import (
	"slices"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/trust"
)

func TestGreetOnJoin(t *testing.T) {
	r := newRig(t, withConfig(func(c *Config) { c.GreetInterval = 150 * time.Millisecond }))
	card := body(r.greet)["peer_card"].(map[string]any)
	if card["peer_id"] != r.greet["from"] || r.peerID != "ref.peer-1" {
		t.Fatalf("greet from %v with card peer_id %v", r.greet["from"], card["peer_id"])
	}
	if !slices.Contains(card["profiles_supported"].([]any), any(control.Name)) {
		t.Errorf("Peer Card does not advertise %s: %v", control.Name, card["profiles_supported"])
	}
	// The presence heartbeat repeats every interval.
	g, subj := r.next(wait)
	if g == nil || g["kind"] != "greet" || subj != agh.BroadcastSubject(testWS, testChannel) {
		t.Fatalf("no periodic greet on the broadcast subject: %v on %q", g, subj)
	}
	if g["id"] == r.greet["id"] {
		t.Error("periodic greet reuses the first greet's id")
	}
}

// A peer without the trust profile (--no-trust) does not list it nor the
// verified mode, and takes a signed message whatever its proof: a receiver
// that does not take the profile owes no refusal for its rules.
func TestNoTrust(t *testing.T) {
	r := newRig(t, withConfig(func(c *Config) { c.NoTrust = true }), withTesterKey(testKey(0)))
	card := body(r.greet)["peer_card"].(map[string]any)
	if slices.Contains(card["profiles_supported"].([]any), any(trust.ProfileID)) || slices.Contains(card["trust_modes_supported"].([]any), any("verified")) {
		t.Errorf("a peer without the trust profile advertises it: %v, %v", card["profiles_supported"], card["trust_modes_supported"])
	}
	w := r.work("signed")
	r.signed(w)
	w["body"].(map[string]any)["text"] = "tampered"
	r.toPeer(mustJSON(w))
	wantReceipt(t, r.expect("receipt"), w, "accepted", "")
}

func TestWhois(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		name     string
		to       any
		query    string
		ext      map[string]any
		answered bool
		catalog  int // -1: no catalog ext expected
	}{
		{"directed, query matches nothing", "peer", "no-such-thing", nil, true, -1},
		{"broadcast, empty query", nil, "", nil, true, -1},
		{"broadcast, peer id", nil, "ref.peer-1", nil, true, -1},
		{"broadcast, display name", nil, DefaultDisplayName, nil, true, -1},
		{"broadcast, capability", nil, "echo", nil, true, -1},
		{"broadcast, profile", nil, control.Name, nil, true, -1},
		{"broadcast, artifact type", nil, "capability", nil, true, -1},
		{"broadcast, trust mode", nil, "unverified", nil, true, -1},
		{"broadcast, no match", nil, "someone.else", nil, false, -1},
		{"catalog asked", "peer", "", map[string]any{"agh.include": []any{"capability_catalog"}}, true, 1},
		{"catalog filtered to nothing", "peer", "", map[string]any{"agh.include": []any{"capability_catalog"}, "agh.capability_ids": []any{"nope"}}, true, 0},
		{"catalog filtered to echo", "peer", "", map[string]any{"agh.include": []any{"capability_catalog"}, "agh.capability_ids": []any{"echo"}}, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			req := r.env("whois", map[string]any{"type": "request", "query": c.query})
			if c.to == nil {
				req["to"] = nil
			}
			if c.ext != nil {
				req["ext"] = c.ext
			}
			r.send(req)
			if !c.answered {
				r.silence()
				return
			}
			resp := r.expect("whois")
			b := body(resp)
			card, _ := b["peer_card"].(map[string]any)
			if b["type"] != "response" || resp["reply_to"] != req["id"] || resp["to"] != r.me || card["peer_id"] != resp["from"] {
				t.Fatalf("bad whois response %s", mustJSON(resp))
			}
			ext, _ := resp["ext"].(map[string]any)
			cat, hasCat := ext["agh.capability_catalog"].(map[string]any)
			switch {
			case c.catalog < 0 && hasCat:
				t.Errorf("catalog sent unasked: %v", ext)
			case c.catalog >= 0 && (!hasCat || len(cat["capabilities"].([]any)) != c.catalog):
				t.Errorf("want %d catalog entries, got %v", c.catalog, ext)
			}
			if _, inCard := card["ext"].(map[string]any)["agh.capability_catalog"]; inCard {
				t.Error("catalog must sit at the envelope level, not in peer_card.ext")
			}
		})
	}
}

func TestLifecycleDefault(t *testing.T) {
	r := newRig(t)
	w := r.work("hello, echo")
	r.send(w)
	wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	wantTrace(t, r.expect("trace"), w, w, "working")
	done := r.expect("trace")
	wantTrace(t, done, w, w, "completed")
	if res, _ := body(done)["result"].(map[string]any); res["echo"] != "hello, echo" {
		t.Errorf("completed result %v, want echo of the text", body(done)["result"])
	}
	r.silence()

	// Work on a direct surface answers inside the same direct room.
	d := r.env("say", map[string]any{"text": "direct work"})
	id, err := agh.DirectID(testWS, testChannel, r.me, r.peerID)
	if err != nil {
		t.Fatal(err)
	}
	d["surface"], d["direct_id"], d["work_id"] = "direct", id, "work_direct_1"
	r.send(d)
	for _, kind := range []string{"receipt", "trace", "trace"} {
		if got := r.expect(kind); got["direct_id"] != id || got["surface"] != "direct" || got["thread_id"] != nil {
			t.Fatalf("%s left the direct room: %s", kind, mustJSON(got))
		}
	}
}

func TestLifecycleScripted(t *testing.T) {
	r := newRig(t)
	t.Run("needs_input then default continuation", func(t *testing.T) {
		r.t = t
		w := r.work("needs more")
		w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{
			map[string]any{"state": "working"},
			map[string]any{"state": "needs_input", "message": "which branch?"},
		}}}
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
		wantTrace(t, r.expect("trace"), w, w, "working")
		ni := r.expect("trace")
		wantTrace(t, ni, w, w, "needs_input")
		if body(ni)["message"] != "which branch?" {
			t.Errorf("needs_input message %v", body(ni)["message"])
		}
		r.silence()
		cont := r.follow(w, "say", map[string]any{"text": "staging"})
		r.send(cont)
		wantTrace(t, r.expect("trace"), w, cont, "working")
		done := r.expect("trace")
		wantTrace(t, done, w, cont, "completed")
		if body(done)["result"].(map[string]any)["echo"] != "staging" {
			t.Errorf("continuation result %v", body(done)["result"])
		}
	})
	t.Run("scripted continuation", func(t *testing.T) {
		r.t = t
		w := r.work("two steps")
		w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "needs_input", "message": "?"}}}}
		r.send(w)
		r.expect("receipt")
		r.expect("trace")
		cont := r.follow(w, "say", map[string]any{"text": "go"})
		cont["ext"] = map[string]any{control.Name: map[string]any{"receipt": "accepted", "traces": []any{
			map[string]any{"state": "working"}, map[string]any{"state": "failed", "message": "boom"},
		}}}
		r.send(cont)
		wantReceipt(t, r.expect("receipt"), cont, "accepted", "")
		wantTrace(t, r.expect("trace"), w, cont, "working")
		wantTrace(t, r.expect("trace"), w, cont, "failed")
		r.silence()
	})
	t.Run("rejected busy", func(t *testing.T) {
		r.t = t
		w := r.work("not now")
		w["ext"] = map[string]any{control.Name: map[string]any{"receipt": "rejected", "reason_code": "busy"}}
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "busy")
		r.silence()
		cont := r.follow(w, "say", map[string]any{"text": "again"})
		r.send(cont)
		wantReceipt(t, r.expect("receipt"), cont, "rejected", "work_closed")
	})
	t.Run("open-ended script leaves work open", func(t *testing.T) {
		r.t = t
		w := r.work("keep going")
		w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "working", "message": "50%"}}}}
		r.send(w)
		r.expect("receipt")
		wantTrace(t, r.expect("trace"), w, w, "working")
		r.silence()
		c := r.cancelOf(w)
		r.send(c)
		wantTrace(t, r.expect("trace"), w, c, "canceled")
	})
	for _, bad := range []struct {
		name   string
		script any
	}{
		{"not an object", "accepted"},
		{"unknown receipt", map[string]any{"receipt": "maybe"}},
		{"back to submitted", map[string]any{"traces": []any{map[string]any{"state": "submitted"}}}},
		{"after terminal", map[string]any{"traces": []any{map[string]any{"state": "completed"}, map[string]any{"state": "working"}}}},
		{"missing state", map[string]any{"traces": []any{map[string]any{"message": "x"}}}},
		{"result not an object", map[string]any{"traces": []any{map[string]any{"state": "completed", "result": 3}}}},
	} {
		t.Run("invalid script/"+bad.name, func(t *testing.T) {
			r.t = t
			w := r.work("bad script")
			w["ext"] = map[string]any{control.Name: bad.script}
			r.send(w)
			wantReceipt(t, r.expect("receipt"), w, "rejected", "malformed")
			r.silence()
		})
	}
}

func TestCancel(t *testing.T) {
	r := newRig(t)
	w := r.work("long job")
	w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "working"}}}}
	r.send(w)
	r.expect("receipt")
	r.expect("trace")
	c1 := r.cancelOf(w)
	r.send(c1)
	wantTrace(t, r.expect("trace"), w, c1, "canceled")
	// Idempotent: a second cancel changes nothing and says nothing.
	r.send(r.cancelOf(w))
	r.silence()
	// A later continuation finds the work closed.
	cont := r.follow(w, "say", map[string]any{"text": "still there?"})
	r.send(cont)
	wantReceipt(t, r.expect("receipt"), cont, "rejected", "work_closed")

	// Cancel on completed work: closed, no trace.
	done := r.work("quick")
	r.send(done)
	r.expect("receipt")
	r.expect("trace")
	r.expect("trace")
	c2 := r.cancelOf(done)
	r.send(c2)
	wantReceipt(t, r.expect("receipt"), c2, "rejected", "work_closed")
}

func TestTerminalAndContainer(t *testing.T) {
	r := newRig(t)
	w := r.work("finish me")
	r.send(w)
	r.expect("receipt")
	r.expect("trace")
	r.expect("trace")

	cont := r.follow(w, "say", map[string]any{"text": "one more thing"})
	r.send(cont)
	wantReceipt(t, r.expect("receipt"), cont, "rejected", "work_closed")

	late := r.follow(w, "trace", map[string]any{"state": "working"})
	r.send(late)
	wantReceipt(t, r.expect("receipt"), late, "rejected", "work_closed")

	other := r.follow(w, "say", map[string]any{"text": "same work, other thread"})
	other["thread_id"] = "thread_somewhere_else"
	r.send(other)
	got := r.expect("receipt")
	wantReceipt(t, got, other, "rejected", "work_container_mismatch")
	if got["thread_id"] != "thread_somewhere_else" {
		t.Errorf("mismatch receipt must answer in the sender's container, got %v", got["thread_id"])
	}
}

func TestNonParticipant(t *testing.T) {
	r := newRig(t)
	w := r.work("ask me")
	w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "needs_input", "message": "?"}}}}
	r.send(w)
	r.expect("receipt")
	r.expect("trace")

	// A third peer speaks on the same work: refused, state untouched.
	intruder := "intruder.session-9"
	r.subscribe(agh.PeerSubject(testWS, testChannel, intruder))
	x := r.follow(w, "say", map[string]any{"text": "let me in"})
	x["from"] = intruder
	r.send(x)
	wantReceipt(t, r.expect("receipt"), x, "rejected", "not_target")
	xc := r.cancelOf(w)
	xc["from"] = intruder
	r.send(xc)
	wantReceipt(t, r.expect("receipt"), xc, "rejected", "not_target")

	cont := r.follow(w, "say", map[string]any{"text": "answer"})
	r.send(cont)
	wantTrace(t, r.expect("trace"), w, cont, "working")
	wantTrace(t, r.expect("trace"), w, cont, "completed")
}

func TestRefusals(t *testing.T) {
	r := newRig(t)
	now := time.Now().Unix()
	t.Run("expired", func(t *testing.T) {
		r.t = t
		w := r.work("too late")
		w["expires_at"] = now - 1
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "expired", "expired")
		r.silence()
	})
	t.Run("older than the replay age", func(t *testing.T) {
		r.t = t
		w := r.work("ancient")
		w["ts"] = now - 3600
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "expired", "expired")
	})
	t.Run("duplicate", func(t *testing.T) {
		r.t = t
		w := r.work("once")
		raw := r.send(w)
		r.expect("receipt")
		r.expect("trace")
		r.expect("trace")
		r.toPeer(raw)
		wantReceipt(t, r.expect("receipt"), w, "duplicate", "duplicate")
		r.silence()
	})
	t.Run("same id from another sender is not a duplicate", func(t *testing.T) {
		r.t = t
		w := r.work("mine")
		r.send(w)
		r.expect("receipt")
		r.expect("trace")
		r.expect("trace")
		other := "other.session-2"
		r.subscribe(agh.PeerSubject(testWS, testChannel, other))
		w2 := r.work("theirs")
		w2["id"], w2["from"] = w["id"], other
		r.send(w2)
		wantReceipt(t, r.expect("receipt"), w2, "accepted", "")
		r.expect("trace")
		r.expect("trace")
	})
	t.Run("malformed", func(t *testing.T) {
		r.t = t
		w := r.work("x")
		w["body"] = map[string]any{"intent": "request"} // text is required
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "malformed")
		r.silence()
	})
	t.Run("capability digest mismatch", func(t *testing.T) {
		r.t = t
		w := r.work("")
		w["kind"] = "capability"
		w["body"] = map[string]any{"capability": map[string]any{
			"id": "build-site", "summary": "Build the landing page.", "outcome": "A finished landing page.",
			"digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		}}
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "verification_failed")
		r.silence()
	})
	t.Run("capability with the right digest is work", func(t *testing.T) {
		r.t = t
		w := r.capabilityWork()
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
		r.expect("trace")
		if got := body(r.expect("trace"))["result"].(map[string]any)["echo"]; got != "build-site" {
			t.Errorf("capability work result echo %v", got)
		}
	})
	t.Run("no usable work context is silence", func(t *testing.T) {
		r.t = t
		direct := agh.PeerSubject(testWS, testChannel, r.peerID)
		r.sendRaw(direct, []byte(`not json at all`))
		r.sendRaw(direct, []byte(`{"kind":"say","from":"tester.session-1"}`))
		r.sendRaw(direct, []byte(`[1,2,3]`))
		old := r.env("say", map[string]any{"text": "no work id"})
		old["surface"], old["thread_id"], old["expires_at"] = "thread", "thread_x", now-5
		r.send(old)
		bc := r.work("broadcast and expired")
		bc["to"], bc["expires_at"] = nil, now-5
		r.send(bc)
		r.silence()
	})
	t.Run("directed to someone else", func(t *testing.T) {
		r.t = t
		w := r.work("wrong door")
		w["to"] = "someone.else"
		r.toPeer(mustJSON(w))
		wantReceipt(t, r.expect("receipt"), w, "rejected", "not_target")
	})
}

// capabilityWork is directed capability work for the peer's own
// build-site capability, with its right digest.
func (r *rig) capabilityWork() map[string]any {
	r.t.Helper()
	w := r.work("")
	w["kind"] = "capability"
	c := map[string]any{"id": "build-site", "summary": "Build the landing page.", "outcome": "A finished landing page."}
	d, err := agh.CapabilityDigest(c)
	if err != nil {
		r.t.Fatal(err)
	}
	c["digest"] = d
	w["body"] = map[string]any{"capability": c}
	return w
}
