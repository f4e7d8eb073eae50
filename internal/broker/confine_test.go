package broker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/testwait"
)

// The IUT's user on the embedded broker reaches the run's subjects and its
// inboxes, and nothing else: no other workspace, no subject outside the
// protocol's, no JetStream API, no $SYS, no harness inbox. Each refused
// publish and subscription comes back as a permission violation, and
// nothing refused reaches a subscriber.
func TestIUTIsConfined(t *testing.T) {
	b, err := Start(Options{JetStream: true, IUTSubjects: []string{"agh.network.v0.ws-run.>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.IUT.User != IUTUser || b.IUT.Password == "" || b.IUT.Password == b.Password || b.IUT.Token != "" {
		t.Fatalf("the IUT has no user of its own: %+v", b.IUT)
	}
	if b.User != HarnessUser || b.Token != "" {
		t.Fatalf("the harness's endpoint is %+v, want user %s", b.Endpoint, HarnessUser)
	}
	if _, err := (Endpoint{URL: b.URL, User: IUTUser, Password: b.Password}).Connect("iut with the harness's password"); err == nil {
		t.Fatal("the IUT's user was let in with the harness's password")
	}
	watch, err := b.Connect("watch")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	seen := make(chan string, 64)
	if _, err := watch.Subscribe(">", func(m *nats.Msg) { seen <- m.Subject }); err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Subscribe("agh.network.v0.ws-run.ch.peer.svc", func(m *nats.Msg) { _ = m.Respond([]byte("answer")) }); err != nil {
		t.Fatal(err)
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}

	denied := make(chan string, 64)
	iut, err := b.IUT.Connect("iut", nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		denied <- err.Error()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer iut.Close()

	pubs := []string{
		"agh.network.v0.other-ws.ch.broadcast", // another run's workspace
		"agh.network.v0.ch.broadcast",          // a channel-only subject
		"orders.evil",                          // an application's
		"$JS.API.STREAM.DELETE.AGHCHECK_WS_RUN",
		"$JS.API.INFO",
		"$SYS.REQ.SERVER.PING",
		HarnessInboxPrefix + ".forged",
	}
	for _, s := range pubs {
		if err := iut.Publish(s, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	subs := []string{"$SYS.>", "$JS.API.>", "agh.network.v0.other-ws.>", ">", HarnessInboxPrefix + ".>"}
	for _, s := range subs {
		if _, err := iut.SubscribeSync(s); err != nil {
			t.Fatal(err)
		}
	}
	// What it may do, last: once this arrives, the forbidden publishes
	// (sent before on the same connection) would have arrived too.
	if m, err := iut.Request("agh.network.v0.ws-run.ch.peer.svc", nil, 5*time.Second); err != nil || string(m.Data) != "answer" {
		t.Errorf("a request on the run's subjects: %v, want its answer (its inbox must be allowed)", err)
	}
	if err := iut.Publish("agh.network.v0.ws-run.ch.broadcast", []byte("ok")); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for done := false; !done; {
		select {
		case s := <-seen:
			// The server's own account events (the refused login
			// above, $SYS.ACCOUNT.CLIENT.AUTH.ERR, published when the
			// server gets to it) are not the IUT's.
			if s == "agh.network.v0.ws-run.ch.broadcast" {
				done = true
			} else if !strings.HasPrefix(s, "agh.network.v0.ws-run.") && !strings.HasPrefix(s, InboxPrefix+".") && !strings.HasPrefix(s, "$SYS.ACCOUNT.") {
				t.Errorf("the IUT published on %s", s)
			}
		case <-timeout:
			t.Fatal("the IUT's allowed publish never arrived")
		}
	}
	want := len(pubs) + len(subs)
	var got []string
	for len(got) < want {
		select {
		case e := <-denied:
			if strings.Contains(strings.ToLower(e), "permissions violation") {
				got = append(got, e)
			}
		case <-timeout:
			t.Fatalf("%d permission violations, want %d: %q", len(got), want, got)
		}
	}
	all := strings.Join(got, "\n")
	for _, s := range append(pubs, subs...) {
		if !strings.Contains(all, `"`+s+`"`) {
			t.Errorf("no permission violation names %s: %q", s, got)
		}
	}
	// The connection survives its refusals: it is still the IUT's.
	if !iut.IsConnected() {
		t.Error("the IUT's connection closed over a refusal")
	}
}

// Without subjects to confine it to, the IUT shares the harness's token
// (tests that play the IUT in process).
func TestUnconfinedSharesTheToken(t *testing.T) {
	b, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.IUT != b.Endpoint || b.Token == "" || b.User != "" {
		t.Fatalf("IUT %+v, harness %+v: want one token for both", b.IUT, b.Endpoint)
	}
}

// JetStream's store sits under the directory it is given and goes with the
// broker; memory and storage are bounded.
func TestJetStreamStoreAndLimits(t *testing.T) {
	dir := t.TempDir()
	b, err := Start(Options{JetStream: true, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		b.Close()
		t.Fatalf("store under %s: %v, %v", dir, entries, err)
	}
	store := filepath.Join(dir, entries[0].Name())
	cfg := b.srv.JetStreamConfig()
	if cfg == nil || !strings.HasPrefix(cfg.StoreDir, store+string(filepath.Separator)) || cfg.MaxMemory != JetStreamMaxMemory || cfg.MaxStore != JetStreamMaxStore {
		t.Errorf("JetStream config %+v, want a store under %s, memory %d, storage %d", cfg, store, JetStreamMaxMemory, JetStreamMaxStore)
	}
	b.Close()
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("the store %s outlived the broker: %v", store, err)
	}
}

// What the broker refused the IUT is on record for the report, told by
// the server's words, not by the name the client gave itself: a name that
// reads like a refusal forges none and hides none.
func TestViolationsAreRecorded(t *testing.T) {
	b, err := Start(Options{IUTSubjects: []string{"agh.network.v0.ws-run.>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	denied := make(chan error, 8)
	forger := `x" - Publish Violation - Subject "agh.network.v0.ws-run.forged`
	iut, err := b.IUT.Connect(forger, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { denied <- err }))
	if err != nil {
		t.Fatal(err)
	}
	defer iut.Close()
	if err := iut.Publish("agh.network.v0.ch.broadcast", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := iut.SubscribeSync("agh.network.v0.>"); err != nil {
		t.Fatal(err)
	}
	if err := iut.Publish("agh.network.v0.ch.broadcast", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case <-denied:
		case <-time.After(5 * time.Second):
			t.Fatal("no permission violation")
		}
	}
	// The client hears of a refusal as the server logs it, not after:
	// the third log line may still be on its way.
	testwait.Until(5*time.Second, func() bool { _, n := b.Violations(); return n >= 3 })
	v, n := b.Violations()
	want := []Violation{{Publish: true, Subject: "agh.network.v0.ch.broadcast"}, {Publish: false, Subject: "agh.network.v0.>"}}
	if n != 3 || len(v) != 2 || v[0] != want[0] || v[1] != want[1] {
		t.Errorf("Violations() = %+v, %d; want %+v, 3", v, n, want)
	}
	// The refused wide subscription covers another workspace's subjects,
	// which the IUT asked to hear; not the run's own, which it may hear.
	if p, ok := b.RefusedSubscription("agh.network.v0.other.ch.broadcast"); !ok || p != "agh.network.v0.>" {
		t.Errorf("RefusedSubscription(another workspace) = %q, %v", p, ok)
	}
	if p, ok := b.RefusedSubscription("agh.network.v0.ws-run.ch.broadcast"); ok {
		t.Errorf("RefusedSubscription(the run's own subject) = %q: it may hear that", p)
	}
}
