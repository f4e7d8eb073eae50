package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// burst is what one step published at once, for the load figures.
type burst struct {
	at       time.Duration // since the run started, just before the first copy left
	messages int           // copies counted
	ids      []string      // the ids and work ids an answer names
}

// atOnce plays a step that publishes at once (an at_once step, or a send
// with copies). Every message is rendered and checked first; then all of
// them are published in one burst, the sends' copies interleaved, back to
// back on the harness's connection, so that they leave in the same writes
// and the IUT reads them together, in whatever order it takes them up. A
// goroutine per copy was tried first: on a loaded machine the scheduler
// spread such a burst over up to 165 ms, longer than a peer takes to
// handle a message, and the copies were no longer in flight together.
func (p *player) atOnce(ctx context.Context, i int, st *scenario.Step) report.StepResult {
	var sr report.StepResult
	p.wait.markSend()
	sends := st.Published()
	outs := make([]*outgoing, len(sends))
	var order []int // index into sends, one per copy, interleaved
	for k, s := range sends {
		o, err := p.send.prepare(s, false)
		if err != nil {
			errors.As(err, &p.unheard) // nobody listens: not played (see unplayed)
			return sr.Judged(report.Error, err.Error())
		}
		outs[k] = o
	}
	for c := 0; ; c++ {
		added := false
		for k, s := range sends {
			if c < max(s.Copies, 1) {
				order = append(order, k)
				added = true
			}
		}
		if !added {
			break
		}
	}
	if f := p.r.fleet; f != nil {
		// Every member's burst leaves together.
		f.barrier(ctx, fmt.Sprintf("%s/%d/%d", p.sc.ID, i+1, p.r.runs))
	}
	at := time.Since(p.r.start)
	if err := p.burst(ctx, outs, sends, order); err != nil {
		return sr.Judged(report.Error, err.Error())
	}
	b := burst{at: at, messages: len(order)}
	for k, o := range outs {
		copies := max(sends[k].Copies, 1)
		p.send.sent(o, copies)
		p.wait.noteSend(o.ids, copies)
		b.ids = append(b.ids, o.ids...)
	}
	if p.sentOn == nil {
		p.sentOn = map[int]string{}
	}
	p.sentOn[i] = outs[0].msg.Subject
	p.sent++
	p.bursts = append(p.bursts, b)
	return sr.Judged(report.Pass, "")
}

// burst publishes outs[k] for each k of order, back to back: through NATS
// Core, or through JetStream without waiting for one acknowledgement
// before the next publish (each is awaited after the burst).
func (p *player) burst(ctx context.Context, outs []*outgoing, sends []*scenario.Send, order []int) error {
	var acks []jetstream.PubAckFuture
	for _, k := range order {
		msg := outs[k].msg
		if !sends[k].JetStream {
			if err := p.r.nc.PublishMsg(msg); err != nil {
				return fmt.Errorf("publish on %s: %w", msg.Subject, err)
			}
			continue
		}
		if p.r.js == nil {
			return errors.New("jetstream send without a JetStream broker")
		}
		f, err := p.r.js.PublishMsgAsync(msg)
		if err != nil {
			return fmt.Errorf("publish on %s: %w", msg.Subject, err)
		}
		acks = append(acks, f)
	}
	for _, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("publish on %s: %w", f.Msg().Subject, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// loadFigures gives the scenario its load figures: for each burst, the
// IUT's answers that name one of its messages or their work, after it.
func (p *player) loadFigures() {
	if len(p.bursts) == 0 {
		return
	}
	l := &report.Load{Bursts: len(p.bursts)}
	msgs := p.onTime()
	for _, b := range p.bursts {
		l.Messages += b.messages
		var last time.Duration
		for _, m := range msgs {
			if !m.fromIUT || m.env == nil || m.at < b.at || !answers(m, b.ids) {
				continue
			}
			l.Answers++
			l.Delays = append(l.Delays, m.at-b.at)
			last = max(last, m.at-b.at)
		}
		if last > 0 {
			l.Spans = append(l.Spans, last)
		}
	}
	finishLoad(l)
	p.res.Load = l
}

// answers reports whether m names one of ids: what it answers, what
// caused it, or its work.
func answers(m *message, ids []string) bool {
	for _, v := range []any{member(m.env, []string{"body", "for_id"}), m.env["causation_id"], m.env["reply_to"], m.env["work_id"]} {
		if s, ok := v.(string); ok && s != "" && slices.Contains(ids, s) {
			return true
		}
	}
	return false
}

// finishLoad computes l's rate and latency from its spans and delays.
func finishLoad(l *report.Load) {
	var span time.Duration
	for _, s := range l.Spans {
		span += s
	}
	if span > 0 {
		l.PerSecond = float64(l.Answers) / span.Seconds()
	}
	l.Latency = latencyOf(l.Delays)
}

// runLoad is the load figure over every scenario of the run (nil when no
// scenario published at once).
func runLoad(scs []*report.ScenarioResult) *report.Load {
	var out *report.Load
	for _, sc := range scs {
		l := sc.Load
		if l == nil {
			continue
		}
		if out == nil {
			out = &report.Load{}
		}
		out.Bursts += l.Bursts
		out.Messages += l.Messages
		out.Answers += l.Answers
		out.Spans = append(out.Spans, l.Spans...)
		out.Delays = append(out.Delays, l.Delays...)
	}
	if out != nil {
		finishLoad(out)
	}
	return out
}
