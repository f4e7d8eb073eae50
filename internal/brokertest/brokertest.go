// Package brokertest runs real nats-servers in-process for tests: on a
// loopback address and a random port (so parallel tests and packages never
// collide, and nothing off the machine can reach them), quiet, and shut
// down when the test ends.
package brokertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/aghcheck/aghcheck/internal/testwait"
)

// readyWithin bounds how long a server may take to accept clients: long
// enough for a loaded two-core machine running the race detector.
const readyWithin = 10 * time.Second

// Start runs a nats-server with opts (nil: no authentication, default
// limits) and waits until it accepts clients. The server is shut down, and
// waited for, when the test and its subtests end.
func Start(t testing.TB, opts *server.Options) *server.Server {
	t.Helper()
	s, err := Boot(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Stop(s) })
	return s
}

// Boot runs a nats-server with opts and waits until it accepts clients; the
// caller stops it (Stop). It is Start for a server that a test stops and
// boots again (a restart on the same port), where cleanup is the caller's.
//
// opts is filled in place: an empty Host becomes 127.0.0.1, Port 0 a random
// port (nats-server would take 0 for its default 4222), and logging and
// signal handling are always off. opts.Port keeps -1 (random) after the
// start: the port taken is the server's Addr().
func Boot(opts *server.Options) (*server.Server, error) {
	if opts == nil {
		opts = &server.Options{}
	}
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if opts.Port == 0 {
		opts.Port = server.RANDOM_PORT
	}
	opts.NoLog, opts.NoSigs = true, true
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats-server %s: %w", opts.ServerName, err)
	}
	s.Start()
	if !s.ReadyForConnections(readyWithin) {
		Stop(s)
		return nil, fmt.Errorf("nats-server %s not ready after %s", opts.ServerName, readyWithin)
	}
	return s, nil
}

// Stop shuts the server down and waits until it has (its listeners closed,
// its goroutines ended), so that nothing of it outlives the test.
func Stop(s *server.Server) {
	s.Shutdown()
	s.WaitForShutdown()
}

// AwaitCluster waits until servers, the nodes of one JetStream cluster,
// are routed to each other in a full mesh, JetStream is current on each,
// and one of them leads its meta group.
func AwaitCluster(t testing.TB, servers []*server.Server) {
	t.Helper()
	testwait.Eventually(t, 20*time.Second, func() bool {
		leader := false
		for _, s := range servers {
			if s.NumRemotes() != len(servers)-1 || !s.JetStreamIsCurrent() {
				return false
			}
			leader = leader || s.JetStreamIsLeader()
		}
		return leader
	}, "a full mesh of routes and a JetStream meta leader")
}
