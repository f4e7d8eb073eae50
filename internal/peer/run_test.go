package peer

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/testwait"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The peer gives up, with ErrBrokerGone, once the broker stays away.
func TestBrokerGoneForGood(t *testing.T) {
	srv := startServer(t)
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Config{
			URL: srv.ClientURL(), Token: testToken, Workspace: testWS, PeerID: "ref.gone",
			ReconnectWait: 20 * time.Millisecond, MaxReconnects: 3,
		})
	}()
	waitGreet(t, srv.ClientURL(), "ref.gone")
	srv.Shutdown()
	select {
	case err := <-done:
		if !errors.Is(err, ErrBrokerGone) {
			t.Fatalf("Run returned %v, want ErrBrokerGone", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run still running 10s after the broker went away")
	}
}

// waitGreet asks with broadcast whois requests until the named peer
// answers: a subscription opened after Run started may miss its greet.
func waitGreet(t *testing.T, url, peerID string) {
	t.Helper()
	nc, err := nats.Connect(url, nats.Token(testToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(agh.PeerSubject(testWS, DefaultChannel, "probe.x"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		req := fmt.Sprintf(`{"protocol":"agh-network/v0","id":"msg_probe_%d","workspace_id":%q,"kind":"whois","channel":%q,`+
			`"from":"probe.x","to":null,"ts":%d,"body":{"type":"request","query":%q},"proof":null}`,
			i, testWS, DefaultChannel, time.Now().Unix(), peerID)
		_ = nc.Publish(agh.BroadcastSubject(testWS, DefaultChannel), []byte(req))
		if _, err := sub.NextMsg(100 * time.Millisecond); err == nil {
			return
		}
	}
	t.Fatalf("peer %s never answered", peerID)
}

// After the broker comes back the peer greets again.
func TestGreetAfterReconnect(t *testing.T) {
	srv := startServer(t)
	port := srv.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{
			URL: srv.ClientURL(), Token: testToken, Workspace: testWS, PeerID: "ref.back",
			// The test subscribes on the new server before the peer's
			// next try: a peer back in milliseconds would greet before
			// anyone listened, on a loaded machine.
			ReconnectWait: time.Second, MaxReconnects: 100, GreetInterval: time.Hour,
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	waitGreet(t, srv.ClientURL(), "ref.back")
	srv.Shutdown()
	srv.WaitForShutdown()

	srv2 := startServerOn(t, port)
	nc, err := nats.Connect(srv2.ClientURL(), nats.Token(testToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(agh.BroadcastSubject(testWS, DefaultChannel))
	if err != nil {
		t.Fatal(err)
	}
	m, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatalf("no greet after reconnect: %v", err)
	}
	if !strings.Contains(string(m.Data), `"kind":"greet"`) || !strings.Contains(string(m.Data), `"ref.back"`) {
		t.Fatalf("first message after reconnect is not the greet: %s", m.Data)
	}
}

// Nothing the peer started outlives Run.
func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		r := newRig(t)
		w := r.work("leak check")
		completeDefault(r, w)
		r.cancel()
		if err := <-r.done; err != nil {
			t.Fatal(err)
		}
		r.done <- nil // for the rig's cleanup
		r.nc.Close()
		r.srv.Shutdown()
		r.srv.WaitForShutdown()
	}()
	if !testwait.Until(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left (had %d):\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
	}
}

func TestConfigFromEnv(t *testing.T) {
	for k, v := range map[string]string{
		iutenv.NATSURL: "nats://127.0.0.1:4222", iutenv.NATSToken: "tok", iutenv.NATSUser: "u", iutenv.NATSPassword: "p",
		iutenv.WorkspaceID: "ws_env", iutenv.Channel: "chan-1", iutenv.PeerID: "env.peer", iutenv.GreetInterval: "2", iutenv.NATSCreds: "/ci/run.creds",
	} {
		t.Setenv(k, v)
	}
	c, err := ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := Config{URL: "nats://127.0.0.1:4222", Token: "tok", User: "u", Password: "p", Creds: "/ci/run.creds", Workspace: "ws_env",
		Channel: "chan-1", PeerID: "env.peer", DisplayName: DefaultDisplayName, GreetInterval: 2 * time.Second}
	if c.URL != want.URL || c.Token != want.Token || c.User != want.User || c.Password != want.Password || c.Creds != want.Creds ||
		c.Workspace != want.Workspace || c.Channel != want.Channel || c.PeerID != want.PeerID || c.GreetInterval != want.GreetInterval {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	t.Setenv(iutenv.GreetInterval, "soon")
	if _, err := ConfigFromEnv(); err == nil {
		t.Error("bad greet interval accepted")
	}
}

func TestParseSeconds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30", 30 * time.Second, true}, {"0.25", 250 * time.Millisecond, true}, {"1m30s", 90 * time.Second, true},
		{" 5 ", 5 * time.Second, true}, {"0", 0, false}, {"-1", 0, false}, {"abc", 0, false}, {"", 0, false},
	} {
		got, err := ParseSeconds(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want string // substring of the error, "" for success
	}{
		{"no url", Config{Workspace: "ws"}, "NATS URL"},
		{"no workspace", Config{URL: "nats://x"}, "workspace"},
		{"dotted workspace", Config{URL: "nats://x", Workspace: "a.b"}, "subject-safe"},
		{"unknown fault", Config{URL: "nats://x", Workspace: "ws", Faults: []string{"nope"}}, "unknown fault"},
		{"short key", Config{URL: "nats://x", Workspace: "ws", Key: make([]byte, 5)}, "Ed25519"},
		{"defaults", Config{URL: "nats://x", Workspace: "ws"}, ""},
	} {
		err := c.cfg.normalize()
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if c.cfg.Channel != DefaultChannel || c.cfg.GreetInterval != DefaultGreetInterval ||
				c.cfg.MaxReplayAge != DefaultMaxReplayAge || !strings.HasPrefix(c.cfg.PeerID, "aghcheck-peer.") {
				t.Errorf("defaults not filled: %+v", c.cfg)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrConfig mentioning %q", c.name, err, c.want)
		}
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	seedHex := "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	k0 := testKey(0)
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, content string
		ok            bool
	}{
		{"seed", seedHex + "\n", true},
		{"keygen file", keyFileJSON(t, k0), true},
		{"short", "abcd", false},
		{"not hex", strings.Repeat("zz", 32), false},
	} {
		k, _, err := KeyFromFile(write(c.name, c.content))
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v", c.name, err)
		}
		if c.ok && !k.Equal(k0) {
			t.Errorf("%s: wrong key", c.name)
		}
	}
	if _, _, err := KeyFromFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing key file accepted")
	}
}

// keyFileJSON renders k the way 'aghcheck keygen --out' writes it.
func keyFileJSON(t *testing.T, k ed25519.PrivateKey) string {
	t.Helper()
	b, err := trust.MarshalKeyFile(k, "patch-worker")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
