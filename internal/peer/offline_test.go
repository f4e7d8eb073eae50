package peer

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

type sent struct {
	subject string
	data    []byte
}

// offline builds a peer wired to a recorder instead of a broker, for fuzz
// targets and benchmarks that drive handle directly.
func offline(tb testing.TB, faults ...string) (*peer, *[]sent) {
	tb.Helper()
	cfg := Config{URL: "nats://127.0.0.1:1", Workspace: testWS, Channel: testChannel, PeerID: "ref.peer-1", Faults: faults}
	if err := cfg.normalize(); err != nil {
		tb.Fatal(err)
	}
	p, err := newPeer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	out := &[]sent{}
	p.send = func(subject string, data []byte) error {
		*out = append(*out, sent{subject, append([]byte(nil), data...)})
		return nil
	}
	return p, out
}

func workSay(i int, ts int64, ext string) []byte {
	if ext != "" {
		ext = `,"ext":` + ext
	}
	return fmt.Appendf(nil, `{"protocol":"agh-network/v0","id":"msg_b%d","workspace_id":%q,"kind":"say","channel":%q,`+
		`"surface":"thread","thread_id":"thread_b%d","from":"tester.session-1","to":"ref.peer-1","work_id":"work_b%d",`+
		`"ts":%d,"body":{"text":"bench %d"},"proof":null%s}`, i, testWS, testChannel, i, i, ts, i, ext)
}

// FuzzHandle feeds arbitrary bytes to the receiver: it must not panic,
// everything it sends must pass the engine on the right subject, it must
// never send a trace for a message the engine refuses, and it must never
// have to drop an answer to a message the engine accepts.
func FuzzHandle(f *testing.F) {
	now := time.Now().Unix()
	f.Add(workSay(1, now, ""))
	f.Add(workSay(2, now, `{"aghcheck.control/v1":{"receipt":"rejected","reason_code":"busy"}}`))
	f.Add(workSay(3, now, `{"aghcheck.control/v1":{"traces":[{"state":"needs_input","message":"?"},{"state":"completed","result":{}}]}}`))
	f.Add(workSay(4, 1, ""))
	f.Add(fmt.Appendf(nil, `{"protocol":"agh-network/v0","id":"msg_w","workspace_id":%q,"kind":"whois","channel":%q,"from":"x.y","to":null,"ts":%d,"body":{"type":"request","query":""},"ext":{"agh.include":["capability_catalog"]}}`, testWS, testChannel, now))
	f.Add([]byte(`{"kind":"say"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, out := offline(t)
		ck, err := agh.NewChecker(agh.Options{Now: time.Now().Unix()})
		if err != nil {
			t.Fatal(err)
		}
		in := ck.CheckBytes(data)
		refused := agh.RefusalReason(in.Findings) != "" || in.Trust == "rejected"
		p.handle(p.ownSubject, data)
		for _, s := range *out {
			res := ck.CheckBytes(s.data)
			if !res.Valid(false) {
				t.Fatalf("sent an invalid envelope %s: %v", s.data, res.Findings)
			}
			if want, _ := agh.Subject(res.Envelope); want != s.subject {
				t.Fatalf("sent on %s, want %s", s.subject, want)
			}
			if refused && res.Envelope["kind"] == "trace" {
				t.Fatalf("trace %s for a refused message", s.data)
			}
		}
		if !refused && p.dropped > 0 {
			t.Fatalf("dropped %d answers to an accepted message", p.dropped)
		}
	})
}

// FuzzParseScript: any control extension either parses into a script
// whose play keeps the lifecycle legal, or is refused with an error.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		`{"receipt":"accepted","traces":[{"state":"working"},{"state":"completed","result":{"a":1}}]}`,
		`{"receipt":"rejected","reason_code":"busy"}`,
		`{"traces":[{"state":"needs_input","message":"x"},{"state":"working"},{"state":"failed"}]}`,
		`{"traces":[{"state":"submitted"}]}`, `[]`, `"x"`, `{"receipt":1}`,
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, opening bool) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		start := agh.StateSubmitted
		if !opening {
			start = agh.StateNeedsInput
		}
		s, err := parseScript(v, opening)
		if err != nil || s.check(start) != nil {
			return
		}
		state := s.afterReceipt(start)
		for _, tr := range s.traces {
			next := tr["state"].(string)
			if !legal(state, next) {
				t.Fatalf("accepted script moves %s to %s", state, next)
			}
			state = next
		}
	})
}

// BenchmarkHandleWork measures one default work unit end to end inside the
// peer: engine check of the say, then receipt and two traces built,
// self-checked and encoded.
func BenchmarkHandleWork(b *testing.B) {
	p, out := offline(b)
	now := time.Now().Unix()
	msgs := make([][]byte, b.N)
	for i := range msgs {
		msgs[i] = workSay(i, now, "")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p.handle(p.ownSubject, msgs[i])
		if i%1024 == 0 {
			*out = (*out)[:0]
		}
	}
	b.StopTimer()
	if p.dropped > 0 {
		b.Fatalf("dropped %d", p.dropped)
	}
}

func BenchmarkHandleWhois(b *testing.B) {
	p, out := offline(b)
	now := time.Now().Unix()
	b.ReportAllocs()
	for i := range b.N {
		p.handle(p.broadcast, fmt.Appendf(nil, `{"protocol":"agh-network/v0","id":"msg_w%d","workspace_id":%q,"kind":"whois","channel":%q,"from":"x.y","to":null,"ts":%d,"body":{"type":"request","query":"echo"},"proof":null}`, i, testWS, testChannel, now))
		*out = (*out)[:0]
	}
}

// The presence cache keeps a greeting peer for two greet intervals.
func TestPeerCacheExpiry(t *testing.T) {
	p, _ := offline(t)
	clock := time.Now()
	p.now = func() time.Time { return clock }
	greet := fmt.Appendf(nil, `{"protocol":"agh-network/v0","id":"msg_g1","workspace_id":%q,"kind":"greet","channel":%q,"from":"other.peer","to":null,"ts":%d,`+
		`"body":{"peer_card":{"peer_id":"other.peer","profiles_supported":[],"capabilities":[],"artifacts_supported":[],"trust_modes_supported":[]}},"proof":null}`,
		testWS, testChannel, clock.Unix())
	p.handle(p.broadcast, greet)
	if got := p.knownPeers(); len(got) != 1 || got[0] != "other.peer" {
		t.Fatalf("after greet: %v", got)
	}
	clock = clock.Add(2*p.cfg.GreetInterval - time.Second)
	if len(p.knownPeers()) != 1 {
		t.Fatal("peer expired before two greet intervals")
	}
	clock = clock.Add(2 * time.Second)
	if len(p.knownPeers()) != 0 {
		t.Fatal("peer still known after two greet intervals")
	}
	p.sweep()
	if len(p.peers) != 0 {
		t.Error("sweep kept an expired peer")
	}
}
