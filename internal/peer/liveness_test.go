package peer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// slowBy is the delay of the slow peer under test.
const slowBy = 300 * time.Millisecond

// livenessFaultCases are the behaviour tests of the liveness faults
// (TestFaultsChangeBehaviour runs them, one instance per fault).
var livenessFaultCases = []faultCase{
	{faultSlow + slowBy.String(), nil, func(t *testing.T, r *rig) {
		start := time.Now()
		q := whoisRequest(r)
		r.send(q)
		wantAnswer(t, r.expect("whois"), q)
		if d := time.Since(start); d < slowBy {
			t.Fatalf("answer %v after the request, want at least %v", d, slowBy)
		}
		// Answers due together leave together and in order: ten of them
		// one delay after another would take 10 × slowBy.
		start = time.Now()
		var qs []map[string]any
		for range 10 {
			q := whoisRequest(r)
			qs = append(qs, q)
			r.send(q)
		}
		for _, q := range qs {
			wantAnswer(t, r.expect("whois"), q)
		}
		// Slowed, yet concurrent: a peer that answered one whois after
		// the other would need ten times slowBy at the least, whatever the
		// machine's load.
		if d, serial := time.Since(start), 10*slowBy; d < slowBy || d >= serial {
			t.Fatalf("ten answers took %v, want at least %v and less than the %v of answering one after the other", d, slowBy, serial)
		}
	}},
	// An hour's pace holds the work open for the whole test, whatever the
	// machine's speed: a cancel finds it working, and nothing completes it.
	{faultPace + "1h", nil, func(t *testing.T, r *rig) {
		w := r.work("at my pace")
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
		wantTrace(t, r.expect("trace"), w, w, "working")
		c := r.cancelOf(w)
		r.send(c)
		wantTrace(t, r.expect("trace"), w, c, "canceled")
		// Read on: other work is taken while w's hour runs.
		o := r.work("other work")
		r.send(o)
		wantReceipt(t, r.expect("receipt"), o, "accepted", "")
		wantTrace(t, r.expect("trace"), o, o, "working")
	}},
	{faultCrashOn + "whois-query-type", nil, func(t *testing.T, r *rig) {
		// A query that is a string is answered as usual.
		q := whoisRequest(r)
		r.send(q)
		wantAnswer(t, r.expect("whois"), q)
		bad := whoisRequest(r)
		body(bad)["query"] = 42
		r.send(bad)
		select {
		case err := <-r.done:
			if !errors.Is(err, ErrCrashed) || !strings.Contains(err.Error(), bad["id"].(string)) {
				t.Fatalf("Run returned %v, want ErrCrashed naming %s", err, bad["id"])
			}
		case <-time.After(wait):
			t.Fatal("the peer did not crash")
		}
		r.done <- nil // for the rig's cleanup
		out := r.stderr.String()
		if !strings.HasPrefix(out, "panic: crash-on:whois-query-type: received a whois request") || !strings.Contains(out, "\ngoroutine ") || !strings.Contains(out, "peer.Run(") {
			t.Errorf("stderr is not a panic with a stack trace:\n%s", out)
		}
	}},
	{faultDisconnectOn + "garbage", nil, func(t *testing.T, r *rig) {
		r.toPeer([]byte(`{"protocol":`))
		testwait.Eventually(t, wait, func() bool {
			open, closed := peerConns(t, r.srv)
			return len(open) == 0 && len(closed) == 1
		}, "the peer's connection to close")
		select {
		case err := <-r.done:
			t.Fatalf("Run returned %v; the process must linger until signalled", err)
		case <-time.After(quiet):
		}
		out := r.stderr.String()
		if !strings.Contains(out, "disconnect-on:garbage: received bytes that are not a JSON object") || !strings.Contains(out, "\ngoroutine ") {
			t.Errorf("stderr is not an error with a stack trace:\n%s", out)
		}
	}},
	{faultDeafOn + "whois-query-type", nil, func(t *testing.T, r *rig) {
		q := whoisRequest(r)
		r.send(q)
		wantAnswer(t, r.expect("whois"), q)
		bad := whoisRequest(r)
		body(bad)["query"] = 42
		r.send(bad)
		// Deaf on its own subject: a directed whois goes unanswered...
		r.send(whoisRequest(r))
		r.silence()
		// ...while a broadcast one is still heard and answered, over the
		// same connection.
		b := whoisRequest(r)
		b["to"] = nil
		r.send(b)
		wantAnswer(t, r.expect("whois"), b)
		if open, closed := peerConns(t, r.srv); len(open) != 1 || len(closed) != 0 {
			t.Errorf("%d connections open, %d closed; want the one connection kept", len(open), len(closed))
		}
		select {
		case err := <-r.done:
			t.Fatalf("Run returned %v; a deaf peer keeps running", err)
		default:
		}
		out := r.stderr.String()
		if !strings.Contains(out, "deaf-on:whois-query-type: received a whois request") || !strings.Contains(out, "\ngoroutine ") {
			t.Errorf("stderr is not an error with a stack trace:\n%s", out)
		}
	}},
	{faultHangUpAfter + "300ms", nil, func(t *testing.T, r *rig) {
		// Nothing is sent: the connection closes on the timer alone.
		testwait.Eventually(t, wait, func() bool {
			open, closed := peerConns(t, r.srv)
			return len(open) == 0 && len(closed) == 1
		}, "the peer's connection did not close")
		select {
		case err := <-r.done:
			t.Fatalf("Run returned %v; the process must linger until signalled", err)
		case <-time.After(quiet):
		}
		if out := r.stderr.String(); !strings.Contains(out, "closing the NATS connection 300ms after joining") {
			t.Errorf("stderr does not say why the connection closed:\n%s", out)
		}
	}},
	{faultDropAfter + "300ms", nil, func(t *testing.T, r *rig) {
		// The join greet was the first; two more come after reconnects.
		for greets := 1; greets < 3; {
			env, _ := r.next(wait)
			if env == nil {
				t.Fatalf("%d greets, then nothing for %v", greets, wait)
			}
			if env["kind"] == "greet" {
				greets++
			}
		}
		// The peer publishes nothing but greets here, so every connection
		// that carried a message carried a greet.
		open, closed := peerConns(t, r.srv)
		published := 0
		for _, c := range append(open, closed...) {
			if c.InMsgs > 0 {
				published++
			}
		}
		if published < 2 || len(closed) < 1 {
			t.Fatalf("greets came over %d connections (%d closed), want at least 2", published, len(closed))
		}
	}},
	{faultFloodBytes + "4KiB", nil, func(t *testing.T, r *rig) {
		// The answer to a whois comes on a subscription of its own: the
		// flood fills r.in, and the client drops what does not fit.
		answers := make(chan *nats.Msg, 64)
		if _, err := r.nc.ChanSubscribe(agh.PeerSubject(testWS, testChannel, r.me), answers); err != nil {
			t.Fatal(err)
		}
		if err := r.nc.Flush(); err != nil {
			t.Fatal(err)
		}
		ck, err := agh.NewChecker(agh.Options{Now: time.Now().Unix()})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for len(ids) < 50 {
			var m *nats.Msg
			select {
			case m = <-r.in:
			case <-time.After(wait):
				t.Fatalf("%d flood envelopes, then nothing for %v", len(ids), wait)
			}
			res := ck.CheckBytes(m.Data)
			if res.Envelope["kind"] == "greet" {
				continue
			}
			if len(m.Data) != 4096 || m.Subject != agh.BroadcastSubject(testWS, testChannel) || !res.Valid(false) {
				t.Fatalf("flood envelope of %d bytes on %s, findings %v; want a valid say of 4096 bytes on the broadcast subject", len(m.Data), m.Subject, res.Findings)
			}
			id := res.Envelope["id"].(string)
			if ids[id] {
				t.Fatalf("flood id %s repeated", id)
			}
			ids[id] = true
		}
		// Flooding, it still serves.
		q := whoisRequest(r)
		r.send(q)
		for {
			select {
			case m := <-answers:
				var env map[string]any
				if err := json.Unmarshal(m.Data, &env); err != nil {
					t.Fatal(err)
				}
				wantAnswer(t, env, q)
				return
			case <-time.After(wait):
				t.Fatal("the flooding peer did not answer a whois")
			}
		}
	}},
	{faultDeafAfter + "2", []rigOpt{withConfig(func(c *Config) { c.GreetInterval = 200 * time.Millisecond })}, func(t *testing.T, r *rig) {
		for range 2 {
			q := whoisRequest(r)
			r.send(q)
			wantAnswer(t, r.expect("whois"), q)
		}
		r.send(whoisRequest(r))
		r.send(r.work("anyone?"))
		greets := 0
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
			env, subj := r.next(time.Until(deadline))
			switch {
			case env == nil:
			case env["kind"] == "greet":
				greets++
			default:
				t.Fatalf("a deaf peer answered on %s: %s", subj, mustJSON(env))
			}
		}
		if greets == 0 {
			t.Fatal("the deaf peer stopped greeting")
		}
	}},
}

// whoisRequest is a directed whois request to the peer.
func whoisRequest(r *rig) map[string]any {
	return r.env("whois", map[string]any{"type": "request", "query": ""})
}

// wantAnswer checks a whois response answers request q.
func wantAnswer(t *testing.T, got, q map[string]any) {
	t.Helper()
	if body(got)["type"] != "response" || got["reply_to"] != q["id"] {
		t.Fatalf("want the answer to %s, got %s", q["id"], mustJSON(got))
	}
}

// peerConns lists the reference peer's connections at the broker.
func peerConns(t *testing.T, srv *server.Server) (open, closed []*server.ConnInfo) {
	t.Helper()
	for _, state := range []server.ConnState{server.ConnOpen, server.ConnClosed} {
		cz, err := srv.Connz(&server.ConnzOptions{State: state})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cz.Conns {
			if strings.HasPrefix(c.Name, "aghcheck peer ") {
				if state == server.ConnOpen {
					open = append(open, c)
				} else {
					closed = append(closed, c)
				}
			}
		}
	}
	return open, closed
}

// A slow peer is the peer it slows down: faults combine with slow, and
// its greets are not held back.
func TestSlowCombines(t *testing.T) {
	r := newRig(t, withFaults(faultSlow+slowBy.String(), faultAcceptExpired))
	w := r.work("stale")
	w["expires_at"] = time.Now().Unix() - 10
	start := time.Now()
	r.send(w)
	wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	if d := time.Since(start); d < slowBy {
		t.Errorf("receipt %v after the work, want at least %v", d, slowBy)
	}
	r.expect("trace")
	r.expect("trace")

	// newRig saw the join greet within its wait: a greet is never late,
	// though everything else is, and what is still queued when the peer
	// stops is dropped without holding Run up.
	late := newRig(t, withFaults(faultSlow+"1m"))
	late.send(whoisRequest(late))
	late.silence()
}

// A paced peer completes its work once the pace has run, with its echo:
// only the order is judged, never the time it took.
func TestPaceCompletes(t *testing.T) {
	r := newRig(t, withFaults(faultPace+"1ms", faultAcceptExpired))
	w := r.work("soon")
	r.send(w)
	wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	wantTrace(t, r.expect("trace"), w, w, "working")
	done := r.expect("trace")
	wantTrace(t, done, w, w, "completed")
}

// The inputs a crash-on, disconnect-on or deaf-on fault trips on, by example.
func TestTrippingInputs(t *testing.T) {
	p, _ := offline(t, faultCrashOn+"whois-query-type", faultDisconnectOn+"garbage")
	say, _ := offline(t, faultDisconnectOn+"any-say")
	deep, _ := offline(t, faultCrashOn+"deep-nesting")
	deaf, _ := offline(t, faultDeafOn+"whois-query-type")
	nest := func(n int) string {
		return `{"kind":"say","ext":{"a.b":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	whois := func(query string) string {
		return `{"id":"msg_1","kind":"whois","body":{"type":"request"` + query + `}}`
	}
	for _, c := range []struct {
		peer    *peer
		payload string
		fault   string // "" when nothing trips
		crash   bool
	}{
		{p, whois(`,"query":5`), "crash-on:whois-query-type", true},
		{deaf, whois(`,"query":5`), "deaf-on:whois-query-type", false},
		{deaf, whois(`,"query":"5"`), "", false},
		{p, whois(`,"query":null`), "crash-on:whois-query-type", true},
		{p, whois(`,"query":["a"]`), "crash-on:whois-query-type", true},
		{p, whois(`,"query":"5"`), "", false},
		{p, whois(``), "", false},
		{p, `{"kind":"whois","body":{"type":"response","query":5}}`, "", false},
		{p, `{"kind":"say","body":{"query":5}}`, "", false},
		{p, `not json`, "disconnect-on:garbage", false},
		{p, `[1,2]`, "disconnect-on:garbage", false},
		{p, `null`, "disconnect-on:garbage", false},
		{p, `{"a":1} {"b":2}`, "disconnect-on:garbage", false},
		{p, ``, "disconnect-on:garbage", false},
		{p, `{}`, "", false},
		{say, `{"kind":"say"}`, "disconnect-on:any-say", false},
		{say, `{"kind":"greet"}`, "", false},
		{say, `garbage`, "", false},
		{deep, nest(127), "crash-on:deep-nesting", true}, // 129 levels with the envelope and ext
		{deep, nest(126), "", false},
		{deep, `[[[[]]]]`, "", false},
	} {
		fault, what, crash := c.peer.tripped([]byte(c.payload))
		if fault != c.fault || crash != c.crash || (fault != "") != (what != "") {
			t.Errorf("%s: tripped %q (%q, crash %v), want %q (crash %v)", c.payload, fault, what, crash, c.fault, c.crash)
		}
	}
	correct, _ := offline(t)
	if fault, _, _ := correct.tripped([]byte("not json")); fault != "" {
		t.Errorf("the correct peer trips on garbage: %s", fault)
	}
}

func TestLivenessParameters(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string // substring of the error, "" for success
	}{
		{[]string{"slow:3s", "accept-expired"}, ""},
		{[]string{"slow:1.5"}, ""},
		{[]string{"slow:3s", "slow:3s"}, ""},
		{[]string{"slow:3s", "slow:4s"}, "given twice"},
		{[]string{"slow:0"}, "positive duration"},
		{[]string{"slow:soon"}, "positive duration"},
		{[]string{"slow:"}, "positive duration"},
		{[]string{"drop-after-greet:-1s"}, "positive duration"},
		{[]string{"drop-after-greet:1.5s"}, ""},
		{[]string{"deaf-after:0"}, ""},
		{[]string{"deaf-after:-1"}, "whole number"},
		{[]string{"deaf-after:two"}, "whole number"},
		{[]string{"crash-on:any-say", "disconnect-on:garbage"}, ""},
		{[]string{"crash-on:nothing"}, "known: whois-query-type, garbage, any-say, deep-nesting"},
		{[]string{"disconnect-on:"}, "unknown INPUT"},
		{[]string{"slow"}, "unknown fault"},
		{[]string{"flood-bytes:1MiB"}, ""},
		{[]string{"flood-bytes:512KiB"}, ""},
		{[]string{"flood-bytes:4096"}, ""},
		{[]string{"flood-bytes:0"}, "not a size"},
		{[]string{"flood-bytes:1GiB"}, "not a size"},
		{[]string{"flood-bytes:65MiB"}, "not a size"},
	} {
		_, err := parseFaults(c.names)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.names, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got %v, want an error mentioning %q", c.names, err, c.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%v: error is not one line: %q", c.names, err)
		}
	}
	l, err := livenessOf([]string{"slow:2s", "drop-after-greet:250ms", "deaf-after:7", "crash-on:garbage", "disconnect-on:any-say"})
	if err != nil || l.slow != 2*time.Second || l.dropAfter != 250*time.Millisecond || l.deafAfter != 7 ||
		l.crashOn.name != "garbage" || l.hangUpOn.name != "any-say" {
		t.Errorf("livenessOf = %+v, %v", l, err)
	}
	if l, _ := livenessOf([]string{"accept-expired"}); l != (liveness{deafAfter: -1}) {
		t.Errorf("no liveness fault, yet %+v", l)
	}
}

// FuzzLiveness: no fault name or payload makes the liveness faults panic,
// and every accepted name gives a usable setting.
func FuzzLiveness(f *testing.F) {
	for _, name := range []string{"slow:3s", "deaf-after:2", "crash-on:garbage", "disconnect-on:any-say", "drop-after-greet:1", "slow:-1", "deaf-after:1e3"} {
		f.Add(name, []byte(`{"kind":"say"}`))
	}
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		l, err := livenessOf([]string{name, "crash-on:whois-query-type"})
		if err != nil {
			return
		}
		if l.slow < 0 || l.dropAfter < 0 || l.deafAfter < -1 || l.crashOn == nil {
			t.Fatalf("%q gives %+v", name, l)
		}
		p := &peer{live: l}
		p.tripped(payload)
	})
}
