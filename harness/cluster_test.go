package harness

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// Credentials of the test deployments: clients and routes both authenticate.
const (
	clusterUser, clusterPassword = "ci", "s3cret"
	routeUser, routePassword     = "route", "r0ute"
)

// node is one in-process nats-server of a test deployment that the harness
// did not start, standing in for a user's own NATS.
type node struct {
	name string
	opts *server.Options
	srv  *server.Server
}

// start runs the node and waits until it accepts clients.
func (n *node) start(t *testing.T) {
	t.Helper()
	if err := n.boot(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.stop) // the server of the last boot, after any restart
}

// boot starts the node's server (again, after stop, on the same ports: a
// restart comes back where the clients look for it).
func (n *node) boot() error {
	srv, err := brokertest.Boot(n.opts)
	if err != nil {
		return err
	}
	n.opts.Port = srv.Addr().(*net.TCPAddr).Port
	n.srv = srv
	return nil
}

// restart stops the node, leaves it down for a moment and starts it again,
// then waits until a client named like prefix is back on it.
func (n *node) restart(down time.Duration, prefix string) error {
	n.stop()
	// Not a wait for anything: down is how long the outage lasts, the
	// condition the test puts the clients in.
	time.Sleep(down)
	if err := n.boot(); err != nil {
		return err
	}
	if !testwait.Until(10*time.Second, func() bool { return n.hosts(prefix) }) {
		return fmt.Errorf("%s did not reconnect to %s", prefix, n.name)
	}
	return nil
}

func (n *node) stop() { brokertest.Stop(n.srv) }

func (n *node) url() string { return n.srv.ClientURL() }

// hosts reports whether a client connection whose name starts with prefix
// is on this node.
func (n *node) hosts(prefix string) bool {
	cz, err := n.srv.Connz(&server.ConnzOptions{})
	if err != nil {
		return false
	}
	return slices.ContainsFunc(cz.Conns, func(c *server.ConnInfo) bool { return strings.HasPrefix(c.Name, prefix) })
}

func nodeOptions(name string) *server.Options {
	return &server.Options{
		ServerName: name, Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		Username: clusterUser, Password: clusterPassword, MaxPayload: broker.MaxPayload,
	}
}

// startNode starts a single server with user authentication.
func startNode(t *testing.T, name string) *node {
	t.Helper()
	n := &node{name: name, opts: nodeOptions(name)}
	n.start(t)
	return n
}

// startCluster starts one JetStream cluster node per name, routed to each
// other over loopback with route authentication, and waits until the routes
// are a full mesh and JetStream has elected its meta leader.
func startCluster(t *testing.T, names ...string) []*node {
	t.Helper()
	// Every node is configured with the routes of all, so the route ports
	// are picked (and released) before any node starts: another test's
	// server may take one in between, and then the cluster is started
	// again on other ports.
	var nodes []*node
	var err error
	for try := 0; try < 3; try++ {
		if nodes, err = bootCluster(t, names); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		t.Cleanup(n.stop) // the server of the last boot, after any restart
	}
	srvs := make([]*server.Server, len(nodes))
	for i, n := range nodes {
		srvs[i] = n.srv
	}
	brokertest.AwaitCluster(t, srvs)
	return nodes
}

// bootCluster starts the nodes of startCluster on route ports picked now;
// when one cannot start, it stops the others and says why.
func bootCluster(t *testing.T, names []string) ([]*node, error) {
	t.Helper()
	var routes []*url.URL
	ports := make([]int, len(names))
	for i := range names {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
		routes = append(routes, &url.URL{Scheme: "nats-route", User: url.UserPassword(routeUser, routePassword),
			Host: fmt.Sprintf("127.0.0.1:%d", ports[i])})
	}
	nodes := make([]*node, 0, len(names))
	for i, name := range names {
		o := nodeOptions(name)
		o.JetStream, o.StoreDir = true, t.TempDir()
		o.Cluster = server.ClusterOpts{Name: "aghcheck-test", Host: "127.0.0.1", Port: ports[i],
			Username: routeUser, Password: routePassword}
		o.Routes = routes
		n := &node{name: name, opts: o}
		if err := n.boot(); err != nil {
			for _, up := range nodes {
				up.stop()
			}
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// jetStreamLast orders the scenarios so that those publishing through
// JetStream are played last, after a node loss made early in the run.
func jetStreamLast(scs []*scenario.Scenario) []*scenario.Scenario {
	out := slices.Clone(scs)
	slices.SortStableFunc(out, func(a, b *scenario.Scenario) int {
		switch {
		case a.Requires.JetStream == b.Requires.JetStream:
			return 0
		case b.Requires.JetStream:
			return -1
		}
		return 1
	})
	return out
}

// The harness on node A (given A and B as its URLs), the reference peer on
// node C: the full suite passes across the cluster, JetStream on a stream
// replicated on all three nodes; then again while node B is shut down in the
// middle of the run: nothing is lost and nothing is blamed on the IUT.
func TestCluster(t *testing.T) {
	// Not parallel: many scenarios against one peer, under step ceilings
	// that the other tests' load would decide.
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	nodes := startCluster(t, "A", "B", "C")
	a, b, c := nodes[0], nodes[1], nodes[2]
	ep := broker.Endpoint{URL: a.url() + "," + b.url(), User: clusterUser, Password: clusterPassword}

	run := func(t *testing.T, midRun func(done int)) *report.Report {
		t.Helper()
		var (
			mu                 sync.Mutex
			done               int
			harnessA, iutC, js bool
		)
		cfg := config{Target: Target{

			// A scenario that drops the IUT's connection needs the
			// embedded broker: on a cluster it is skipped (reconnect_test.go).

			External: &ep,
			// The IUT is told node C only (the last AGH_NATS_URL wins).
			Env: []string{"AGH_NATS_URL=" + c.url()}}, Scenarios: slices.DeleteFunc(jetStreamLast(loadSuites(t)), (*scenario.Scenario).Alone),

			Parallel: 6,
			Progress: func(sc *report.ScenarioResult) {
				mu.Lock()
				defer mu.Unlock()
				done++
				if done == 1 {
					harnessA, iutC = a.hosts("aghcheck-harness"), c.hosts("aghcheck peer ")
					js = !b.hosts("aghcheck")
				}
				if midRun != nil {
					midRun(done)
				}
			},
		}
		rep := runAgainst(t, "peer", cfg)
		dump(t, rep)
		if rep.Error != "" {
			t.Fatalf("harness error: %s\nstderr: %s", rep.Error, rep.IUT.Stderr)
		}
		if !harnessA || !iutC || !js {
			t.Errorf("harness on A: %v, IUT on C: %v, nothing on B: %v; want all true", harnessA, iutC, js)
		}
		if s := rep.Summary; s.Pass != len(rep.Scenarios) || !s.Passed || s.Claim != "Full Peer" {
			t.Errorf("summary %+v, want every scenario to pass and Full Peer", s)
		}
		if !rep.Broker.JetStream || rep.Broker.JetStreamReplicas != 3 {
			t.Errorf("jetstream %v with %d replicas, want an R3 stream", rep.Broker.JetStream, rep.Broker.JetStreamReplicas)
		}
		if len(rep.Broker.Outages) != 0 {
			t.Errorf("outages %+v, want none: the harness's node stayed up", rep.Broker.Outages)
		}
		return rep
	}

	t.Run("full-suite", func(t *testing.T) { run(t, nil) })
	t.Run("node-B-lost-mid-run", func(t *testing.T) {
		stopped := false
		run(t, func(done int) {
			// Progress runs with the next scenario held back, so the
			// JetStream scenarios (last) start on a stream that lost a node.
			if done == 8 {
				b.stop()
				stopped = true
			}
		})
		if !stopped {
			t.Fatal("node B was never stopped")
		}
		if a.srv.NumRemotes() != 1 || c.srv.NumRemotes() != 1 {
			t.Errorf("routes after the loss: A %d, C %d; want 1 each", a.srv.NumRemotes(), c.srv.NumRemotes())
		}
	})
}
