package peer

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// The grammars the initiator's ids keep: the work_id grammar with the
// peer's own choice of 16 hex digits, and the reference runtime's
// thread_id grammar (erratum 3), which any thread_ of hex satisfies.
var (
	initWorkID   = regexp.MustCompile(`^work_[0-9a-f]{16}$`)
	initThreadID = regexp.MustCompile(`^thread_[a-z0-9][a-z0-9_-]{2,95}$`)
)

// withOrders gives the peer a start-up file holding orders.
func withOrders(orders ...control.Order) rigOpt {
	return func(r *rig) {
		path := filepath.Join(r.t.TempDir(), "orders.json")
		if err := control.WriteOrders(path, orders); err != nil {
			r.t.Fatal(err)
		}
		r.cfg.OrdersFile = path
	}
}

// withPeerID names the peer: which side of the tester its id sorts on
// decides what a forgotten direct_id sort changes.
func withPeerID(id string) rigOpt { return withConfig(func(c *Config) { c.PeerID = id }) }

// sayTo is an order to open say work with the tester.
func (r *rig) sayTo(surface string) control.Order {
	return control.Order{To: r.me, Kind: "say", Surface: surface, Text: "Run the smoke test."}
}

// greetAs has the tester (or another peer) greet on the broadcast subject.
func (r *rig) greetAs(from string) {
	r.t.Helper()
	g := r.env("greet", map[string]any{"peer_card": map[string]any{"peer_id": from, "profiles_supported": []any{agh.Protocol},
		"capabilities": []any{}, "artifacts_supported": []any{}, "trust_modes_supported": []any{"unverified"}}})
	g["from"], g["to"] = from, nil
	r.send(g)
}

// opened greets as the tester and returns the opening the peer sends for
// its order, checked as every opening must be.
func (r *rig) opened(kind string) map[string]any {
	r.t.Helper()
	r.greetAs(r.me)
	return r.expectOpening(kind)
}

// expectOpening checks the next envelope is an opening of work to the
// tester: a fresh work_id, the peer's own from.
func (r *rig) expectOpening(kind string) map[string]any {
	r.t.Helper()
	o := r.expect(kind)
	if o["to"] != r.me || o["from"] != r.peerID || !initWorkID.MatchString(agh.Str(o, "work_id")) {
		r.t.Fatalf("not an opening of work to %s: %s", r.me, mustJSON(o))
	}
	return o
}

// inBand sends the peer a control request on a say without work_id.
func (r *rig) inBand(request map[string]any) map[string]any {
	r.t.Helper()
	s := r.env("say", map[string]any{"text": "aghcheck: open work"})
	s["surface"], s["thread_id"] = "thread", "thread_control_1"
	s["ext"] = map[string]any{control.Name: request}
	r.send(s)
	return s
}

// report is the tester's receipt or trace on work the peer opened.
func (r *rig) report(open map[string]any, kind string, body map[string]any) map[string]any {
	rep := r.follow(open, kind, body)
	r.send(rep)
	return rep
}

func (r *rig) accept(open map[string]any) map[string]any {
	return r.report(open, "receipt", map[string]any{"for_id": open["id"], "status": "accepted"})
}

func (r *rig) traceOn(open map[string]any, state string) map[string]any {
	return r.report(open, "trace", map[string]any{"state": state, "message": state})
}

// wantContinuation checks a say continues the work of open, caused by
// trigger, with text.
func wantContinuation(t testing.TB, got, open, trigger map[string]any, text string) {
	t.Helper()
	if got["kind"] != "say" || body(got)["text"] != text || got["id"] == open["id"] {
		t.Fatalf("want a continuation %q, got %s", text, mustJSON(got))
	}
	for _, k := range []string{"work_id", "surface", "thread_id", "direct_id", "to"} {
		if got[k] != open[k] {
			t.Errorf("continuation %s = %v, want the opening's %v", k, got[k], open[k])
		}
	}
	if trigger != nil && got["causation_id"] != trigger["id"] {
		t.Errorf("continuation causation_id %v, want %v", got["causation_id"], trigger["id"])
	}
}

// wantCancel checks a receipt cancels the work of open.
func wantCancel(t testing.TB, got, open map[string]any) {
	t.Helper()
	b := body(got)
	if got["kind"] != "receipt" || b["status"] != "canceled" || b["for_id"] != open["id"] || b["reason_code"] != nil {
		t.Fatalf("want a cancel of %v, got %s", open["id"], mustJSON(got))
	}
	for _, k := range []string{"work_id", "surface", "thread_id", "direct_id", "to"} {
		if got[k] != open[k] {
			t.Errorf("cancel %s = %v, want the opening's %v", k, got[k], open[k])
		}
	}
}

func TestInitiateAtStartUp(t *testing.T) {
	order := control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Text: "Run the smoke test.", ExpiresIn: 120}
	other := control.Order{To: "someone.else", Kind: "say", Surface: "thread"}
	r := newRig(t, withOrders(order, other))
	if profiles := body(r.greet)["peer_card"].(map[string]any)["profiles_supported"].([]any); !slices.Contains(profiles, any(control.InitiateName)) {
		t.Errorf("profiles_supported %v lacks %s", profiles, control.InitiateName)
	}
	r.silence() // nothing before the target greets
	first := r.opened("say")
	if body(first)["text"] != order.Text || first["surface"] != "thread" || !initThreadID.MatchString(agh.Str(first, "thread_id")) {
		t.Errorf("opening %s: want the order's text in a fresh thread_ of hex", mustJSON(first))
	}
	ts, _ := intField(first, "ts")
	if exp, _ := intField(first, "expires_at"); exp != ts+120 {
		t.Errorf("expires_at %d, want ts %d + 120", exp, ts)
	}
	r.silence() // one order for the tester, one opening
	// Every greet serves the order again, as new work.
	second := r.opened("say")
	if second["work_id"] == first["work_id"] || second["thread_id"] == first["thread_id"] || second["id"] == first["id"] {
		t.Errorf("the second greet's opening reuses the first's ids: %s", mustJSON(second))
	}
	// Another peer's greet serves only its orders; one not in the file, none.
	r.subscribe(agh.PeerSubject(testWS, testChannel, other.To))
	r.greetAs(other.To)
	if o := r.expect("say"); o["to"] != other.To || body(o)["text"] != defaultOpeningText {
		t.Errorf("the other peer's opening %s", mustJSON(o))
	}
	r.greetAs("stranger.session-3")
	r.silence()
}

// The direct_id is the pair's, sorted byte-wise, whichever side of the
// target the peer's own id falls on.
func TestInitiateDirect(t *testing.T) {
	for _, id := range []string{"alpha.peer-1", "zz.peer-1"} {
		t.Run(id, func(t *testing.T) {
			r := newRig(t, withPeerID(id), withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "direct"}))
			o := r.opened("say")
			want, err := agh.DirectID(testWS, testChannel, r.me, r.peerID)
			if err != nil {
				t.Fatal(err)
			}
			if o["surface"] != "direct" || o["direct_id"] != want || o["thread_id"] != nil {
				t.Errorf("opening in %v %v, want direct %s", o["surface"], o["direct_id"], want)
			}
		})
	}
}

func TestInitiateCapability(t *testing.T) {
	c := map[string]any{"id": "build-site", "summary": "Build the landing page.", "outcome": "A finished landing page.",
		"digest": "sha256:" + strings.Repeat("0", 64)}
	r := newRig(t, withOrders(control.Order{To: "tester.session-1", Kind: "capability", Surface: "thread", Capability: c}))
	got, _ := agh.CapabilityOf(r.opened("capability"))
	delete(c, "digest")
	want, err := agh.CapabilityDigest(c)
	if err != nil {
		t.Fatal(err)
	}
	if got["digest"] != want || got["id"] != "build-site" {
		t.Errorf("capability %v, want id build-site with digest %s", got, want)
	}
}

func TestInitiateInBand(t *testing.T) {
	r := newRig(t)
	r.inBand(map[string]any{"initiate": map[string]any{"to": r.me, "kind": "say", "surface": "direct", "text": "hello"}})
	o := r.expectOpening("say")
	r.silence() // the control say itself gets nothing
	r.accept(o)
	r.traceOn(o, "working")
	r.inBand(map[string]any{"continue": map[string]any{"work_id": o["work_id"], "text": "more"}})
	wantContinuation(t, r.expect("say"), o, nil, "more")
	r.inBand(map[string]any{"cancel": map[string]any{"work_id": o["work_id"]}})
	wantCancel(t, r.expect("receipt"), o)
	r.traceOn(o, "canceled")
	// Requests the peer cannot carry out: silence, and one line each.
	for _, bad := range []map[string]any{
		{"cancel": map[string]any{"work_id": o["work_id"]}}, // terminal now
		{"continue": map[string]any{"work_id": "work_nobody", "text": "x"}},
		{"initiate": map[string]any{"to": r.me, "kind": "whois", "surface": "thread"}},
		{"initiate": map[string]any{"to": r.me, "kind": "say", "surface": "thread"}, "cancel": map[string]any{"work_id": "work_x"}},
		{"traces": []any{map[string]any{"state": "working"}}},
	} {
		r.inBand(bad)
	}
	r.silence()
	testwait.Eventually(t, wait, func() bool { return strings.Count(r.stderr.String(), "\n") == 5 }, "five lines on stderr, got %q", r.stderr)
	if !strings.Contains(r.stderr.String(), "work "+o["work_id"].(string)+" is canceled") {
		t.Errorf("stderr %q does not say why", r.stderr)
	}
}

// A peer without the control extension takes orders at start-up only.
func TestInitiateWithoutControl(t *testing.T) {
	r := newRig(t, withConfig(func(c *Config) { c.NoControl = true }), withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread"}))
	profiles := body(r.greet)["peer_card"].(map[string]any)["profiles_supported"].([]any)
	if !slices.Contains(profiles, any(control.InitiateName)) || slices.Contains(profiles, any(control.Name)) {
		t.Errorf("profiles_supported %v: want %s without %s", profiles, control.InitiateName, control.Name)
	}
	r.inBand(map[string]any{"initiate": map[string]any{"to": r.me, "kind": "say", "surface": "thread"}})
	r.silence()
	r.opened("say")
}

// A control request is never work: not on a say with a work_id (a script
// that is not one), not for a peer that invents work for a bare say.
func TestControlRequestIsNotWork(t *testing.T) {
	r := newRig(t)
	w := r.work("open and initiate?")
	w["ext"] = map[string]any{control.Name: map[string]any{"initiate": map[string]any{"to": r.me, "kind": "say", "surface": "thread"}}}
	r.send(w)
	wantReceipt(t, r.expect("receipt"), w, "rejected", "malformed")
	r.silence()

	r = newRig(t, withFaults(faultInventWork))
	r.inBand(map[string]any{"initiate": map[string]any{"to": r.me, "kind": "say", "surface": "thread"}})
	r.expectOpening("say")
	r.silence()
}

func TestInitiatorAnswers(t *testing.T) {
	order := control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "Use the staging branch."}
	r := newRig(t, withOrders(order))
	o := r.opened("say")
	r.accept(o)
	r.traceOn(o, "working")
	r.silence()
	ni := r.traceOn(o, "needs_input")
	wantContinuation(t, r.expect("say"), o, ni, order.Answer)
	// The same trace again is a duplicate: refused, not answered twice.
	r.toPeer(mustJSON(ni))
	wantReceipt(t, r.expect("receipt"), ni, "duplicate", "duplicate")
	r.silence()
	// A duplicate receipt changes nothing: the next question is answered.
	r.report(o, "receipt", map[string]any{"for_id": o["id"], "status": "duplicate", "reason_code": "duplicate"})
	r.traceOn(o, "working")
	ni2 := r.traceOn(o, "needs_input")
	wantContinuation(t, r.expect("say"), o, ni2, order.Answer)
	// Terminal work gets nothing more.
	r.traceOn(o, "completed")
	r.traceOn(o, "needs_input")
	r.silence()
	r.inBand(map[string]any{"continue": map[string]any{"work_id": o["work_id"], "text": "still?"}})
	r.silence()
}

func TestInitiatorCancelOn(t *testing.T) {
	for _, at := range []string{"working", "needs_input"} {
		t.Run(at, func(t *testing.T) {
			r := newRig(t, withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "direct", CancelOn: at, Answer: "x"}))
			o := r.opened("say")
			acc := r.accept(o)
			cause := acc
			if at == "needs_input" {
				r.traceOn(o, "working")
				r.silence()
				cause = r.traceOn(o, "needs_input")
			}
			c := r.expect("receipt")
			wantCancel(t, c, o)
			if c["causation_id"] != cause["id"] || c["reply_to"] != nil {
				t.Errorf("cancel causation_id/reply_to %v/%v, want %v and none", c["causation_id"], c["reply_to"], cause["id"])
			}
			r.silence() // no answer to a question on work being canceled
			r.traceOn(o, "working")
			r.traceOn(o, at)
			r.silence() // once
		})
	}
}

func TestInitiatorRefusalEndsWork(t *testing.T) {
	order := control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "y"}
	for _, refusal := range []map[string]any{
		{"status": "rejected", "reason_code": "busy"},
		{"status": "expired", "reason_code": "expired"},
		{"status": "unsupported", "reason_code": "unsupported_kind"},
		{"status": "rejected", "reason_code": "work_closed"},
	} {
		t.Run(refusal["status"].(string)+"/"+refusal["reason_code"].(string), func(t *testing.T) {
			r := newRig(t, withOrders(order))
			o := r.opened("say")
			refusal["for_id"] = o["id"]
			r.report(o, "receipt", refusal)
			r.traceOn(o, "working")
			r.traceOn(o, "needs_input")
			r.silence()
		})
	}
	t.Run("work_closed for a continuation", func(t *testing.T) {
		r := newRig(t, withOrders(order))
		o := r.opened("say")
		r.accept(o)
		ni := r.traceOn(o, "needs_input")
		cont := r.expect("say")
		wantContinuation(t, cont, o, ni, "y")
		r.report(o, "receipt", map[string]any{"for_id": cont["id"], "status": "rejected", "reason_code": "work_closed"})
		r.traceOn(o, "needs_input")
		r.silence()
	})
}

// Only the target, in the work's container, with a fresh valid message
// and a legal transition, moves the work.
func TestInitiatorIgnoresBadReports(t *testing.T) {
	r := newRig(t, withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "z"}))
	o := r.opened("say")
	intruder := "intruder.session-9"
	r.subscribe(agh.PeerSubject(testWS, testChannel, intruder))
	forged := r.follow(o, "trace", map[string]any{"state": "completed", "result": map[string]any{}})
	forged["from"] = intruder
	r.send(forged)
	wantReceipt(t, r.expect("receipt"), forged, "rejected", "not_target")
	elsewhere := r.follow(o, "trace", map[string]any{"state": "completed"})
	elsewhere["thread_id"] = "thread_elsewhere"
	r.send(elsewhere)
	wantReceipt(t, r.expect("receipt"), elsewhere, "rejected", "work_container_mismatch")
	stale := r.follow(o, "trace", map[string]any{"state": "completed"})
	stale["expires_at"] = time.Now().Unix() - 5
	r.send(stale)
	r.report(o, "trace", map[string]any{"state": "needs_input"}) // not from submitted
	r.silence()
	// Still open and submitted: the target's own story goes on.
	r.accept(o)
	ni := r.traceOn(o, "needs_input")
	wantContinuation(t, r.expect("say"), o, ni, "z")
}

// initFaultCases are the behaviour tests of the initiator's faults
// (TestFaultsChangeBehaviour runs them); the correct peer's side of each
// is a test above.
var initFaultCases = []faultCase{
	{faultInitBadWorkID, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread"})}, func(t *testing.T, r *rig) {
		r.greetAs(r.me)
		if o := r.expect("say"); !strings.HasPrefix(agh.Str(o, "work_id"), "job/") {
			t.Errorf("work_id %v", o["work_id"])
		}
	}},
	{faultInitUndirected, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread"})}, func(t *testing.T, r *rig) {
		r.greetAs(r.me)
		o, subj := r.nextNonGreet()
		if o["kind"] != "say" || o["to"] != nil || subj != agh.PeerSubject(testWS, testChannel, r.me) {
			t.Errorf("on %s: %s", subj, mustJSON(o))
		}
	}},
	{faultInitDirectUnsorted, []rigOpt{withPeerID("zz.peer-1"), withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "direct"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		if o["direct_id"] != agh.DirectIDInOrder(testWS, testChannel, r.peerID, r.me) {
			t.Errorf("direct_id %v, want the unsorted (peer, target) derivation", o["direct_id"])
		}
	}},
	{faultInitDirectReversed, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "direct"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		if o["direct_id"] != agh.DirectIDInOrder(testWS, testChannel, r.me, r.peerID) || r.peerID > r.me {
			t.Errorf("direct_id %v, want the (target, peer) derivation where it is not the sorted one", o["direct_id"])
		}
	}},
	{faultInitBadDigest, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "capability", Surface: "thread",
		Capability: map[string]any{"id": "build-site", "summary": "s", "outcome": "o"}})}, func(t *testing.T, r *rig) {
		c, _ := agh.CapabilityOf(r.opened("capability"))
		want, _ := agh.CapabilityDigest(map[string]any{"id": "build-site", "summary": "s", "outcome": "o"})
		if c["digest"] == want || c["digest"] == nil {
			t.Errorf("digest %v, want a wrong one", c["digest"])
		}
	}},
	{faultInitWrongSubject, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread"})}, func(t *testing.T, r *rig) {
		r.greetAs(r.me)
		o, subj := r.nextNonGreet()
		if o["kind"] != "say" || o["to"] != r.me || subj != agh.BroadcastSubject(testWS, testChannel) {
			t.Errorf("on %s: %s", subj, mustJSON(o))
		}
	}},
	{faultInitExpiresMS, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", ExpiresIn: 120})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		ts, _ := intField(o, "ts")
		if exp, _ := intField(o, "expires_at"); exp != ts*1000+120000 {
			t.Errorf("expires_at %d, want %d", exp, ts*1000+120000)
		}
	}},
	{faultInitIgnoreRefusal, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "a"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		r.report(o, "receipt", map[string]any{"for_id": o["id"], "status": "rejected", "reason_code": "busy"})
		ni := r.traceOn(o, "needs_input")
		wantContinuation(t, r.expect("say"), o, ni, "a")
	}},
	{faultInitDuplicateFails, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "a"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		r.accept(o)
		r.report(o, "receipt", map[string]any{"for_id": o["id"], "status": "duplicate", "reason_code": "duplicate"})
		r.traceOn(o, "needs_input")
		r.silence()
	}},
	{faultInitContinueNewThread, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "direct", Answer: "a"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		r.accept(o)
		r.traceOn(o, "needs_input")
		if c := r.expect("say"); c["surface"] != "thread" || c["direct_id"] != nil || c["work_id"] != o["work_id"] {
			t.Errorf("continuation %s, want one in a thread", mustJSON(c))
		}
	}},
	{faultInitCancelAsTrace, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", CancelOn: "working"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		r.accept(o)
		if c := r.expect("trace"); body(c)["state"] != "canceled" || c["work_id"] != o["work_id"] {
			t.Errorf("cancel %s", mustJSON(c))
		}
	}},
	{faultInitAfterTerminal, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "a"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		r.accept(o)
		r.traceOn(o, "completed")
		ni := r.traceOn(o, "needs_input")
		wantContinuation(t, r.expect("say"), o, ni, "a")
	}},
	{faultInitLax, []rigOpt{withOrders(control.Order{To: "tester.session-1", Kind: "say", Surface: "thread", Answer: "a"})}, func(t *testing.T, r *rig) {
		o := r.opened("say")
		r.accept(o)
		intruder := "intruder.session-9"
		r.subscribe(agh.PeerSubject(testWS, testChannel, intruder))
		forged := r.follow(o, "trace", map[string]any{"state": "completed", "result": map[string]any{}})
		forged["from"], forged["thread_id"] = intruder, "thread_elsewhere"
		r.send(forged)
		r.traceOn(o, "needs_input")
		r.silence() // no not_target refusal, and the work is completed
	}},
}

// nextNonGreet is the next envelope the peer sends but a greet, and its
// subject.
func (r *rig) nextNonGreet() (map[string]any, string) {
	r.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		env, subj := r.next(time.Until(deadline))
		if env == nil {
			r.t.Fatalf("waited %v for an envelope, got nothing", wait)
		}
		if env["kind"] != "greet" {
			return env, subj
		}
	}
}
