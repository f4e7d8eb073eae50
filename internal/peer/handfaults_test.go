package peer

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
)

// joinedAt is when the last rig built withLateGreet started its peer.
var joinedAt time.Time

// withLateGreet gives the peer a short greet interval and notes when it
// starts: a peer that does not greet on join is found by its first tick.
func withLateGreet() rigOpt {
	return withConfig(func(c *Config) { c.GreetInterval, joinedAt = 400*time.Millisecond, time.Now() })
}

// needsInput opens work the control extension parks in needs_input.
func needsInput(r *rig) map[string]any {
	w := r.work("park it")
	w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{
		map[string]any{"state": "working"}, map[string]any{"state": "needs_input", "message": "?"}}}}
	r.send(w)
	r.expect("receipt")
	r.expect("trace")
	wantTrace(r.t, r.expect("trace"), w, w, "needs_input")
	return w
}

// withInbox publishes env on the peer's subject with a NATS reply subject,
// as a request or a JetStream publish does.
func withInbox(r *rig, env map[string]any, inbox string) {
	r.t.Helper()
	msg := &nats.Msg{Subject: agh.PeerSubject(testWS, testChannel, r.peerID), Reply: inbox, Data: mustJSON(env)}
	if err := r.nc.PublishMsg(msg); err != nil {
		r.t.Fatal(err)
	}
}

// handFaultCases are the behaviour tests of the faults of one behavioural
// requirement each (TestFaultsChangeBehaviour runs them).
var handFaultCases = []faultCase{
	{faultDeafAfterGarbage, nil, func(t *testing.T, r *rig) {
		r.toPeer([]byte("not json"))
		r.send(r.work("still there?"))
		r.silence()
	}},
	{faultCatalogUnasked, nil, func(t *testing.T, r *rig) {
		r.send(r.env("whois", map[string]any{"type": "request", "query": ""}))
		ext, _ := r.expect("whois")["ext"].(map[string]any)
		if ext["agh.capability_catalog"] == nil {
			t.Fatalf("no catalog in an answer that did not ask for it: %v", ext)
		}
	}},
	{faultNoJoinGreet, []rigOpt{withLateGreet()}, func(t *testing.T, r *rig) {
		if d := time.Since(joinedAt); d < 350*time.Millisecond {
			t.Fatalf("first greet %v after start: greeted on join", d)
		}
	}},
	{faultNeedsInputStuck, nil, func(t *testing.T, r *rig) {
		w := needsInput(r)
		r.send(r.follow(w, "say", map[string]any{"text": "here is the input"}))
		r.silence()
	}},
	{faultInventWork, nil, func(t *testing.T, r *rig) {
		say := r.work("no work here")
		delete(say, "work_id")
		r.send(say)
		if got := r.expect("receipt"); got["work_id"] == nil {
			t.Fatalf("receipt without an invented work_id: %s", mustJSON(got))
		}
	}},
	{faultAnyParticipant, nil, func(t *testing.T, r *rig) {
		w := needsInput(r)
		other := r.follow(w, "say", map[string]any{"text": "let me answer"})
		other["from"] = "mallory.session-9"
		r.send(other)
		wantTrace(t, r.expect("trace"), w, other, "working")
	}},
	{faultProfileBadProof, []rigOpt{withTesterKey(testKey(0))}, func(t *testing.T, r *rig) {
		w := r.work("other profile")
		r.signed(w)
		w["proof"].(map[string]any)["profile"] = "example.trust.other/v9"
		r.toPeer(mustJSON(w))
		wantReceipt(t, r.expect("receipt"), w, "rejected", "verification_failed")
	}},
	{faultBroadcastAddressed, nil, func(t *testing.T, r *rig) {
		w := r.work("for bob")
		w["to"] = "bob.session-2"
		r.sendRaw(agh.BroadcastSubject(testWS, testChannel), mustJSON(w))
		if got := r.expect("receipt"); body(got)["status"] != "accepted" {
			t.Fatalf("want the work taken, got %s", mustJSON(got))
		}
	}},
	{faultChannelOnly, nil, func(t *testing.T, r *rig) {
		w := r.work("obsolete subject")
		r.sendRaw(agh.SubjectPrefix+"."+testChannel+".peer."+agh.RouteToken(r.peerID), mustJSON(w))
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	}},
	{faultReplyOnInbox, nil, func(t *testing.T, r *rig) {
		inbox := "_INBOX.test.reply"
		r.subscribe(inbox)
		if err := r.nc.Flush(); err != nil {
			t.Fatal(err)
		}
		withInbox(r, r.work("request"), inbox)
		if _, subj := r.next(wait); subj != inbox {
			t.Fatalf("answer on %q, want the inbox", subj)
		}
	}},
	{faultSplitPayload, nil, func(t *testing.T, r *rig) {
		a, b := r.work("first"), r.work("second")
		r.toPeer(append(append(mustJSON(a), '\n'), mustJSON(b)...))
		wantReceipt(t, r.expect("receipt"), a, "accepted", "")
	}},
	{faultSmallPayload, nil, func(t *testing.T, r *rig) {
		r.send(r.work(strings.Repeat("x", smallPayload)))
		r.silence()
	}},
	{faultStreamAck, nil, func(t *testing.T, r *rig) {
		w := r.work("through a stream")
		withInbox(r, w, "_INBOX.test.ack")
		wantTrace(t, r.expect("trace"), w, w, "working")
	}},
	{faultReferenceReadings, nil, func(t *testing.T, r *rig) {
		w := r.work("in a thread the runtime's grammar refuses")
		w["thread_id"] = "Launch-Plan.q3"
		r.send(w)
		r.silence() // its thread is no usable container under that reading: no receipt
		ahead := r.work("from a clock ahead")
		ahead["ts"], ahead["expires_at"] = time.Now().Unix()+400, time.Now().Unix()+900
		ahead["thread_id"] = "thread_ahead" // the rig's thread_t2 is too short for that grammar
		r.send(ahead)
		wantReceipt(t, r.expect("receipt"), ahead, "expired", "expired")
	}},
	{faultReplyToUnknown, nil, func(t *testing.T, r *rig) {
		w := r.work("answer me")
		r.send(w)
		if got := r.expect("receipt"); got["reply_to"] == w["id"] {
			t.Fatalf("receipt reply_to names the opening: %s", mustJSON(got))
		}
	}},
	{faultWhoisReplyUnknown, nil, func(t *testing.T, r *rig) {
		q := r.env("whois", map[string]any{"type": "request", "query": ""})
		r.send(q)
		if got := r.expect("whois"); got["reply_to"] == q["id"] {
			t.Fatalf("whois response reply_to names the request: %s", mustJSON(got))
		}
	}},
	{faultCardWithoutV0, nil, func(t *testing.T, r *rig) {
		list, _ := body(r.greet)["peer_card"].(map[string]any)["profiles_supported"].([]any)
		for _, v := range list {
			if v == agh.Protocol {
				t.Fatalf("profiles_supported %v lists %s", list, agh.Protocol)
			}
		}
	}},
	{faultReportOthersWork, nil, func(t *testing.T, r *rig) {
		w := r.work("for bob")
		w["to"] = "bob.session-2"
		r.sendRaw(agh.BroadcastSubject(testWS, testChannel), mustJSON(w))
		if got := r.expect("receipt"); got["to"] != r.me || body(got)["status"] != "accepted" {
			t.Fatalf("want an accepted receipt to the initiator, got %s", mustJSON(got))
		}
		r.silence() // acknowledged, not worked
	}},
	{faultBareCompleted, nil, func(t *testing.T, r *rig) {
		w := r.work("echo me")
		r.send(w)
		r.expect("receipt")
		r.expect("trace")
		if done := body(r.expect("trace")); done["state"] != "completed" || done["result"] != nil || done["message"] != nil {
			t.Fatalf("want a bare completed trace, got %v", done)
		}
	}},
	{FaultEmit + "RECEIPT-STATUS", nil, func(t *testing.T, r *rig) {
		r.send(r.work("ok?"))
		if got := body(r.expect("receipt"))["status"]; got != "ok" {
			t.Fatalf("receipt status %v, want the patched ok", got)
		}
	}},
}

// A peer overlooking a rule acts on what it accepted, so that accepting
// shows (loose.go): the correct peer refuses each of these in silence.
func TestOverlookActsLoosely(t *testing.T) {
	for _, c := range []struct {
		rule, from, to string
		check          func(receipt map[string]any) bool
	}{
		{"ENV-SURFACE-ENUM", `"surface":"thread"`, `"surface":"room"`, func(r map[string]any) bool { return r["surface"] == "room" }},
		{"ENV-THREAD-ID-REQUIRED", `"thread_id":"thread_b1",`, ``, func(r map[string]any) bool { _, has := r["thread_id"]; return !has }},
		{"ENV-KIND", `"kind":"say"`, `"kind":"shout"`, func(map[string]any) bool { return true }},
		{"ENV-TO-GRAMMAR", `"to":"ref.peer-1"`, `"to":""`, func(r map[string]any) bool { return r["to"] == "tester.session-1" }},
	} {
		t.Run(c.rule, func(t *testing.T) {
			msg := []byte(strings.Replace(string(workSay(1, time.Now().Unix(), "")), c.from, c.to, 1))
			for _, faults := range [][]string{nil, {FaultOverlook + c.rule}} {
				p, out := offline(t, faults...)
				p.handle(p.ownSubject, msg)
				var receipt map[string]any
				for _, s := range *out {
					var env map[string]any
					if json.Unmarshal(s.data, &env) == nil && env["kind"] == "receipt" && body(env)["status"] == "accepted" {
						receipt = env
					}
				}
				switch {
				case faults == nil && len(*out) > 0:
					t.Fatalf("the correct peer answered %s", (*out)[0].data)
				case faults != nil && (receipt == nil || !c.check(receipt)):
					t.Fatalf("overlooking %s: accepted receipt %v, sent %d", c.rule, receipt, len(*out))
				}
			}
		})
	}
}
