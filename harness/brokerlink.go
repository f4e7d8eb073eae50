package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// linkReconnectWait is how often the harness retries a broker that went
// away. It is short so that, after a restart, the harness is back before a
// peer using nats.go's defaults and sees that peer's greet.
const linkReconnectWait = 25 * time.Millisecond

// link follows the harness's own connection to the broker. Traffic is lost
// while it is down through no fault of the IUT, so:
//   - a scenario in flight during an outage is an error ("not judged"),
//     never a failure, and never a pass either (a silence window proves
//     nothing while nothing can arrive);
//   - no scenario starts while the connection is down, nor after it is back
//     until the IUT has greeted again (the NATS binding: a peer SHOULD
//     publish greet again after reconnecting) or the outage timeout passed;
//   - a connection not back within the outage timeout ends the run as a
//     harness error.
//
// The outages and whether the IUT greeted again go into the report.
type link struct {
	start time.Time
	grace time.Duration // Config.OutageTimeout

	mu      sync.Mutex
	nc      *nats.Conn
	iut     string
	outages []*outage
	changed chan struct{}
	cancel  context.CancelCauseFunc
	timer   *time.Timer
}

// outage is one reported Outage plus when, in wall time, it ended.
type outage struct {
	report.Outage

	back time.Time
}

func newLink(start time.Time, grace time.Duration) *link {
	return &link{start: start, grace: grace, changed: make(chan struct{}, 1)}
}

// guard returns the run's context, cancelled with the reason as its cause
// when the broker stays away, and the function that ends it.
func (l *link) guard(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	l.mu.Lock()
	l.cancel = cancel
	l.mu.Unlock()
	return ctx, func() {
		l.mu.Lock()
		if l.timer != nil {
			l.timer.Stop()
		}
		l.mu.Unlock()
		cancel(nil)
	}
}

// options are the reconnect settings of the harness's connection.
func (l *link) options() []nats.Option {
	return []nats.Option{
		nats.MaxReconnects(-1), // bounded by the greet timeout instead (lost)
		nats.ReconnectWait(linkReconnectWait),
		nats.ReconnectJitter(0, 0),
		nats.DisconnectErrHandler(l.lost),
		nats.ReconnectHandler(l.restored),
	}
}

func (l *link) since() report.Millis { return report.Millis(time.Since(l.start)) }

func (l *link) signal() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *link) lost(nc *nats.Conn, err error) {
	if nc.IsClosed() {
		return // the run closing its own connection
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	at := l.since()
	l.outages = append(l.outages, &outage{Outage: report.Outage{Lost: at}})
	why := "disconnected"
	if err != nil {
		why = err.Error()
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	l.timer = time.AfterFunc(l.grace, func() {
		l.mu.Lock()
		cancel := l.cancel
		l.mu.Unlock()
		if cancel != nil && !nc.IsConnected() {
			cancel(fmt.Errorf("the broker connection was lost at %s (%s) and not restored within %s", rounded(at), why, l.grace))
		}
	})
	l.signal()
}

func (l *link) restored(*nats.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o := l.latest(); o != nil && o.Restored == 0 {
		o.Restored, o.back = l.since(), time.Now()
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	l.signal()
}

// watch subscribes to the broadcast subject for the IUT's greets once its
// peer id is known: a greet after a reconnect is the one the binding asks for.
func (l *link) watch(nc *nats.Conn, ws, ch, iut string) error {
	l.mu.Lock()
	l.nc, l.iut = nc, iut
	l.mu.Unlock()
	_, err := nc.Subscribe(agh.BroadcastSubject(ws, ch), func(m *nats.Msg) {
		var probe struct{ From, Kind string }
		if !bytes.Contains(m.Data, []byte(`"greet"`)) || json.Unmarshal(m.Data, &probe) != nil || probe.Kind != "greet" || probe.From != iut {
			return
		}
		// Delivered now, so delivered over a working connection, even if
		// the reconnect handler has not run yet; a greet still queued from
		// before the outage is taken while the connection is down: ignored.
		connected := nc.Status() == nats.CONNECTED
		l.mu.Lock()
		defer l.mu.Unlock()
		if o := l.latest(); o != nil && o.IUTGreeted == 0 && (o.Restored != 0 || connected) {
			o.IUTGreeted = l.since()
			l.signal()
		}
	})
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	return nil
}

// settled reports whether scenarios may start: connected, every reconnect
// nats.go counted has been recorded, and the IUT greeted again after the
// latest one or had the greet timeout to do so. Otherwise it returns how
// long to wait at most before asking again.
func (l *link) settled() (bool, time.Duration) {
	l.mu.Lock()
	nc := l.nc
	l.mu.Unlock()
	if nc == nil {
		return true, 0
	}
	// Status and the reconnect count are read from the connection itself:
	// the handlers above run later, on nats.go's callback goroutine.
	status, reconnects := nc.Status(), nc.Stats().Reconnects
	l.mu.Lock()
	defer l.mu.Unlock()
	restored := 0
	for _, o := range l.outages {
		if o.Restored != 0 {
			restored++
		}
	}
	o := l.latest()
	switch {
	case status != nats.CONNECTED || uint64(restored) < reconnects:
		return false, l.grace
	case o == nil || o.IUTGreeted != 0:
		return true, 0
	}
	left := l.grace - time.Since(o.back)
	return left <= 0, left
}

// ready blocks until scenarios may start or ctx ends.
func (l *link) ready(ctx context.Context) {
	for {
		ok, wait := l.settled()
		if ok {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-l.changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		t.Stop()
	}
}

// linkMark is the state of the connection when a scenario starts.
type linkMark struct{ reconnects uint64 }

func (l *link) mark() linkMark {
	l.mu.Lock()
	nc := l.nc
	l.mu.Unlock()
	if nc == nil {
		return linkMark{}
	}
	return linkMark{nc.Stats().Reconnects}
}

// judge voids the verdict of a scenario that was in flight while the
// connection was down: whatever it saw or missed says nothing about the IUT.
func (l *link) judge(res *report.ScenarioResult, from linkMark) {
	l.mu.Lock()
	nc := l.nc
	l.mu.Unlock()
	if nc == nil || res.Outcome == report.Skip {
		return
	}
	if nc.Status() == nats.CONNECTED && nc.Stats().Reconnects == from.reconnects {
		return
	}
	// nats.go tells of the loss on its own goroutine: give the handler
	// its moment, so the outage this scenario lost is the one it names.
	for range 50 {
		l.mu.Lock()
		o := l.latest()
		l.mu.Unlock()
		if o != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	what := "the broker connection was lost during the scenario"
	if o := l.latest(); o != nil {
		o.Scenarios = append(o.Scenarios, res.ID)
		what += fmt.Sprintf(" (at %s", rounded(o.Lost))
		if o.Restored != 0 {
			what += fmt.Sprintf(", back at %s", rounded(o.Restored))
		}
		what += ")"
	}
	if res.Outcome != report.Error {
		res.Notes = append(res.Notes, fmt.Sprintf("outcome before the outage was taken into account: %s %s", res.Outcome, res.Message))
	}
	res.Outcome, res.Message = report.Error, "not judged: "+what
}

// report puts the outages into the report and grades the IUT's greet after
// each reconnect (a SHOULD of the NATS binding) with the passive verdict.
func (l *link) report(rep *report.Report, strict bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	missed := 0
	for _, o := range l.outages {
		rep.Broker.Outages = append(rep.Broker.Outages, o.Outage)
		if o.Restored != 0 && o.IUTGreeted == 0 {
			missed++
		}
	}
	if missed == 0 {
		return
	}
	rule := requirements.NATSRegreet
	p := &rep.Passive
	p.Findings = append(p.Findings, report.PassiveFinding{Rule: rule.ID, Level: rule.Severity.Level(), Count: missed,
		Example: fmt.Sprintf("the IUT did not greet on the broadcast subject within %s after the broker connection came back", l.grace)})
	o := report.Warn
	if strict && rule.Severity == rules.Warning {
		o = report.Fail
	}
	p.Outcome = worse(p.Outcome, o)
}

// latest is the most recent outage (nil when none). Lock held.
func (l *link) latest() *outage {
	if n := len(l.outages); n > 0 {
		return l.outages[n-1]
	}
	return nil
}

func rounded(m report.Millis) time.Duration { return m.D().Round(time.Millisecond) }
