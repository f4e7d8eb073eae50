package monitor

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/aghcheck/aghcheck/internal/brokertest"
)

// shardConf is the broker configuration docs/monitor.md gives for sharded
// monitors on core NATS (the test loads the very file the doc shows).
var shardConf = filepath.Join("testdata", "shard-accounts.conf")

// startNode starts one server configured from shardConf, with JetStream.
func startNode(t testing.TB) *server.Server {
	t.Helper()
	o, err := server.ProcessConfigFile(shardConf)
	if err != nil {
		t.Fatal(err)
	}
	o.JetStream, o.StoreDir = true, t.TempDir()
	return brokertest.Start(t, o)
}

// startCluster starts a JetStream cluster of n nodes, each configured from
// shardConf, routed over loopback, and waits for a full mesh and a
// JetStream meta leader. It returns the nodes' client URLs.
func startCluster(t *testing.T, n int) []*server.Server {
	t.Helper()
	// Every node is configured with the routes of all, so the route ports
	// are picked and released before any node starts: another test's
	// server may take one in between, and then the cluster is started
	// again on other ports.
	var nodes []*server.Server
	var err error
	for try := 0; try < 3; try++ {
		if nodes, err = bootCluster(t, n); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range nodes {
		t.Cleanup(func() { brokertest.Stop(s) })
	}
	brokertest.AwaitCluster(t, nodes)
	return nodes
}

// bootCluster starts the n nodes of startCluster on route ports picked
// now; when one cannot start, it stops the others and says why.
func bootCluster(t *testing.T, n int) ([]*server.Server, error) {
	t.Helper()
	var routes []*url.URL
	ports := make([]int, n)
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", ports[i])})
	}
	nodes := make([]*server.Server, 0, n)
	for i := range n {
		o, err := server.ProcessConfigFile(shardConf)
		if err != nil {
			t.Fatal(err)
		}
		o.ServerName = fmt.Sprintf("n%d", i)
		o.JetStream, o.StoreDir = true, t.TempDir()
		o.Cluster = server.ClusterOpts{Name: "aghmon-test", Host: "127.0.0.1", Port: ports[i]}
		o.Routes = routes
		s, err := brokertest.Boot(o)
		if err != nil {
			for _, up := range nodes {
				brokertest.Stop(up)
			}
			return nil, err
		}
		nodes = append(nodes, s)
	}
	return nodes, nil
}
