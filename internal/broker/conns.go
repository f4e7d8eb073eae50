package broker

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Conn is one client connection as the embedded broker saw it: open, or
// closed and why. The harness tells the IUT's connections by the
// credentials they use (every client but the harness's own connection,
// whatever name it gives), never by the name a client chose.
type Conn struct {
	CID    uint64
	Name   string // the name the client gave, if any: shown, never trusted
	User   string // the user it authenticated as ("" with a token)
	Opened time.Time
	// Closed is when it closed (zero while open), Reason the broker's
	// words ("Client Closed", "Stale Connection", ...).
	Closed    time.Time
	Reason    string
	ByHarness bool // DropClients closed it
}

// Open reports whether c is still open.
func (c Conn) Open() bool { return c.Closed.IsZero() }

// Conns lists the client connections, open and closed, but the
// connection except (the harness's), ordered by connection id; with user
// set, only those that authenticated as user. A connection that opened and
// closed between two calls is listed too: the broker keeps the closed ones
// (the latest ten thousand).
func (b *Broker) Conns(except uint64, user string) ([]Conn, error) {
	if b == nil || b.srv == nil {
		return nil, errors.New("no embedded broker")
	}
	var out []Conn
	for _, state := range []server.ConnState{server.ConnOpen, server.ConnClosed} {
		opts := &server.ConnzOptions{State: state, Sort: server.ByCid, Limit: 1 << 16}
		if user != "" {
			opts.Username, opts.User = true, user
		}
		cz, err := b.srv.Connz(opts)
		if err != nil {
			return nil, fmt.Errorf("list connections: %w", err)
		}
		for _, ci := range cz.Conns {
			if ci.Cid == except {
				continue
			}
			c := Conn{CID: ci.Cid, Name: ci.Name, User: ci.AuthorizedUser, Opened: ci.Start, ByHarness: b.droppedByHarness(ci.Cid)}
			if state == server.ConnClosed {
				c.Reason = ci.Reason
				c.Closed = time.Now()
				if ci.Stop != nil {
					c.Closed = *ci.Stop
				}
			}
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Conn) int { return cmp.Compare(a.CID, b.CID) })
	return out, nil
}

// ClosedByBroker lists the connections but except that the broker closed
// on its own account (a publish over MaxPayload, a protocol error, a slow
// consumer): not those that closed themselves, not because the other end
// died, the broker stopped or the harness dropped them. Unlike
// Disconnects it leaves the harness out by connection id, so a client
// that calls itself what the harness does is still listed.
func (b *Broker) ClosedByBroker(except uint64) []Disconnect {
	conns, err := b.Conns(except, "")
	if err != nil {
		return nil
	}
	var out []Disconnect
	for _, c := range conns {
		if c.Open() || c.ByHarness || !brokerClosed(c.Reason) {
			continue
		}
		out = append(out, Disconnect{Name: c.Name, Reason: c.Reason, MaxPayload: c.Reason == server.MaxPayloadExceeded.String()})
	}
	return out
}

// brokerClosed reports whether reason is the broker's own doing rather
// than the client's or the network's.
func brokerClosed(reason string) bool {
	switch reason {
	case server.ClientClosed.String(), server.ServerShutdown.String(),
		server.ReadError.String(), server.WriteError.String():
		return false
	}
	return true
}
