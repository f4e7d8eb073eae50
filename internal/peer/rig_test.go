package peer

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/trust"
)

const (
	testWS      = "ws_test"
	testChannel = "builders"
	testToken   = "s3cret-token"
	wait        = 3 * time.Second        // how long an expected envelope may take
	quiet       = 300 * time.Millisecond // silence window
)

// startServer runs nats-server in-process on a random loopback port with
// token auth, and stops it when the test ends.
func startServer(t testing.TB) *server.Server {
	t.Helper()
	return startServerOn(t, -1)
}

func startServerOn(t testing.TB, port int) *server.Server {
	t.Helper()
	return brokertest.Start(t, &server.Options{Port: port, Authorization: testToken, MaxPayload: 1 << 20})
}

// logWriter sends the peer's log lines to the test log.
type logWriter struct {
	t    testing.TB
	done *atomic.Bool
}

func (w logWriter) Write(b []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(strings.TrimRight(string(b), "\n"))
	}
	return len(b), nil
}

// rig is one reference peer on a private broker plus a test peer that
// talks to it the way a scenario would.
type rig struct {
	t      testing.TB
	srv    *server.Server
	cfg    Config
	key    ed25519.PrivateKey // the test peer's key, nil when unverified
	me     string
	nc     *nats.Conn
	in     chan *nats.Msg
	peerID string
	greet  map[string]any
	strict bool // the peer has no faults: everything it sends must be valid
	done   chan error
	cancel context.CancelFunc
	seq    int
	stderr *syncBuffer // what the peer prints as a dying runtime
}

// syncBuffer is a bytes.Buffer the peer and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type rigOpt func(*rig)

func withFaults(names ...string) rigOpt { return func(r *rig) { r.cfg.Faults = names } }
func withTesterKey(k ed25519.PrivateKey) rigOpt {
	return func(r *rig) { r.key = k; r.me = "tester@" + trust.Fingerprint(k.Public().(ed25519.PublicKey)) }
}
func withConfig(f func(*Config)) rigOpt { return func(r *rig) { f(&r.cfg) } }

func newRig(t testing.TB, opts ...rigOpt) *rig {
	t.Helper()
	r := &rig{t: t, srv: startServer(t), me: "tester.session-1", in: make(chan *nats.Msg, 256), done: make(chan error, 1), stderr: &syncBuffer{}}
	stopLog := &atomic.Bool{}
	r.cfg = Config{
		URL: r.srv.ClientURL(), Token: testToken, Workspace: testWS, Channel: testChannel,
		PeerID: "ref.peer-1", GreetInterval: time.Hour, Stderr: r.stderr,
		Logger: slog.New(slog.NewTextHandler(logWriter{t, stopLog}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, o := range opts {
		o(r)
	}
	r.strict = len(r.cfg.Faults) == 0
	nc, err := nats.Connect(r.srv.ClientURL(), nats.Token(testToken), nats.NoEcho())
	if err != nil {
		t.Fatal(err)
	}
	r.nc = nc
	r.subscribe(agh.BroadcastSubject(testWS, testChannel))
	r.subscribe(agh.PeerSubject(testWS, testChannel, r.me))
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- Run(ctx, r.cfg) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-r.done:
			if err != nil {
				t.Errorf("Run returned %v on shutdown", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
		stopLog.Store(true)
		nc.Close()
	})
	g, _ := r.next(wait)
	if g == nil || g["kind"] != "greet" {
		t.Fatalf("no greet on join, got %v", g)
	}
	r.greet = g
	r.peerID = g["from"].(string)
	return r
}

func (r *rig) subscribe(subject string) {
	r.t.Helper()
	if _, err := r.nc.ChanSubscribe(subject, r.in); err != nil {
		r.t.Fatal(err)
	}
}

// next returns the next envelope the reference peer published, checking
// (when the peer runs without faults) that the engine accepts it and that
// it came on the subject its to field calls for.
func (r *rig) next(d time.Duration) (map[string]any, string) {
	r.t.Helper()
	select {
	case m := <-r.in:
		ck, err := agh.NewChecker(agh.Options{Now: time.Now().Unix()})
		if err != nil {
			r.t.Fatal(err)
		}
		res := ck.CheckBytes(m.Data)
		if res.Envelope == nil {
			r.t.Fatalf("peer sent a non-object on %s: %q", m.Subject, m.Data)
		}
		if r.strict {
			if !res.Valid(false) {
				r.t.Errorf("peer sent an invalid envelope on %s: %s\n%v", m.Subject, m.Data, res.Findings)
			}
			if want, err := agh.Subject(res.Envelope); err != nil || want != m.Subject {
				r.t.Errorf("peer published %s on %s, want %s (%v)", res.Envelope["kind"], m.Subject, want, err)
			}
			if r.key != nil || r.cfg.Key != nil {
				if r.cfg.Key != nil && res.Trust != string(trust.Verified) {
					r.t.Errorf("verified peer sent a %q envelope", res.Trust)
				}
			}
		}
		return res.Envelope, m.Subject
	case <-time.After(d):
		return nil, ""
	}
}

// expect returns the next non-greet envelope and checks its kind.
func (r *rig) expect(kind string) map[string]any {
	r.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		env, _ := r.next(time.Until(deadline))
		if env == nil {
			r.t.Fatalf("waited %v for a %s, got nothing", wait, kind)
		}
		if env["kind"] == "greet" {
			continue
		}
		if env["kind"] != kind {
			r.t.Fatalf("want a %s, got %s", kind, mustJSON(env))
		}
		return env
	}
}

// silence fails if the peer sends anything but a greet within quiet.
func (r *rig) silence() {
	r.t.Helper()
	deadline := time.Now().Add(quiet)
	for {
		env, subj := r.next(time.Until(deadline))
		if env == nil {
			return
		}
		if env["kind"] != "greet" {
			r.t.Fatalf("want silence, got on %s: %s", subj, mustJSON(env))
		}
	}
}

// env starts an envelope from the test peer to the reference peer.
func (r *rig) env(kind string, body map[string]any) map[string]any {
	r.seq++
	return map[string]any{
		"protocol": "agh-network/v0", "id": fmt.Sprintf("msg_t%d_%d", r.seq, time.Now().UnixNano()),
		"workspace_id": testWS, "kind": kind, "channel": testChannel,
		"from": r.me, "to": r.peerID, "ts": time.Now().Unix(), "body": body, "proof": nil,
	}
}

// work starts a work-opening say in a fresh thread.
func (r *rig) work(text string) map[string]any {
	e := r.env("say", map[string]any{"text": text, "intent": "request"})
	e["surface"], e["thread_id"] = "thread", fmt.Sprintf("thread_t%d", r.seq)
	e["work_id"] = fmt.Sprintf("work_t%d_%d", r.seq, time.Now().UnixNano()%1e9)
	return e
}

// follow is a message on the same work and container as w.
func (r *rig) follow(w map[string]any, kind string, body map[string]any) map[string]any {
	e := r.env(kind, body)
	for _, k := range []string{"surface", "thread_id", "direct_id", "work_id"} {
		if v, ok := w[k]; ok {
			e[k] = v
		}
	}
	return e
}

func (r *rig) cancelOf(w map[string]any) map[string]any {
	return r.follow(w, "receipt", map[string]any{"for_id": w["id"], "status": "canceled"})
}

// send signs (when the tester has a key) and publishes env on the subject
// its to calls for.
func (r *rig) send(env map[string]any) []byte {
	r.t.Helper()
	if r.key != nil {
		if err := trust.Sign(env, r.key, "tester"); err != nil {
			r.t.Fatal(err)
		}
	}
	b := mustJSON(env)
	subj := agh.BroadcastSubject(testWS, testChannel)
	if to, _ := env["to"].(string); to != "" {
		subj = agh.PeerSubject(testWS, testChannel, to)
	}
	r.sendRaw(subj, b)
	return b
}

func (r *rig) sendRaw(subject string, b []byte) {
	r.t.Helper()
	if err := r.nc.Publish(subject, b); err != nil {
		r.t.Fatal(err)
	}
}

// toPeer publishes b as is on the peer's own subject (no signing, no
// routing by to): for payloads send would not produce.
func (r *rig) toPeer(b []byte) {
	r.t.Helper()
	r.sendRaw(agh.PeerSubject(testWS, testChannel, r.peerID), b)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// body returns env's body.
func body(env map[string]any) map[string]any {
	b, _ := env["body"].(map[string]any)
	return b
}

// wantReceipt checks a receipt answers trigger with status and reason.
func wantReceipt(t testing.TB, got, trigger map[string]any, status, reason string) {
	t.Helper()
	b := body(got)
	if b["status"] != status || (b["reason_code"] != nil && b["reason_code"] != reason) || (reason != "" && b["reason_code"] != reason) {
		t.Fatalf("want receipt %s/%s, got %s", status, reason, mustJSON(got))
	}
	if b["for_id"] != trigger["id"] || got["reply_to"] != trigger["id"] {
		t.Errorf("receipt for_id/reply_to = %v/%v, want %v", b["for_id"], got["reply_to"], trigger["id"])
	}
	if got["to"] != trigger["from"] || got["work_id"] != trigger["work_id"] {
		t.Errorf("receipt to/work_id = %v/%v, want %v/%v", got["to"], got["work_id"], trigger["from"], trigger["work_id"])
	}
}

// wantTrace checks a trace reports state on the work of trigger.
func wantTrace(t testing.TB, got, work, trigger map[string]any, state string) {
	t.Helper()
	if body(got)["state"] != state {
		t.Fatalf("want trace %s, got %s", state, mustJSON(got))
	}
	if got["work_id"] != work["work_id"] || got["thread_id"] != work["thread_id"] || got["surface"] != work["surface"] {
		t.Errorf("trace container/work %v/%v/%v, want %v/%v/%v", got["surface"], got["thread_id"], got["work_id"], work["surface"], work["thread_id"], work["work_id"])
	}
	if got["causation_id"] != trigger["id"] || got["to"] != work["from"] {
		t.Errorf("trace causation_id/to = %v/%v, want %v/%v", got["causation_id"], got["to"], trigger["id"], work["from"])
	}
}
