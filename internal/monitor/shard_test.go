package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// shardStream is the stream docs/monitor.md gives for sharded monitors on
// JetStream (the test creates the very stream the doc shows).
var shardStream = filepath.Join("testdata", "shard-stream.json")

// The users of shardConf: the peers' account and the monitors'.
var (
	appUser = broker.Endpoint{User: "app", Password: "app-secret"}
	monUser = broker.Endpoint{User: "monitor", Password: "monitor-secret"}
)

func at(s *server.Server, user broker.Endpoint) broker.Endpoint {
	user.URL = s.ClientURL()
	return user
}

// streamConfig reads shardStream, the stream of shard 0, and makes it
// shard k's (replicas 0 keeps its own).
func streamConfig(t testing.TB, k, replicas int) jetstream.StreamConfig {
	t.Helper()
	b, err := os.ReadFile(shardStream)
	if err != nil {
		t.Fatal(err)
	}
	var cfg jetstream.StreamConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "AGHMON_0" || !slices.Equal(cfg.Subjects, []string{ShardPrefix + ".0.>"}) {
		t.Fatalf("%s: not the stream of shard 0: %s on %v", shardStream, cfg.Name, cfg.Subjects)
	}
	cfg.Name = "AGHMON_" + strconv.Itoa(k)
	cfg.Subjects = []string{ShardPrefix + "." + strconv.Itoa(k) + ".>"}
	if replicas > 0 {
		cfg.Replicas = replicas
	}
	return cfg
}

// createStream creates shard k's stream on ep (the monitors' account).
func createStream(t testing.TB, ep broker.Endpoint, k, replicas int) jetstream.Stream {
	t.Helper()
	nc, err := ep.Connect("stream admin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.CreateStream(context.Background(), streamConfig(t, k, replicas))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// stored counts the messages a shard's stream holds: what the broker
// put in that partition, whoever reads it.
func stored(t *testing.T, st jetstream.Stream) uint64 {
	t.Helper()
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// watcher is one monitor of the test, restartable: its findings and
// counts add up over its runs.
type watcher struct {
	t      *testing.T
	cfg    Config
	sink   *collector
	cancel context.CancelFunc
	done   chan *Summary
	before uint64 // judged by the runs before this one
	sums   []*Summary
}

func newWatcher(t *testing.T, cfg Config) *watcher {
	cfg.Tick = 20 * time.Millisecond
	w := &watcher{t: t, cfg: cfg, sink: newCollector()}
	w.start()
	t.Cleanup(func() {
		if w.cancel != nil {
			w.stop()
		}
	})
	return w
}

func (w *watcher) start() {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan *Summary, 1)
	errs := make(chan error, 1)
	go func() {
		s, err := Run(ctx, w.cfg, w.sink)
		errs <- err
		w.done <- s
	}()
	select {
	case <-w.sink.ticked:
	case err := <-errs:
		w.t.Fatalf("monitor %s: %v", w.cfg.Shard, err)
	case <-time.After(10 * time.Second):
		w.t.Fatal("the monitor never ticked")
	}
}

func (w *watcher) stop() *Summary {
	w.cancel()
	w.cancel = nil
	s := <-w.done
	w.before += s.Judged
	w.sums = append(w.sums, s)
	w.sink.last.Store(nil)
	return s
}

// judged is what all its runs judged so far.
func (w *watcher) judged() uint64 {
	n := w.before
	if s := w.sink.last.Load(); s != nil {
		n += s.Judged
	}
	return n
}

// key is a finding as compared across monitors: what was found where,
// not when (a freshness finding's text names the second it was judged in,
// and monitors judge a message at slightly different times).
func key(f *Finding) string {
	return strings.Join([]string{f.Rule.ID, f.Peer, f.Subject, f.ID, f.Kind, f.WorkID, f.Pointer}, "|")
}

func (w *watcher) keys() []string {
	w.sink.mu.Lock()
	defer w.sink.mu.Unlock()
	var out []string
	for i := range w.sink.findings {
		out = append(out, key(&w.sink.findings[i]))
	}
	return out
}

// waitRouted waits until every other node has the subscription to subject
// that node from holds: a subscription reaches the other nodes over the
// routes on their own time, and traffic published there before would not
// reach it.
func waitRouted(t *testing.T, nodes []*server.Server, from int, subject string) {
	t.Helper()
	testwait.Eventually(t, 10*time.Second, func() bool {
		for i, s := range nodes {
			if i != from && !routed(s, nodes[from].Name(), subject) {
				return false
			}
		}
		return true
	}, "%s to be known to every node", subject)
}

// routed: s holds a subscription to subject from the node named remote.
func routed(s *server.Server, remote, subject string) bool {
	rz, err := s.Routez(&server.RoutezOptions{SubscriptionsDetail: true})
	if err != nil {
		return false
	}
	for _, r := range rz.Routes {
		if r.RemoteName == remote && slices.ContainsFunc(r.SubsDetail, func(d server.SubDetail) bool { return d.Subject == subject }) {
			return true
		}
	}
	return false
}

// shardFaults: each workspace's run is against a peer with another fault.
var shardFaults = []string{"reopen-terminal", "receipt-on-broadcast", "trace-back-to-submitted"}

// workspacesPerShard names one workspace in each of n partitions.
func workspacesPerShard(n int) []string {
	out := make([]string, n)
	found := 0
	for i := 0; found < n; i++ {
		ws := fmt.Sprintf("ws_shard_%d", i)
		if k := PartitionOf(ws, n); out[k] == "" {
			out[k] = ws
			found++
		}
	}
	return out
}

// runAgainst runs the conformance suite (level core) in workspace ws on ep
// against the reference peer with fault, in process.
func runAgainst(t *testing.T, ep broker.Endpoint, ws, fault string) {
	plan, err := harness.Options{
		Target: harness.Target{External: &ep, Workspace: ws, Channel: "conformance", GreetTimeout: 10 * time.Second,
			Start: func(env []string) (func(), error) {
				e := iutenv.Parse(env)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					_ = peer.Run(ctx, peer.Config{URL: e.URL, User: e.User, Password: e.Password, Workspace: e.Workspace,
						Channel: e.Channel, PeerID: e.PeerID, OrdersFile: e.Initiate, Faults: []string{fault}})
				}()
				return func() { cancel(); <-done }, nil
			}},
		Level: "core", Parallel: 16,
	}.Plan()
	if err != nil {
		t.Error(err)
		return
	}
	if rep, err := plan.Run(context.Background()); rep == nil {
		t.Errorf("run in %s: %v", ws, err)
	} else if rep.Summary.Fail == 0 {
		t.Errorf("run in %s against fault %s: nothing failed", ws, fault)
	}
}

// TestShardedMonitors: on a three-node cluster configured as
// docs/monitor.md says, three runs (one workspace in each partition, each
// against a peer with another fault) are watched by one monitor of the
// whole traffic, three core NATS shards and three JetStream shards, one of
// which is stopped mid-run and started again. Each shard receives exactly
// its partition's messages, and the union of the shards' findings is the
// whole monitor's, none missing and none doubled.
func TestShardedMonitors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	const n = 3
	nodes := startCluster(t, n)
	var streams [n]jetstream.Stream
	for k := range n {
		streams[k] = createStream(t, at(nodes[k], monUser), k, 0)
	}
	wss := workspacesPerShard(n)

	whole := newWatcher(t, Config{Endpoint: at(nodes[0], appUser)})
	waitRouted(t, nodes, 0, Subject("", ""))
	var core, js [n]*watcher
	for k := range n {
		core[k] = newWatcher(t, Config{Endpoint: at(nodes[k], monUser), Shard: Shard{k, n}})
		waitRouted(t, nodes, k, sharded(Shard{k, n}, Subject("", "")))
		js[k] = newWatcher(t, Config{Endpoint: at(nodes[(k+1)%n], monUser), Shard: Shard{k, n}, JetStream: true})
	}

	var wg sync.WaitGroup
	for i, ws := range wss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runAgainst(t, at(nodes[(i+2)%n], appUser), ws, shardFaults[i])
		}()
	}
	ran := make(chan struct{})
	go func() { wg.Wait(); close(ran) }()

	// Shard 0's JetStream monitor stops once it has judged some of its
	// run, stays away while more is published, and starts again.
	r := js[0]
	testwait.Eventually(t, 10*time.Second, func() bool { return r.judged() >= 20 }, "shard 0 to judge 20 envelopes")
	away := r.stop().Judged
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
	}
	published := stored(t, streams[0])
	r.start()
	<-ran
	if published <= away {
		t.Errorf("nothing was published in partition 0 while its monitor was away (%d judged, %d published)", away, published)
	}

	// Everything the broker split is judged, by its shard.
	var want [n]uint64
	var total uint64
	for k := range n {
		want[k] = stored(t, streams[k])
		total += want[k]
		if want[k] == 0 {
			t.Fatalf("partition %d got no traffic: %v", k, want)
		}
	}
	caughtUp := func() (bool, string) {
		ok := whole.judged() >= total
		got := fmt.Sprintf("whole %d of %d;", whole.judged(), total)
		for k := range n {
			ok = ok && core[k].judged() >= want[k] && js[k].judged() >= want[k]
			got += fmt.Sprintf(" shard %d: core %d, JetStream %d of %d;", k, core[k].judged(), js[k].judged(), want[k])
		}
		return ok, got
	}
	if !testwait.Until(20*time.Second, func() bool { ok, _ := caughtUp(); return ok }) {
		_, got := caughtUp()
		t.Fatalf("the monitors did not judge their shares: %s", got)
	}

	wholeSum := whole.stop()
	var coreKeys, jsKeys []string
	for k := range n {
		for _, w := range []*watcher{core[k], js[k]} {
			w.stop()
			var delivered, judged uint64
			for _, s := range w.sums {
				delivered += s.Delivered
				judged += s.Judged
				if s.Shard != (Shard{k, n}).String() || s.Dropped != 0 {
					t.Errorf("shard %d: summary says shard %q, %d dropped", k, s.Shard, s.Dropped)
				}
			}
			if delivered != want[k] || judged != want[k] {
				t.Errorf("shard %d (JetStream %v): delivered %d, judged %d, want its partition's %d", k, w.cfg.JetStream, delivered, judged, want[k])
			}
			for _, f := range w.sink.findings {
				if ws := strings.Split(f.Subject, ".")[3]; f.Rule != Dropped && PartitionOf(ws, n) != k {
					t.Errorf("shard %d judged %s of another partition", k, f.Subject)
				}
			}
		}
		coreKeys = append(coreKeys, core[k].keys()...)
		jsKeys = append(jsKeys, js[k].keys()...)
	}
	if wholeSum.Judged != total || wholeSum.Dropped != 0 {
		t.Errorf("the whole monitor judged %d of %d (%d dropped)", wholeSum.Judged, total, wholeSum.Dropped)
	}
	all := whole.keys()
	if len(all) == 0 {
		t.Fatal("the whole monitor found nothing: the runs' faults are not seen")
	}
	slices.Sort(all)
	for name, got := range map[string][]string{"core NATS": coreKeys, "JetStream": jsKeys} {
		slices.Sort(got)
		if !slices.Equal(got, all) {
			t.Errorf("the %s shards found %d, the whole monitor %d:\n%s", name, len(got), len(all), diffKeys(got, all))
		}
	}
	if js[0].sums[1].Replayed == 0 {
		t.Error("the restarted shard replayed nothing to restore its state")
	}
	t.Logf("partitions %v; %d findings; shard 0 restarted after %d, replayed %d", want, len(all), away, js[0].sums[1].Replayed)
}

func sorted(s []string) []string { slices.Sort(s); return s }

// diffKeys lists what one sorted list has that the other has not.
func diffKeys(got, want []string) string {
	var b strings.Builder
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || (i < len(got) && got[i] < want[j]):
			fmt.Fprintf(&b, "  + %s\n", got[i])
			i++
		case i == len(got) || want[j] < got[i]:
			fmt.Fprintf(&b, "  - %s\n", want[j])
			j++
		default:
			i++
			j++
		}
	}
	return b.String()
}
