// Package monitor judges the live traffic of an AGH Network v0 deployment:
// it subscribes to the network's subjects on a NATS broker and checks every
// envelope statelessly (the agh rule engine and the subject rule, exactly as
// the harness judges an IUT's publications) and statefully (the work-unit
// tracker: lifecycle, container binding, references, id reuse, greet
// heartbeat), with bounded memory, reporting findings to a Sink as they
// happen and a summary once a tick.
package monitor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/publication"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

// Config is what Run needs. Zero fields take the defaults.
type Config struct {
	Endpoint broker.Endpoint
	// Subject is what to watch, in the network's own subjects (default
	// agh.network.v0.>; see Subject).
	Subject string
	// Shard, when its N is set, makes this monitor one of N that divide
	// the traffic: it watches partition K of what the broker splits by
	// workspace onto aghmon.<K>.<subject> (docs/monitor.md), never the
	// network's subjects themselves.
	Shard Shard
	// JetStream: read the shard from the JetStream stream that stores its
	// subjects, through a durable pull consumer acknowledged as it is
	// judged: a monitor that stops resumes where it stopped, and the broker
	// holds what the monitor has not yet taken (flow control, not a
	// backlog in memory). Otherwise, a core NATS subscription.
	JetStream bool
	// Durable names the stream's consumer (default DurableName(Shard)).
	Durable string
	// Options configure the rule engine; Now is set by the monitor.
	Options agh.Options
	// Tracker configures the work-unit tracker (its Complete is ignored:
	// a monitor joins a network already talking).
	Tracker workunit.Config
	// Workers is how many goroutines run the stateless checks (default: one per CPU).
	Workers int
	// Tick is how often the Sink gets the running summary (default 1 s).
	Tick time.Duration
	// PendingMsgs and PendingBytes bound what a core NATS subscription
	// holds delivered but not yet judged (defaults DefaultPendingMsgs and
	// DefaultPendingBytes, payload bytes); past either the client drops
	// messages as a slow consumer, and the monitor reports them. A burst
	// is absorbed, a sustained overload is reported, memory stays bounded.
	PendingMsgs, PendingBytes int
	// MemoryLimit is the soft limit on the process's memory the Go
	// runtime is asked to keep while the monitor runs (0: MemoryLimitFor
	// the tracker's cap; negative: none), unless GOMEMLIMIT sets one.
	MemoryLimit int64
}

// Core NATS has no flow control towards the publishers: a monitor that
// falls behind either buffers without bound or drops. It drops, counted,
// past these (about 0.65 s of traffic at 100,000 envelopes/s, and well
// under 100 MiB of heap).
const (
	DefaultPendingMsgs  = 1 << 16
	DefaultPendingBytes = 32 << 20
)

// MemoryLimitFor is the soft memory limit for a tracker remembering at most
// maxEntries: what it holds when full (about 100 MiB at the default 1 Mi
// entries) and as much again for everything else. Without a limit the Go
// runtime lets the heap grow to twice what is live before it collects;
// with it, it collects sooner, and the heap stays near what is live.
func MemoryLimitFor(maxEntries int) int64 {
	if maxEntries <= 0 {
		maxEntries = workunit.DefaultMaxEntries
	}
	return 100<<20 + int64(maxEntries)*100
}

// Subject is the subscription for a workspace and channel ("" for all).
func Subject(workspace, channel string) string {
	switch {
	case workspace == "":
		return agh.SubjectPrefix + ".>"
	case channel == "":
		return agh.SubjectPrefix + "." + workspace + ".>"
	}
	return agh.SubjectPrefix + "." + workspace + "." + channel + ".>"
}

// Finding is one broken rule in the traffic.
type Finding struct {
	rules.Finding
	At      time.Time
	Subject string
	Peer    string // the envelope's from ("" when the bytes are no envelope)
	ID      string
	Kind    string
	WorkID  string
}

// Sink receives what the monitor sees. Run calls it from one goroutine.
type Sink interface {
	Finding(f Finding)
	Tick(s *Summary)
	Close(s *Summary) error
}

// Dropped is the monitor's own finding (not a protocol rule, not in the
// catalogue): messages were lost before they could be judged, so findings
// that depend on them may be missing, or mistaken (a lost trace makes the
// next one look like a jump).
var Dropped = &rules.Rule{ID: "MONITOR-DROPPED", Profile: "monitor", Severity: rules.Error,
	Clause: "The monitor must judge every message the broker delivers; messages were lost (slow consumer, or the connection dropped) and were not judged; findings about the work they belong to may be missing or mistaken.",
	Source: "aghcheck monitor"}

// inMsg is one message as its source hands it over.
type inMsg struct {
	subject string // the network's subject it was published on
	data    []byte
	at      time.Time // when the broker stored it (JetStream); zero: when it was delivered
	ack     *nats.Msg // to acknowledge once judged (JetStream); nil: nothing to acknowledge
	replay  bool      // judged before, read again only to restore the tracker's state
}

// pub is one delivered message on its way through the pipeline.
type pub struct {
	inMsg
	checker *agh.Checker // the rule engine at the message's time
	res     agh.Result
}

const maxBatch = 256

// source delivers the traffic: a core NATS subscription, or a JetStream
// consumer.
type source interface {
	// start hands messages to the monitor's in until ctx is done and
	// everything the broker already delivered was handed over; then it
	// closes the returned channel.
	start(ctx context.Context) <-chan struct{}
	// delivered counts what the broker delivered, dropped messages
	// included (replayed ones not).
	delivered() uint64
	// dropped counts what the client dropped unjudged (a slow consumer).
	dropped() int
	// lossy: a lost connection loses what was published meanwhile (core
	// NATS); a stream keeps it.
	lossy() bool
	// behind: the source holds more than what it handed over (the tracker's
	// clock then follows the messages' own times, not the wall clock).
	behind() bool
	// finish: everything handed over was judged.
	finish()
}

type monitor struct {
	cfg     Config
	sink    Sink
	tracker *workunit.Tracker
	sum     *tally
	src     source
	stream  string // the JetStream stream read
	// in is the hand-over from the source: bounded, so a source that gets
	// ahead waits (a stream's consumer then stops pulling; a core
	// subscription's client holds up to its pending limits, then drops).
	in chan inMsg

	// The rule engine for the second being judged (read goroutine only).
	checker *agh.Checker
	second  int64

	nc          *nats.Conn
	closed      chan struct{} // the connection closed
	slowEvents  atomic.Int64
	disconnects atomic.Int64
	stopping    atomic.Bool
}

// Run attaches to the broker and judges until ctx is done, then judges
// what the broker already delivered, closes the sink with the final
// summary and returns it. An error means the monitor could not attach
// (nothing was judged).
func Run(ctx context.Context, cfg Config, sink Sink) (*Summary, error) {
	if cfg.Subject == "" {
		cfg.Subject = Subject("", "")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Tick <= 0 {
		cfg.Tick = time.Second
	}
	if cfg.PendingMsgs <= 0 {
		cfg.PendingMsgs = DefaultPendingMsgs
	}
	if cfg.PendingBytes <= 0 {
		cfg.PendingBytes = DefaultPendingBytes
	}
	if err := cfg.Shard.valid(); err != nil {
		return nil, err
	}
	if cfg.JetStream && cfg.Shard.N == 0 {
		return nil, errors.New("reading from JetStream needs a shard (0/1 for a broker that splits the traffic one way)")
	}
	if cfg.JetStream && cfg.Durable == "" {
		cfg.Durable = DurableName(cfg.Shard)
	}
	cfg.Tracker.Complete = false
	if cfg.MemoryLimit == 0 {
		cfg.MemoryLimit = MemoryLimitFor(cfg.Tracker.MaxEntries)
	}
	if cfg.MemoryLimit > 0 && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		prev := debug.SetMemoryLimit(cfg.MemoryLimit)
		defer debug.SetMemoryLimit(prev)
	}
	m := &monitor{cfg: cfg, sink: sink, tracker: workunit.New(cfg.Tracker),
		in: make(chan inMsg, 4*maxBatch), closed: make(chan struct{})}
	if _, err := agh.NewChecker(cfg.Options); err != nil {
		return nil, err
	}
	m.sum = newTally(cfg, time.Now())

	nc, err := cfg.Endpoint.Connect("aghcheck monitor"+cfg.Shard.label(),
		nats.MaxReconnects(-1),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				m.slowEvents.Add(1)
			}
		}),
		nats.DisconnectErrHandler(func(*nats.Conn, error) {
			if !m.stopping.Load() {
				m.disconnects.Add(1)
			}
		}),
		nats.ClosedHandler(func(*nats.Conn) { close(m.closed) }),
	)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	m.nc = nc
	if cfg.JetStream {
		m.src, err = attachStream(ctx, m)
	} else {
		m.src, err = subscribe(m)
	}
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", m.watching(), sanitize.URL(cfg.Endpoint.URL), err)
	}

	end := m.src.start(ctx)
	batches := make(chan []pub, 4)
	go m.read(m.in, end, batches)
	m.judgeLoop(batches)
	m.src.finish()
	now := time.Now()
	s := m.snapshot(now)
	// The last tick's rate says how the traffic ended (often 0/s); the
	// final summary gives the rate of the whole watch.
	if el := now.Sub(s.Started).Seconds(); el > 0 {
		s.Rate = float64(s.Judged) / el
	}
	return s, sink.Close(s)
}

// checkerAt is the rule engine judging freshness at t (one a second).
func (m *monitor) checkerAt(t time.Time) *agh.Checker {
	if sec := t.Unix(); m.checker == nil || sec != m.second {
		opts := m.cfg.Options
		opts.Now = sec
		if c, err := agh.NewChecker(opts); err == nil { // the options were tried in Run
			m.checker, m.second = c, sec
		}
	}
	return m.checker
}

// read batches delivered messages and runs the stateless checks on each
// batch in parallel; batches leave in delivery order.
func (m *monitor) read(in <-chan inMsg, end <-chan struct{}, out chan<- []pub) {
	defer close(out)
	for {
		var batch []pub
		// One time for the batch: it was delivered within microseconds.
		var now time.Time
		add := func(msg inMsg) {
			if msg.at.IsZero() {
				msg.at = now
			}
			batch = append(batch, pub{inMsg: msg, checker: m.checkerAt(msg.at)})
		}
		select {
		case msg := <-in:
			now = time.Now()
			batch = make([]pub, 0, maxBatch)
			add(msg)
		case <-end:
			// Whatever got in before the end.
			now = time.Now()
			for len(in) > 0 {
				add(<-in)
			}
			if len(batch) > 0 {
				m.check(batch)
				out <- batch
			}
			return
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case msg := <-in:
				add(msg)
			default:
				break fill
			}
		}
		m.check(batch)
		out <- batch
	}
}

func (m *monitor) check(batch []pub) {
	run := func(part []pub) {
		for i := range part {
			part[i].res = publication.Check(part[i].checker, part[i].subject, part[i].data)
		}
	}
	w := min(m.cfg.Workers, len(batch)/16+1)
	if w <= 1 {
		run(batch)
		return
	}
	var wg sync.WaitGroup
	size := (len(batch) + w - 1) / w
	for lo := size; lo < len(batch); lo += size {
		wg.Add(1)
		go func(part []pub) {
			defer wg.Done()
			run(part)
		}(batch[lo:min(lo+size, len(batch))])
	}
	run(batch[:size])
	wg.Wait()
}

// judgeLoop feeds the tracker in delivery order and reports; it alone
// touches the tally and the sink. A message judged is acknowledged (a
// stream's consumer): a monitor that stops resumes after it.
func (m *monitor) judgeLoop(batches <-chan []pub) {
	tick := time.NewTicker(m.cfg.Tick)
	defer tick.Stop()
	for {
		select {
		case batch, ok := <-batches:
			if !ok {
				m.health(time.Now(), true)
				return
			}
			for i := range batch {
				m.judge(&batch[i])
				if a := batch[i].ack; a != nil {
					_ = a.Ack() // an ack lost is a redelivery, judged again, not a loss
				}
			}
		case now := <-tick.C:
			// Reading a stream's backlog, the tracker's clock is the
			// messages' own: the wall clock would expire what they
			// still refer to.
			if !m.src.behind() {
				m.tracker.Expire(now)
			}
			m.health(now, false)
			m.sink.Tick(m.snapshot(now))
		}
	}
}

func (m *monitor) judge(p *pub) {
	env := p.res.Envelope
	f := Finding{At: p.at, Subject: p.subject}
	if env != nil {
		f.Peer, f.ID, f.Kind, f.WorkID = agh.Str(env, "from"), agh.Str(env, "id"), agh.Str(env, "kind"), agh.Str(env, "work_id")
	}
	stateless := p.res.Findings
	var stateful []rules.Finding
	repeat := false
	if env != nil {
		// An envelope the rules find broken (malformed, expired, badly
		// signed, on the wrong subject) is refused by its receiver, so it
		// opens, binds and changes no work: the tracker only remembers its
		// id, as the run's own tracking does for a broken test message.
		refused := rules.HasErrors(stateless, false)
		r := m.tracker.Observe(workunit.Envelope{At: p.at, Env: env, Judged: true, Refused: refused})
		stateful, repeat = r.Findings, r.Repeat
	}
	if p.replay {
		// Judged and reported before this monitor restarted: only the
		// tracker's state was wanted.
		m.sum.replayed++
		return
	}
	if repeat {
		// A retry or a duplicate delivery: its content was judged when it
		// first came, but each publication has a subject of its own.
		stateless = subjectFindings(stateless)
	}
	m.sum.envelope(sender(&f), p.at, repeat)
	for _, list := range [][]rules.Finding{stateless, stateful} {
		for _, x := range list {
			f.Finding = x
			m.sum.finding(&f)
			m.sink.Finding(f)
		}
	}
}

// subjectFindings keeps, of a publication's stateless findings, those of
// the subject rule: the one judgement that belongs to the publication, not
// to the message it carries.
func subjectFindings(fs []rules.Finding) []rules.Finding {
	var out []rules.Finding
	for _, f := range fs {
		if f.Rule == requirements.NATSSubject {
			out = append(out, f)
		}
	}
	return out
}

// health reports lost messages as findings of their own. While running,
// the client's count of what it dropped; at the end (final), everything
// the broker delivered that was not judged.
func (m *monitor) health(now time.Time, final bool) {
	dropped := max(m.sum.dropped, m.src.dropped())
	if del := m.src.delivered(); final && del > m.sum.judged {
		dropped = max(dropped, int(del-m.sum.judged))
	}
	if d := dropped - m.sum.dropped; d > 0 {
		m.sum.dropped = dropped
		m.lossFinding(now, fmt.Sprintf("%s the broker delivered dropped unjudged: the monitor fell behind (slow consumer, %s so far)",
			plural.Count(d, "message"), plural.Count(int(m.slowEvents.Load()), "event")))
	}
	if d := m.disconnects.Load(); d > m.sum.disconnects && m.src.lossy() {
		m.sum.disconnects = d
		m.lossFinding(now, "the connection to the broker dropped: what was published until it came back was not seen")
	}
}

// watching names what the monitor watches, for people.
func (m *monitor) watching() string {
	w := m.cfg.Subject
	if m.cfg.Shard.N > 0 {
		w += " shard " + m.cfg.Shard.String()
	}
	if m.cfg.JetStream {
		w += " from JetStream"
	}
	return w
}

func (m *monitor) lossFinding(now time.Time, msg string) {
	f := Finding{At: now, Subject: m.cfg.Subject, Finding: rules.Finding{Rule: Dropped, Message: msg}}
	m.sum.finding(&f)
	m.sink.Finding(f)
}
