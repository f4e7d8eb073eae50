package peer

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/testwait"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// testKey is the spec's test-vector key (seed bytes 0x00..0x1f) offset by
// b, so tester and peer can hold different keys.
func testKey(b byte) ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i) + b
	}
	return ed25519.NewKeyFromSeed(seed)
}

// completeDefault runs default work w to completion.
func completeDefault(r *rig, w map[string]any) {
	r.t.Helper()
	r.send(w)
	r.expect("receipt")
	r.expect("trace")
	r.expect("trace")
}

// badDigest is directed work: a capability whose digest is wrong.
func badDigest(r *rig) map[string]any {
	c := r.work("")
	c["kind"] = "capability"
	c["body"] = map[string]any{"capability": map[string]any{"id": "x", "summary": "s", "outcome": "o",
		"digest": "sha256:" + strings.Repeat("0", 64)}}
	return c
}

// faultCase is the behaviour test of one fault: check runs against a
// peer started with that fault (and opts).
type faultCase struct {
	fault string
	opts  []rigOpt
	check func(t *testing.T, r *rig)
}

// receiverFaultCases are the faults in what the peer takes or refuses,
// and how it refuses (envelope, delivery, extensions, receiver).
var receiverFaultCases = []faultCase{
	{faultAcceptMalformed, nil, func(t *testing.T, r *rig) {
		w := r.work("x")
		w["body"] = map[string]any{"intent": "request"}
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	}},
	{faultAcceptExpired, nil, func(t *testing.T, r *rig) {
		w := r.work("stale")
		w["expires_at"] = time.Now().Unix() - 10
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	}},
	{faultHelperRefuses, nil, func(t *testing.T, r *rig) {
		// Alone it changes nothing: the peer refuses rightly itself,
		// and the helper, connected beside it, says nothing more.
		testwait.Eventually(t, wait, func() bool { return connections(r) == 3 }, "the tester, the peer and its helper connected")
		w := r.work("stale")
		w["expires_at"] = time.Now().Unix() - 10
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "expired", "expired")
		completeDefault(r, r.work("fresh"))
	}},
	{faultNoDedupe, nil, func(t *testing.T, r *rig) {
		w := r.work("twice")
		w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "needs_input", "message": "?"}}}}
		raw := r.send(w)
		r.expect("receipt")
		r.expect("trace")
		r.toPeer(raw)
		// Processed again: the control script replays on the open work.
		got, _ := r.next(wait)
		if got == nil || body(got)["status"] == "duplicate" {
			t.Fatalf("duplicate still detected: %v", got)
		}
	}},
	{faultRejectUnknownExt, nil, func(t *testing.T, r *rig) {
		w := r.work("with ext")
		w["ext"] = map[string]any{"acme.priority": "high"}
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "malformed")
	}},
	{faultOneFailureClass, nil, func(t *testing.T, r *rig) {
		// A wrong capability digest is verification_failed, not malformed.
		c := badDigest(r)
		r.send(c)
		wantReceipt(t, r.expect("receipt"), c, "rejected", "malformed")
	}},
	{faultLenientJSON, nil, func(t *testing.T, r *rig) {
		// The body's text given twice: the last one wins, and the work
		// is taken.
		w := r.work("first")
		b := mustJSON(w)
		i := strings.Index(string(b), `"text":`)
		r.toPeer([]byte(string(b[:i]) + `"text":"second",` + string(b[i:])))
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
		r.expect("trace")
		r.expect("trace")
		// A byte that is not UTF-8 is read as U+FFFD, and the work is
		// taken.
		w = r.work("cafe")
		r.toPeer([]byte(strings.Replace(string(mustJSON(w)), `"cafe"`, "\"caf\xff\"", 1)))
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	}},
	{faultExpiredSilent, nil, func(t *testing.T, r *rig) {
		w := r.work("stale")
		w["expires_at"] = time.Now().Unix() - 10
		r.send(w)
		r.silence()
	}},
	{faultRefuseSilent, nil, func(t *testing.T, r *rig) {
		w := r.work("   ")
		r.send(w)
		r.silence()
	}},
	{FaultOverlook + "FRESH-REPLAY-AGE", nil, func(t *testing.T, r *rig) {
		w := r.work("old")
		w["ts"] = time.Now().Unix() - 1000
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	}},
	{faultRequireProof, nil, func(t *testing.T, r *rig) {
		w := r.work("unsigned")
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "verification_failed")
	}},
	{faultShunOdd, nil, func(t *testing.T, r *rig) {
		odd := r.work("from the future")
		odd["ts"] = time.Now().Unix() + 3600
		r.send(odd)
		r.expect("receipt") // taken: it may be
		r.expect("trace")
		r.expect("trace")
		r.send(r.work("and now?"))
		r.silence() // its sender is shunned
	}},
	// overlook:RULE accepts a message that breaks only RULE, and refuses
	// one breaking another rule as before.
	{FaultOverlook + "ENV-WORK-ID-GRAMMAR", nil, func(t *testing.T, r *rig) {
		w := r.work("slashed")
		w["work_id"] = "work/with/slash"
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
		r.expect("trace")
		r.expect("trace")
		bad := r.work("")
		bad["body"] = map[string]any{"intent": "request"}
		r.send(bad)
		wantReceipt(t, r.expect("receipt"), bad, "rejected", "malformed")
	}},
}

// discoveryFaultCases are the faults in its greets, its Peer Card and its
// whois answers (kinds).
var discoveryFaultCases = []faultCase{
	{faultGreetCardMismatch, nil, func(t *testing.T, r *rig) {
		if id := body(r.greet)["peer_card"].(map[string]any)["peer_id"]; id == r.greet["from"] {
			t.Fatalf("greet card peer_id %v equals from", id)
		}
	}},
	{faultWhoisNoReplyTo, nil, func(t *testing.T, r *rig) {
		r.send(r.env("whois", map[string]any{"type": "request", "query": ""}))
		if resp := r.expect("whois"); resp["reply_to"] != nil {
			t.Fatalf("whois response has reply_to %v", resp["reply_to"])
		}
	}},
	{faultNoCapabilityWork, nil, func(t *testing.T, r *rig) {
		// A valid capability is refused as not_found, and the Peer
		// Card offers none; say work is still taken.
		w := r.capabilityWork()
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "not_found")
		r.silence()
		r.send(r.env("whois", map[string]any{"type": "request", "query": ""}))
		if caps := body(r.expect("whois"))["peer_card"].(map[string]any)["capabilities"].([]any); len(caps) != 0 {
			t.Errorf("card offers %v", caps)
		}
		completeDefault(r, r.work("still serving"))
	}},
	{faultWhoisDirectedDeaf, nil, func(t *testing.T, r *rig) {
		r.send(r.env("whois", map[string]any{"type": "request", "query": "nobody-here"}))
		r.silence()
	}},
	{faultWhoisAnswerAll, nil, func(t *testing.T, r *rig) {
		q := r.env("whois", map[string]any{"type": "request", "query": "nobody-here"})
		q["to"] = nil
		r.send(q)
		r.expect("whois")
	}},
}

// lifecycleFaultCases are the faults in the life of its work.
var lifecycleFaultCases = []faultCase{
	{faultReopenTerminal, nil, func(t *testing.T, r *rig) {
		w := r.work("done")
		completeDefault(r, w)
		cont := r.follow(w, "say", map[string]any{"text": "again"})
		r.send(cont)
		wantReceipt(t, r.expect("receipt"), cont, "accepted", "")
		wantTrace(t, r.expect("trace"), w, cont, "working")
	}},
	{faultCancelNotIdem, nil, func(t *testing.T, r *rig) {
		w := r.work("cancel twice")
		w["ext"] = map[string]any{control.Name: map[string]any{"traces": []any{map[string]any{"state": "working"}}}}
		r.send(w)
		r.expect("receipt")
		r.expect("trace")
		for range 2 {
			c := r.cancelOf(w)
			r.send(c)
			wantTrace(t, r.expect("trace"), w, c, "canceled")
		}
	}},
	{faultIgnoreContainer, nil, func(t *testing.T, r *rig) {
		w := r.work("here")
		completeDefault(r, w)
		other := r.follow(w, "say", map[string]any{"text": "there"})
		other["thread_id"] = "thread_elsewhere"
		r.send(other)
		if got := r.expect("receipt"); body(got)["reason_code"] == "work_container_mismatch" {
			t.Fatal("container mismatch still detected")
		}
	}},
	{faultNoAcceptedReceipt, nil, func(t *testing.T, r *rig) {
		w := r.work("no receipt")
		r.send(w)
		wantTrace(t, r.expect("trace"), w, w, "working")
	}},
	{faultClosedSilent, nil, func(t *testing.T, r *rig) {
		w := r.work("done")
		completeDefault(r, w)
		r.send(r.follow(w, "say", map[string]any{"text": "again"}))
		r.silence()
	}},
}

// senderFaultCases are the faults in what it sends and where (nats, sender).
var senderFaultCases = []faultCase{
	{faultListenWrongRoute, nil, func(t *testing.T, r *rig) {
		r.send(r.env("whois", map[string]any{"type": "request", "query": ""}))
		r.silence() // the right peer subject reaches nobody
		sum := sha256.Sum256([]byte(r.peerID))
		h := hex.EncodeToString(sum[:])
		r.sendRaw("agh.network.v0."+testWS+"."+testChannel+".peer."+h[32:], mustJSON(r.env("whois", map[string]any{"type": "request", "query": ""})))
		// What it hears there it answers on the right subject.
		if _, subj := r.next(wait); subj != agh.PeerSubject(testWS, testChannel, r.me) {
			t.Fatalf("response on %q, want %s", subj, agh.PeerSubject(testWS, testChannel, r.me))
		}
	}},
	{faultReceiptOnBroadcast, nil, func(t *testing.T, r *rig) {
		r.send(r.work("where does it go"))
		for {
			env, subj := r.next(wait)
			if env == nil {
				t.Fatal("no receipt")
			}
			if env["kind"] == "receipt" {
				if subj != agh.BroadcastSubject(testWS, testChannel) {
					t.Fatalf("receipt on %s", subj)
				}
				return
			}
		}
	}},
	{faultWrongRouteToken, nil, func(t *testing.T, r *rig) {
		r.send(r.env("whois", map[string]any{"type": "request", "query": ""}))
		r.silence() // the right peer subject reaches nobody
		wrong := func(id string) string {
			sum := sha256.Sum256([]byte(id))
			h := hex.EncodeToString(sum[:])
			return "agh.network.v0." + testWS + "." + testChannel + ".peer." + h[32:]
		}
		r.subscribe(wrong(r.me))
		if err := r.nc.Flush(); err != nil {
			t.Fatal(err)
		}
		r.sendRaw(wrong(r.peerID), mustJSON(r.env("whois", map[string]any{"type": "request", "query": ""})))
		_, subj := r.next(wait)
		if subj != wrong(r.me) {
			t.Fatalf("response on %q, want the wrongly derived %s", subj, wrong(r.me))
		}
	}},
	{faultRefusalCopies, nil, func(t *testing.T, r *rig) {
		w := r.work("copied")
		w["ext"] = []any{"not", "an", "object"}
		r.send(w)
		rc := r.expect("receipt")
		if _, isList := rc["ext"].([]any); !isList {
			t.Errorf("the refusal receipt does not copy the broken ext: %v", rc["ext"])
		}
	}},
	{faultRefusalChannel, nil, func(t *testing.T, r *rig) {
		w := r.work("")
		w["body"] = map[string]any{"intent": "request"}
		r.send(w)
		rc := r.expect("receipt")
		wantReceipt(t, rc, w, "rejected", "malformed")
		if rc["channel"] == w["channel"] {
			t.Errorf("the refusal receipt names the refused message's channel %v", rc["channel"])
		}
		ok := r.work("fine")
		r.send(ok)
		if rc := r.expect("receipt"); rc["channel"] != ok["channel"] {
			t.Errorf("an accepted receipt names channel %v, want the message's %v", rc["channel"], ok["channel"])
		}
	}},
}

// trustFaultCases are the faults in its reading of proofs.
var trustFaultCases = []faultCase{
	{faultAcceptBadSignature, []rigOpt{withTesterKey(testKey(0))}, func(t *testing.T, r *rig) {
		w := r.work("signed")
		r.signed(w)
		w["body"].(map[string]any)["text"] = "tampered"
		r.toPeer(mustJSON(w))
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
		r.expect("trace")
		r.expect("trace")
		// Only the proof is overlooked: a wrong capability digest is
		// still refused.
		c := badDigest(r)
		r.send(c)
		wantReceipt(t, r.expect("receipt"), c, "rejected", "verification_failed")
	}},
	{faultRejectVerified, []rigOpt{withTesterKey(testKey(0))}, func(t *testing.T, r *rig) {
		w := r.work("signed")
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "rejected", "verification_failed")
	}},
}

// Each fault must change the behaviour its name promises; the same
// exchange against the correct peer is covered by peer_test.go.
func TestFaultsChangeBehaviour(t *testing.T) {
	var cases []faultCase
	for _, family := range [][]faultCase{receiverFaultCases, discoveryFaultCases, lifecycleFaultCases, senderFaultCases, trustFaultCases,
		trackerFaultCases, handFaultCases, reconnectFaultCases, livenessFaultCases, initFaultCases, raceFaultCases, edgeFaultCases, sentenceFaultCases} {
		cases = append(cases, family...)
	}
	seen := map[string]bool{FaultOverlook + "RULE-ID": true, FaultEmit + "RULE-ID": true, FaultReading + "NAME": true}
	for _, c := range cases {
		seen[c.fault] = true
		for _, f := range livenessFaults {
			if strings.HasPrefix(c.fault, f.prefix()) {
				seen[f.Name] = true // an instance tests the template
			}
		}
		t.Run(c.fault, func(t *testing.T) {
			r := newRig(t, append(c.opts, withFaults(c.fault))...)
			c.check(t, r)
		})
	}
	for _, f := range Faults() {
		if !seen[f.Name] {
			t.Errorf("fault %s has no behaviour test", f.Name)
		}
	}
}

func TestFaultList(t *testing.T) {
	groups := map[string]bool{}
	names := map[string]bool{}
	for _, f := range Faults() {
		if f.Name == "" || f.Description == "" || groupOrder(f.Group) == 99 {
			t.Errorf("incomplete fault %+v", f)
		}
		if names[f.Name] {
			t.Errorf("duplicate fault %s", f.Name)
		}
		names[f.Name] = true
		groups[f.Group] = true
	}
	for _, g := range []string{"envelope", "kinds", "lifecycle", "delivery", "extensions", "trust", "nats"} {
		if !groups[g] {
			t.Errorf("no fault in suite group %s", g)
		}
	}
	for _, bad := range []string{"no-such-fault", FaultOverlook + "NO-SUCH-RULE"} {
		if _, err := parseFaults([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("unknown fault %s accepted: %v", bad, err)
		}
	}
	if _, err := parseFaults([]string{FaultOverlook + "ENV-TS"}); err != nil {
		t.Errorf("overlook of a catalogue rule refused: %v", err)
	}
	fs, err := parseFaults([]string{FaultOverlook + "ENV-TS+ENV-ID"})
	if err != nil || !fs.overlooks("ENV-TS") || !fs.overlooks("ENV-ID") || fs.overlooks("ENV-KIND") {
		t.Errorf("overlook:ENV-TS+ENV-ID overlooks %v (%v), want ENV-TS and ENV-ID only", fs, err)
	}
	if _, err := parseFaults([]string{FaultOverlook + "ENV-TS+NO-SUCH-RULE"}); err == nil {
		t.Error("overlook of an unknown rule among known ones accepted")
	}
}

func TestVerifiedMode(t *testing.T) {
	peerKey := testKey(0)
	r := newRig(t, withTesterKey(testKey(1)), withConfig(func(c *Config) { c.Key, c.Nickname = peerKey, "patch-worker" }))
	if r.peerID != "patch-worker@56475aa75463474c0285df5dbf2bcab7" {
		t.Fatalf("verified peer speaks as %s", r.peerID)
	}
	if card := body(r.greet)["peer_card"].(map[string]any); card["peer_id"] != r.peerID {
		t.Errorf("card peer_id %v", card["peer_id"])
	}
	w := r.work("signed work")
	r.send(w)
	wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	r.expect("trace")
	r.expect("trace")

	t.Run("tampered message", func(t *testing.T) {
		r.t = t
		w := r.work("signed")
		r.signed(w)
		w["body"].(map[string]any)["text"] = "tampered"
		r.toPeer(mustJSON(w))
		wantReceipt(t, r.expect("receipt"), w, "rejected", "verification_failed")
		r.silence()
	})
	t.Run("stripped proof", func(t *testing.T) {
		r.t = t
		w := r.work("stripped")
		r.signed(w)
		w["proof"] = nil
		r.toPeer(mustJSON(w))
		wantReceipt(t, r.expect("receipt"), w, "rejected", "verification_failed")
	})
}

// signed signs env in place with the tester's key and returns its bytes.
func (r *rig) signed(env map[string]any) []byte {
	r.t.Helper()
	if err := trust.Sign(env, r.key, "tester"); err != nil {
		r.t.Fatal(err)
	}
	return mustJSON(env)
}

// connections counts the clients connected to the rig's broker.
func connections(r *rig) int {
	cz, err := r.srv.Connz(nil)
	if err != nil {
		r.t.Fatal(err)
	}
	return cz.NumConns
}

// Beside a peer that accepts expired work, late, the helper answers first
// with the refusal the correct peer owes, as the peer; the peer's own
// acceptance follows.
func TestHelperRefusesInThePeersPlace(t *testing.T) {
	r := newRig(t, withFaults(faultAcceptExpired, "slow:300ms", faultHelperRefuses))
	w := r.work("stale")
	w["expires_at"] = time.Now().Unix() - 10
	r.send(w)
	first := r.expect("receipt")
	wantReceipt(t, first, w, "expired", "expired")
	second := r.expect("receipt")
	wantReceipt(t, second, w, "accepted", "")
	if first["from"] != r.peerID || second["from"] != r.peerID {
		t.Errorf("receipts from %v and %v, want both from the peer %s", first["from"], second["from"], r.peerID)
	}
}
