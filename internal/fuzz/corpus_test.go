package fuzz

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// keepBytesCase keeps a case whose bytes were changed (seed 29 draws one
// first) in the corpus dir, and returns it.
func keepBytesCase(t *testing.T, dir string) *Case {
	t.Helper()
	c := cases(t, 29, 1)[0]
	if c.draft.pre == nil {
		t.Fatalf("seed 29 draws %s first, not a change of the bytes: the generator moved, pick another seed", c.What())
	}
	kept, err := openCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept.consider(c)
	if err := kept.save(&fuzzer{rep: &Report{}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// keptBytesCase keeps such a case (keepBytesCase) and returns its file and
// decoded entry.
func keptBytesCase(t *testing.T, dir string) (string, map[string]any) {
	t.Helper()
	keepBytesCase(t, dir)
	names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(names) != 1 {
		t.Fatalf("%d kept cases", len(names))
	}
	raw, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return names[0], e
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A kept case that says where its message goes, or what bytes it is, is
// refused in one line naming the file; one whose routing or bytes were
// edited otherwise is rebuilt from its seed and mutations.
func TestCorpusEntryIsData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(send map[string]any)
		want string
	}{
		{"subject", func(s map[string]any) { s["subject"] = "$JS.API.STREAM.DELETE.PROD_ORDERS" }, `send.subject "$JS.API.STREAM.DELETE.PROD_ORDERS" is not one the fuzzer sends on`},
		{"broadcast, not a bystander", func(s map[string]any) { s["subject"] = "{{broadcast}}" }, `send.subject "{{broadcast}}"`},
		{"reply", func(s map[string]any) { s["reply"] = "orders.evil" }, `send.reply "orders.evil"`},
		{"raw_base64", func(s map[string]any) { s["raw_base64"] = "aGk=" }, "send.raw_base64"},
		{"jetstream", func(s map[string]any) { s["jetstream"] = true }, "send.jetstream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file, e := keptBytesCase(t, dir)
			tc.edit(e["send"].(map[string]any))
			writeJSON(t, file, e)
			_, err := openCorpus(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line naming %s and %q", err, file, tc.want)
			}
		})
	}

	dir := t.TempDir()
	file, e := keptBytesCase(t, dir)
	_, seeds := familySeeds(t, true)
	clean, err := openCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := clean.drafts(seeds)
	send := e["send"].(map[string]any)
	send["raw"] = "PUB orders.evil 5\r\nhello"
	send["repeat"] = 1000
	send["to"], send["from"] = "broadcast", "nobody"
	writeJSON(t, file, e)
	edited, err := openCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := edited.drafts(seeds)
	if len(got) != 1 || len(want) != 1 {
		t.Fatalf("%d drafts from the edited file, %d from the clean one", len(got), len(want))
	}
	g, w := got[0].send, want[0].send
	if g.Raw == nil || w.Raw == nil || *g.Raw != *w.Raw || g.Repeat != w.Repeat || g.To != w.To || g.From != w.From || g.Subject != w.Subject {
		t.Errorf("the edited entry was not rebuilt: raw %q repeat %d to %q from %q subject %q; want %q %d %q %q %q",
			deref(g.Raw), g.Repeat, g.To, g.From, g.Subject, deref(w.Raw), w.Repeat, w.To, w.From, w.Subject)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// watcher records every subject published on a broker.
type watcher struct {
	nc       *nats.Conn
	mu       sync.Mutex
	subjects map[string]int
}

func watch(t *testing.T, url string) *watcher {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	w := &watcher{nc: nc, subjects: map[string]int{}}
	if _, err := nc.Subscribe(">", func(m *nats.Msg) {
		w.mu.Lock()
		w.subjects[m.Subject]++
		w.mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return w
}

// settle waits until the watcher has handled everything the broker
// routed to it before now: the flush's PONG comes after it, and the
// barrier runs once the callback has had all that came before.
func (w *watcher) settle(t *testing.T) {
	t.Helper()
	if err := w.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	if err := w.nc.Barrier(func() { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
}

// outside lists what was published outside the run's subjects (the
// client inboxes aside).
func (w *watcher) outside(ws, ch string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for s := range w.subjects {
		if !scenario.Confined(s, ws, ch) && !strings.HasPrefix(s, "_INBOX.") {
			out = append(out, s)
		}
	}
	return out
}

// On the user's broker (--nats-url, which aghcheck reaches with the user's
// credentials), a hostile corpus makes aghcheck publish nothing outside
// the run's subjects: an entry naming a JetStream API subject is refused
// before anything is published, and one whose bytes and routing were
// edited is played as its seed and mutations make it. The user's stream
// is still there.
func TestHostileCorpusOnAnExternalBroker(t *testing.T) {
	t.Parallel()
	srv := brokertest.Start(t, &server.Options{JetStream: true, StoreDir: t.TempDir()})
	user, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	js, err := jetstream.New(user)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "PROD_ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		t.Fatal(err)
	}
	w := watch(t, srv.ClientURL())
	const ws, ch = "aghcheck-corpus", "conformance"
	target := func() Config {
		hc := against(t)
		hc.External = &broker.Endpoint{URL: srv.ClientURL()}
		hc.Workspace, hc.Channel = ws, ch
		return Config{Seed: 3, Cases: 5, Parallel: 8, Target: hc}
	}

	// Refused: nothing is played.
	dir := t.TempDir()
	file, e := keptBytesCase(t, dir)
	e["send"].(map[string]any)["subject"] = "$JS.API.STREAM.DELETE.PROD_ORDERS"
	writeJSON(t, file, e)
	cfg := target()
	cfg.CorpusDir = dir
	if _, err := Run(ctx, cfg); err == nil || !strings.Contains(err.Error(), "send.subject") {
		t.Fatalf("fuzz with a corpus entry naming the JetStream API: %v", err)
	}

	// Rebuilt: played, on the run's subjects.
	dir = t.TempDir()
	file, e = keptBytesCase(t, dir)
	send := e["send"].(map[string]any)
	send["raw"] = "PUB orders.evil 5\r\nhello"
	send["repeat"], send["to"] = 3, "broadcast"
	writeJSON(t, file, e)
	cfg = target()
	cfg.CorpusDir = dir
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Corpus == nil || rep.Cases == 0 {
		t.Fatalf("nothing played: %+v", rep)
	}
	w.settle(t)
	if out := w.outside(ws, ch); len(out) > 0 {
		t.Errorf("published outside the run's subjects: %v", out)
	}
	if _, err := js.Stream(ctx, "PROD_ORDERS"); err != nil {
		t.Errorf("the user's stream: %v", err)
	}
	w.mu.Lock()
	n := w.subjects["agh.network.v0."+ws+"."+ch+".broadcast"]
	w.mu.Unlock()
	if n == 0 {
		t.Error("the watcher saw nothing of the run")
	}
}
