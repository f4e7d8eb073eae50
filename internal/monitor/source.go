package monitor

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// ShardPrefix is where the broker puts the partitioned copy of the
// traffic: aghmon.<K>.<the network's subject> (docs/monitor.md).
const ShardPrefix = "aghmon"

// Shard is one part of N: the monitor watching partition K of a traffic
// the broker splits N ways. The zero Shard is the whole traffic.
type Shard struct{ K, N int }

// ParseShard reads "K/N" (0 <= K < N).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	var sh Shard
	var err1, err2 error
	sh.K, err1 = strconv.Atoi(k)
	sh.N, err2 = strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%q: want K/N, such as 0/3", s)
	}
	return sh, sh.check()
}

// valid: the whole traffic, or one part of it.
func (s Shard) valid() error {
	if s == (Shard{}) {
		return nil
	}
	return s.check()
}

func (s Shard) check() error {
	if s.N < 1 || s.K < 0 || s.K >= s.N {
		return fmt.Errorf("shard %d/%d: want K/N with 0 <= K < N", s.K, s.N)
	}
	return nil
}

func (s Shard) String() string { return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.N) }

// label names the shard in a connection name ("" for the whole traffic).
func (s Shard) label() string {
	if s.N == 0 {
		return ""
	}
	return " shard " + s.String()
}

// DurableName is the stream consumer of a shard by default: one per
// shard, shared by the restarts of that shard's monitor.
func DurableName(s Shard) string { return fmt.Sprintf("%s-%d-of-%d", ShardPrefix, s.K, s.N) }

// PartitionOf is the shard of a workspace among n, as the broker computes
// it for the mapping docs/monitor.md gives (partition(n,1) of the
// workspace token): FNV-1a of the token, modulo n.
func PartitionOf(workspace string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(workspace))
	return int(h.Sum32() % uint32(n))
}

// sharded is the subject carrying subject's traffic in shard s.
func sharded(s Shard, subject string) string {
	return ShardPrefix + "." + strconv.Itoa(s.K) + "." + subject
}

// unshard is the network's subject of a message delivered on a shard's
// subject (aghmon.<K>.agh.network.v0...).
func unshard(subject string) string {
	if rest, ok := strings.CutPrefix(subject, ShardPrefix+"."); ok {
		if _, orig, ok := strings.Cut(rest, "."); ok && strings.HasPrefix(orig, agh.SubjectPrefix+".") {
			return orig
		}
	}
	return subject
}

// coreSource is a core NATS subscription: on the network's subjects, or on
// a shard's copy of them. Messages the client cannot hand over within its
// pending limits are dropped and counted; nothing slows the publishers.
type coreSource struct {
	m    *monitor
	sub  *nats.Subscription
	quit chan struct{}
}

func subscribe(m *monitor) (*coreSource, error) {
	c := &coreSource{m: m, quit: make(chan struct{})}
	subject, strip := m.cfg.Subject, m.cfg.Shard.N > 0
	if strip {
		subject = sharded(m.cfg.Shard, subject)
	}
	sub, err := m.nc.Subscribe(subject, func(msg *nats.Msg) {
		subj := msg.Subject
		if strip {
			subj = unshard(subj)
		}
		select {
		case m.in <- inMsg{subject: subj, data: msg.Data}:
		case <-c.quit:
		}
	})
	if err == nil {
		err = sub.SetPendingLimits(m.cfg.PendingMsgs, m.cfg.PendingBytes)
	}
	if err == nil {
		err = m.nc.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", subject, err)
	}
	c.sub = sub
	return c, nil
}

// start: on ctx done, the interest stops and the client hands over what it
// holds (a drain), then the source ends.
func (c *coreSource) start(ctx context.Context) <-chan struct{} {
	end := make(chan struct{})
	go func() {
		<-ctx.Done()
		c.m.stopping.Store(true)
		_ = c.m.nc.Drain()
		select {
		case <-c.m.closed:
		case <-time.After(5 * time.Second):
		}
		close(c.quit)
		close(end)
	}()
	return end
}

// delivered: the subscription is the connection's only one.
func (c *coreSource) delivered() uint64 { return c.m.nc.Stats().InMsgs }

func (c *coreSource) dropped() int {
	n, err := c.sub.Dropped()
	if err != nil && !errors.Is(err, nats.ErrBadSubscription) {
		return 0
	}
	return n
}

func (c *coreSource) lossy() bool  { return true }
func (c *coreSource) behind() bool { return false }
func (c *coreSource) finish()      {}
