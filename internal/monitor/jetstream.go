package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A stream's consumer hands the monitor at most maxAckPending messages it
// has not acknowledged (the monitor itself holds a few thousand at most: a
// request's worth in the client, its own hand-over and batches): the
// broker keeps the rest until the monitor has judged these, so the
// monitor's memory does not grow with its lag.
const (
	pullBatch     = 512
	fetchWait     = 500 * time.Millisecond
	maxAckPending = 16 * pullBatch
	// ackWait is when the broker delivers again what a monitor took and
	// never acknowledged (it died before judging it, or the delivery was
	// lost on the way).
	ackWait = 30 * time.Second
)

// streamSource reads the traffic of a shard from the JetStream stream that
// stores the shard's subjects, through the shard's durable pull consumer,
// each message acknowledged once judged (explicitly: a delivery lost on
// the way is delivered again, never acknowledged over). A monitor that
// restarts first reads again, silently, what its consumer had
// acknowledged within the last two replay windows (the tracker forgets
// what is older), so its work units, ids and peers are what they were.
//
// It pulls one request at a time into one subscription that outlives the
// requests: a request ends when it is served in full or the broker says it
// expired, so nothing is delivered to a subscription already gone, and a
// late message still finds its way.
type streamSource struct {
	m      *monitor
	stream jetstream.Stream
	cons   jetstream.Consumer
	filter string
	next   string // the consumer's pull request subject
	inbox  string
	sub    *nats.Subscription
	msgs   chan *nats.Msg
	// floor is the last stream sequence the consumer had acknowledged
	// when this monitor attached: judged by its previous runs.
	floor   uint64
	handed  atomic.Uint64
	pending atomic.Bool
}

func attachStream(ctx context.Context, m *monitor) (*streamSource, error) {
	js, err := jetstream.New(m.nc)
	if err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	filter := sharded(m.cfg.Shard, m.cfg.Subject)
	name, err := js.StreamNameBySubject(actx, filter)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("no JetStream stream stores %s: create one as docs/monitor.md shows", filter)
	}
	if err != nil {
		return nil, fmt.Errorf("the JetStream stream of %s: %w", filter, err)
	}
	st, err := js.Stream(actx, name)
	if err != nil {
		return nil, fmt.Errorf("JetStream stream %s: %w", name, err)
	}
	if whole := sharded(m.cfg.Shard, ">"); m.cfg.Subject == Subject("", "") && slices.Equal(st.CachedInfo().Config.Subjects, []string{whole}) {
		// All the stream holds: the broker reads it straight through
		// rather than matching every message against a filter.
		filter = whole
	}
	s := &streamSource{m: m, stream: st, filter: filter}
	s.cons, err = st.CreateOrUpdateConsumer(actx, jetstream.ConsumerConfig{
		Durable: m.cfg.Durable, Description: "aghcheck monitor " + m.watching(),
		FilterSubject: filter, DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxAckPending: maxAckPending,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s of stream %s: %w", m.cfg.Durable, name, err)
	}
	s.floor = s.cons.CachedInfo().AckFloor.Stream
	s.next = fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", name, m.cfg.Durable)
	s.inbox = m.nc.NewInbox()
	// Room for a request served in full and the tail of one before it.
	s.msgs = make(chan *nats.Msg, 4*pullBatch)
	if s.sub, err = m.nc.ChanSubscribe(s.inbox, s.msgs); err != nil {
		return nil, err
	}
	m.stream = name
	return s, nil
}

func (s *streamSource) start(ctx context.Context) <-chan struct{} {
	end := make(chan struct{})
	go func() {
		defer close(end)
		if s.floor > 0 {
			s.replay(ctx)
		}
		// On ctx done, the request under way is served to its end, and
		// what it brought is judged and acknowledged.
		for ctx.Err() == nil {
			if err := s.m.nc.PublishRequest(s.next, s.inbox, pullRequest); err != nil {
				s.pause(ctx) // the connection is down: the stream keeps the traffic
				continue
			}
			s.serve(ctx)
		}
	}()
	return end
}

// pullRequest asks for pullBatch messages, the broker ending the request
// after fetchWait if fewer are there.
var pullRequest = fmt.Appendf(nil, `{"batch":%d,"expires":%d}`, pullBatch, fetchWait.Nanoseconds())

// serve takes what one request brings: it ends when pullBatch messages came
// or the broker ended the request (expired, or the consumer's leader
// changed). A request lost altogether (the connection dropped, the stream
// moved) ends after a while: what still comes for it comes to the same
// subscription.
func (s *streamSource) serve(ctx context.Context) {
	lost := time.NewTimer(fetchWait + 5*time.Second)
	defer lost.Stop()
	for got := 0; got < pullBatch; {
		select {
		case msg := <-s.msgs:
			if strings.HasPrefix(msg.Reply, "$JS.ACK.") {
				s.hand(msg)
				got++
				continue
			}
			switch msg.Header.Get("Status") {
			case "100": // a heartbeat
				continue
			case "404", "408": // nothing more, or the request expired
			default: // the consumer's leader changing, or a request refused
				s.pause(ctx)
			}
			return
		case <-lost.C:
			return
		}
	}
}

// pause waits a moment before asking the broker again.
func (s *streamSource) pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(fetchWait):
	}
}

// replay reads again what the consumer had acknowledged, from two replay
// windows before the last of it, through an ordered consumer of its own.
func (s *streamSource) replay(ctx context.Context) {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{s.filter}, DeliverPolicy: jetstream.DeliverAllPolicy,
		InactiveThreshold: time.Minute}
	if last, err := s.stream.GetMsg(ctx, s.floor); err == nil {
		from := last.Time.Add(-2 * s.m.tracker.Config().Window)
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &from
	}
	oc, err := s.stream.OrderedConsumer(ctx, cfg)
	if err != nil {
		return
	}
	for done := false; !done && ctx.Err() == nil; {
		batch, err := oc.Fetch(pullBatch, jetstream.FetchMaxWait(fetchWait))
		if err != nil {
			return
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			meta, err := msg.Metadata()
			if done || err != nil || meta.Sequence.Stream > s.floor {
				done = true // the durable consumer delivers it
				continue
			}
			s.pending.Store(true)
			s.m.in <- inMsg{subject: unshard(msg.Subject()), data: msg.Data(), at: meta.Timestamp, replay: true}
			done = meta.Sequence.Stream == s.floor || meta.NumPending == 0
		}
		done = done || n == 0
	}
}

// hand passes a message on: stamped with the time the broker stored it
// (what freshness and the tracker's clock are judged against, however late
// the monitor reads it), and acknowledged once judged.
func (s *streamSource) hand(msg *nats.Msg) {
	in := inMsg{subject: unshard(msg.Subject), data: msg.Data, ack: msg}
	if meta, err := msg.Metadata(); err == nil {
		in.at = meta.Timestamp
		s.pending.Store(meta.NumPending > 0)
	}
	s.handed.Add(1)
	s.m.in <- in
}

// finish waits, a little, until the broker has applied the monitor's
// acknowledgements (sent on the subscription's connection, so it stays
// until now): the next start resumes after them.
func (s *streamSource) finish() {
	defer func() { _ = s.sub.Unsubscribe() }()
	_ = s.m.nc.Flush()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		info, err := s.cons.Info(ctx)
		cancel()
		if err != nil || info.NumAckPending == 0 {
			return
		}
	}
}

func (s *streamSource) delivered() uint64 { return s.handed.Load() }
func (s *streamSource) dropped() int      { return 0 }
func (s *streamSource) lossy() bool       { return false }
func (s *streamSource) behind() bool      { return s.pending.Load() }
