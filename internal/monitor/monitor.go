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
	"runtime"
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
	// Subject is the subscription (default agh.network.v0.>; see Subject).
	Subject string
	// Options configure the rule engine; Now is kept current by the monitor.
	Options agh.Options
	// Tracker configures the work-unit tracker (its Complete is ignored:
	// a monitor joins a network already talking).
	Tracker workunit.Config
	// Workers is how many goroutines run the stateless checks (default: one per CPU).
	Workers int
	// Tick is how often the Sink gets the running summary (default 1 s).
	Tick time.Duration
	// PendingMsgs bounds how many delivered messages wait to be judged
	// before the client drops further ones as a slow consumer (default
	// 262,144, about 2.5 s of traffic at 100,000 envelopes/s): a burst is
	// absorbed, a sustained overload is reported, memory stays bounded.
	PendingMsgs int
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
// that depend on them may be missing.
var Dropped = &rules.Rule{ID: "MONITOR-DROPPED", Profile: "monitor", Severity: rules.Error,
	Clause: "The monitor must judge every message the broker delivers; messages were lost (slow consumer, or the connection dropped) and were not judged.",
	Source: "aghcheck monitor"}

// pub is one delivered message on its way through the pipeline.
type pub struct {
	at      time.Time
	subject string
	data    []byte
	res     agh.Result
}

const maxBatch = 256

type monitor struct {
	cfg     Config
	sink    Sink
	tracker *workunit.Tracker
	checker atomic.Pointer[agh.Checker]
	sum     *tally

	nc          *nats.Conn
	slowEvents  atomic.Int64
	disconnects atomic.Int64
	stopping    atomic.Bool
	sub         *nats.Subscription
}

// Run subscribes and judges until ctx is done, then drains what the broker
// already delivered, closes the sink with the final summary and returns it.
// An error means the monitor could not attach (nothing was judged).
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
		cfg.PendingMsgs = 1 << 18
	}
	cfg.Tracker.Complete = false
	m := &monitor{cfg: cfg, sink: sink, tracker: workunit.New(cfg.Tracker)}
	if err := m.refreshChecker(time.Now()); err != nil {
		return nil, err
	}
	m.sum = newTally(cfg, time.Now())

	closed := make(chan struct{})
	nc, err := cfg.Endpoint.Connect("aghcheck monitor",
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
		nats.ClosedHandler(func(*nats.Conn) { close(closed) }),
	)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	m.nc = nc

	// The client delivers straight into in: its capacity is the pending
	// limit, and a message that finds it full is dropped and counted by the
	// client as a slow consumer.
	in := make(chan *nats.Msg, cfg.PendingMsgs)
	stop := make(chan struct{})
	m.sub, err = nc.ChanSubscribe(cfg.Subject, in)
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("subscribe %s on %s: %w", cfg.Subject, sanitize.URL(cfg.Endpoint.URL), err)
	}

	batches := make(chan []pub, 4)
	go m.read(in, stop, batches)
	// On ctx done: stop the interest, let the client hand over what it
	// holds, then stop the reader, which flushes its last batch.
	go func() {
		<-ctx.Done()
		m.stopping.Store(true)
		_ = nc.Drain()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
		}
		close(stop)
	}()
	m.judgeLoop(batches)
	now := time.Now()
	s := m.snapshot(now)
	// The last tick's rate says how the traffic ended (often 0/s); the
	// final summary gives the rate of the whole watch.
	if el := now.Sub(s.Started).Seconds(); el > 0 {
		s.Rate = float64(s.Judged) / el
	}
	return s, sink.Close(s)
}

func (m *monitor) refreshChecker(now time.Time) error {
	opts := m.cfg.Options
	opts.Now = now.Unix()
	c, err := agh.NewChecker(opts)
	if err != nil {
		return err
	}
	m.checker.Store(c)
	return nil
}

// read batches delivered messages and runs the stateless checks on each
// batch in parallel; batches leave in delivery order.
func (m *monitor) read(in <-chan *nats.Msg, stop <-chan struct{}, out chan<- []pub) {
	defer close(out)
	for {
		var batch []pub
		add := func(msg *nats.Msg, at time.Time) {
			batch = append(batch, pub{at: at, subject: msg.Subject, data: msg.Data})
		}
		select {
		case msg := <-in:
			batch = make([]pub, 0, maxBatch)
			add(msg, time.Now())
		case <-stop:
			// Whatever got in before the stop.
			now := time.Now()
			for len(in) > 0 {
				add(<-in, now)
			}
			if len(batch) > 0 {
				m.check(batch)
				out <- batch
			}
			return
		}
		// One time for the batch: it was delivered within microseconds.
		now := batch[0].at
	fill:
		for len(batch) < maxBatch {
			select {
			case msg := <-in:
				add(msg, now)
			default:
				break fill
			}
		}
		m.check(batch)
		out <- batch
	}
}

func (m *monitor) check(batch []pub) {
	c := m.checker.Load()
	run := func(part []pub) {
		for i := range part {
			part[i].res = publication.Check(c, part[i].subject, part[i].data)
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
// touches the tally and the sink.
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
			}
		case now := <-tick.C:
			m.tracker.Expire(now)
			_ = m.refreshChecker(now)
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
// the broker delivered to the connection that was not judged.
func (m *monitor) health(now time.Time, final bool) {
	dropped := m.sum.dropped
	if n, err := m.sub.Dropped(); err == nil {
		dropped = max(dropped, n)
	}
	if final {
		dropped = max(dropped, int(m.delivered()-m.sum.judged))
	}
	if d := dropped - m.sum.dropped; d > 0 {
		m.sum.dropped = dropped
		m.lossFinding(now, fmt.Sprintf("%s the broker delivered dropped unjudged: the monitor fell behind (slow consumer, %s so far)",
			plural.Count(d, "message"), plural.Count(int(m.slowEvents.Load()), "event")))
	}
	if d := m.disconnects.Load(); d > m.sum.disconnects {
		m.sum.disconnects = d
		m.lossFinding(now, "the connection to the broker dropped: what was published until it came back was not seen")
	}
}

// delivered is what the broker delivered to the monitor's connection (its
// only subscription's messages, dropped ones included).
func (m *monitor) delivered() uint64 { return m.nc.Stats().InMsgs }

func (m *monitor) lossFinding(now time.Time, msg string) {
	f := Finding{At: now, Subject: m.cfg.Subject, Finding: rules.Finding{Rule: Dropped, Message: msg}}
	m.sum.finding(&f)
	m.sink.Finding(f)
}
