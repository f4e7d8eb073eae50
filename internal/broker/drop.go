package broker

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DropClients closes every client connection subscribed to subject (a
// literal subject, matched against each subscription's wildcards) except
// the connection except, as a broker restart would for those clients
// alone, and returns how many it closed. The clients may reconnect at once.
// Disconnects leaves the dropped connections out: the harness closed them,
// not their fault.
func (b *Broker) DropClients(subject string, except uint64) (int, error) {
	if b == nil || b.srv == nil {
		return 0, errors.New("no embedded broker")
	}
	cz, err := b.srv.Connz(&server.ConnzOptions{State: server.ConnOpen, Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return 0, fmt.Errorf("list connections: %w", err)
	}
	n := 0
	for _, c := range cz.Conns {
		if c.Cid == except || !subscribed(c.Subs, subject) {
			continue
		}
		b.mu.Lock()
		if b.dropped == nil {
			b.dropped = map[uint64]bool{}
		}
		b.dropped[c.Cid] = true
		b.mu.Unlock()
		if err := b.srv.DisconnectClientByID(c.Cid); err != nil {
			continue // gone meanwhile
		}
		n++
	}
	return n, nil
}

func subscribed(subs []string, subject string) bool {
	for _, s := range subs {
		if server.SubjectMatchesFilter(subject, s) {
			return true
		}
	}
	return false
}

// droppedByHarness reports whether DropClients closed connection cid.
func (b *Broker) droppedByHarness(cid uint64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped[cid]
}

// Closure is how the broker saw a client connection end.
type Closure struct {
	Reason    string    // "Client Closed", "Stale Connection", ...
	At        time.Time // when it closed
	ByHarness bool      // DropClients closed it
}

// Closed says how connection cid ended; ok is false while the broker has
// not listed it as closed yet (ByHarness is known even then).
func (b *Broker) Closed(cid uint64) (c Closure, ok bool) {
	if b == nil || b.srv == nil {
		return c, false
	}
	c.ByHarness = b.droppedByHarness(cid)
	cz, err := b.srv.Connz(&server.ConnzOptions{State: server.ConnClosed, CID: cid})
	if err != nil || len(cz.Conns) == 0 {
		return c, false
	}
	ci := cz.Conns[0]
	c.Reason = ci.Reason
	if ci.Stop != nil {
		c.At = *ci.Stop
	}
	return c, true
}

// Subscribed reports whether a client connection other than except is
// subscribed to subject (a literal subject, matched against each
// subscription's wildcards): after DropClients, that a client is back.
func (b *Broker) Subscribed(subject string, except uint64) (bool, error) {
	if b == nil || b.srv == nil {
		return false, errors.New("no embedded broker")
	}
	cz, err := b.srv.Connz(&server.ConnzOptions{State: server.ConnOpen, Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return false, fmt.Errorf("list connections: %w", err)
	}
	for _, c := range cz.Conns {
		if c.Cid != except && subscribed(c.Subs, subject) {
			return true, nil
		}
	}
	return false, nil
}

// Listeners says who listens on subject (a literal subject, matched
// against each subscription's wildcards) among the open client
// connections but except: each one's id, whether it subscribes to
// subject, and every subject they subscribe to (wildcards as given, each
// once, in order), to show where a peer listens when not on its own
// subject.
func (b *Broker) Listeners(subject string, except uint64) (open map[uint64]bool, subs []string, err error) {
	if b == nil || b.srv == nil {
		return nil, nil, errors.New("no embedded broker")
	}
	cz, err := b.srv.Connz(&server.ConnzOptions{State: server.ConnOpen, Subscriptions: true, Limit: 1 << 16})
	if err != nil {
		return nil, nil, fmt.Errorf("list connections: %w", err)
	}
	open = map[uint64]bool{}
	for _, c := range cz.Conns {
		if c.Cid == except {
			continue
		}
		open[c.Cid] = subscribed(c.Subs, subject)
		for _, s := range c.Subs {
			if !slices.Contains(subs, s) {
				subs = append(subs, s)
			}
		}
	}
	slices.Sort(subs)
	return open, subs, nil
}
