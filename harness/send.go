package harness

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// sender builds, signs and publishes what one scenario's test peers send.
// Its errors are the harness's (a template that does not render, a broker
// that refuses a publish): they never judge the IUT.
type sender struct {
	r     *runner
	tctx  *scenario.Context
	first string   // the peer that sends when a step names none
	names []string // every test peer, in declaration order
	log   *transcript
}

// send publishes one step and returns the subject it went to and the ids
// an answer to it would carry (its id and work_id, when the bytes are an
// object that has them).
func (s *sender) send(ctx context.Context, st *scenario.Send) (subject string, ids []string, err error) {
	return s.sendAs(ctx, st, false)
}

// sendAs is send; sound says the harness built the envelope itself and
// knows it sound (a greet), so the tracker takes it unjudged: a signed
// greet's check was a tenth of a fuzz case.
func (s *sender) sendAs(ctx context.Context, st *scenario.Send, sound bool) (string, []string, error) {
	o, err := s.prepare(st, sound)
	if err != nil {
		return "", nil, err
	}
	times := max(st.Repeat, 1)
	if err := s.publish(ctx, o.msg, st.JetStream, times); err != nil {
		return "", nil, err
	}
	s.sent(o, times)
	return o.msg.Subject, o.ids, nil
}

// outgoing is one send step made ready to publish.
type outgoing struct {
	from string
	msg  *nats.Msg
	ids  []string // its id and work_id: what an answer to it carries
}

// prepare renders a send step into the message it publishes, refuses one
// outside the run's subjects, and shows it to the work-unit tracker.
func (s *sender) prepare(st *scenario.Send, sound bool) (*outgoing, error) {
	from := st.From
	if from == "" {
		from = s.first
	}
	subject, data, env, err := s.bytes(st, s.tctx.Peers[from])
	if err != nil {
		return nil, err
	}
	reply, err := s.tctx.RenderString(st.Reply)
	if err != nil {
		return nil, err
	}
	// Whatever a scenario file, a fuzz corpus entry or a capture of the
	// IUT's says, the harness publishes only on the run's subjects: with
	// --nats-url its connection has the user's credentials.
	if !scenario.Confined(subject, s.r.ws, s.r.ch) {
		return nil, fmt.Errorf("publish refused: %w", scenario.ErrUnconfined("subject", subject))
	}
	if reply != "" && !scenario.ReplyConfined(reply, s.r.ws, s.r.ch) {
		return nil, fmt.Errorf("publish refused: %w", scenario.ErrUnconfined("reply subject", reply))
	}
	if err := s.r.unheardSend(subject); err != nil {
		return nil, err
	}
	if sound && env != nil {
		s.r.bus.track.sound(env)
	} else {
		s.r.bus.track.sent(data)
	}
	o := &outgoing{from: from, msg: &nats.Msg{Subject: subject, Reply: reply, Data: data}}
	for _, k := range []string{"id", "work_id"} {
		if v, _ := env[k].(string); v != "" {
			o.ids = append(o.ids, v)
		}
	}
	return o, nil
}

// sent records a message published times times: in the transcript, and
// for the liveness watch.
func (s *sender) sent(o *outgoing, times int) {
	s.log.sent(time.Since(s.r.start), o.from, o.msg.Subject, o.msg.Data, times)
	s.r.life.sentTo(o.msg.Subject, o.ids)
}

// greetAll announces every test peer of the scenario on the broadcast
// subject, as a joining peer does: an IUT may reasonably refuse to address
// a peer it has never seen. A peer with a key greets signed, as the
// verified handle it speaks as.
func (s *sender) greetAll(ctx context.Context) error {
	for _, name := range s.names {
		profiles, modes := []any{agh.Protocol}, []any{"unverified"}
		key := s.tctx.Peers[name].Key != nil
		if key {
			profiles, modes = append(profiles, trust.ProfileID), []any{"verified"}
		}
		greet := &scenario.Send{From: name, To: "broadcast", Sign: key, Envelope: map[string]any{
			"kind": "greet",
			"body": map[string]any{"peer_card": map[string]any{
				"peer_id": s.tctx.Peers[name].ID, "profiles_supported": profiles, "capabilities": []any{},
				"artifacts_supported": []any{}, "trust_modes_supported": modes,
			}},
		}}
		if _, _, err := s.sendAs(ctx, greet, true); err != nil {
			return err
		}
	}
	return nil
}

// bytes renders a send step into the subject and the bytes to publish, and
// the envelope they hold (nil when they are no JSON object).
func (s *sender) bytes(st *scenario.Send, from *scenario.TestPeer) (subject string, data []byte, env map[string]any, err error) {
	if st.Subject != "" {
		if subject, err = s.tctx.RenderString(st.Subject); err != nil {
			return "", nil, nil, err
		}
	}
	switch {
	case st.Raw != nil:
		txt, err := s.tctx.RenderString(*st.Raw)
		if err != nil {
			return "", nil, nil, err
		}
		data = []byte(txt)
		_ = json.Unmarshal(data, &env) // not an object: nothing answers it by id
	case st.RawBase64 != "":
		if data, err = base64.StdEncoding.DecodeString(st.RawBase64); err != nil {
			return "", nil, nil, fmt.Errorf("raw_base64: %w", err)
		}
		_ = json.Unmarshal(data, &env)
	default:
		if env, err = s.envelope(st, from); err != nil {
			return "", nil, nil, err
		}
		if subject == "" && st.To == "" {
			// Where the envelope itself says it goes (to may come from
			// the step's envelope members).
			subject, _ = agh.Subject(env)
		}
		if data, err = json.Marshal(env); err != nil {
			return "", nil, nil, fmt.Errorf("encode envelope: %w", err)
		}
	}
	if subject == "" {
		subject = s.target(st.To)
	}
	return subject, data, env, nil
}

// target is the subject a step's to names: the IUT's peer subject by
// default, the broadcast subject, or a test peer's subject.
func (s *sender) target(to string) string {
	switch to {
	case "", "iut":
		return agh.PeerSubject(s.r.ws, s.r.ch, s.r.iutID)
	case "broadcast":
		return agh.BroadcastSubject(s.r.ws, s.r.ch)
	}
	return agh.PeerSubject(s.r.ws, s.r.ch, s.tctx.Peers[to].ID)
}

// envelope builds the envelope of a send step (scenario.Context.Compose:
// the one place envelopes are built, for the generator's checks too).
func (s *sender) envelope(st *scenario.Send, from *scenario.TestPeer) (map[string]any, error) {
	return s.tctx.Compose(st, from, "msg_"+s.tctx.Tag+"_"+randid.Hex(4))
}

// publish sends data times times, through JetStream (waiting for each
// acknowledgement) or NATS Core. It does not flush: one connection carries
// every send in order, no verdict rests on when the bytes left (silences
// have no window), and a round trip per send was a fifth of a fuzz case.
// A step that acts on the broker directly (disconnect) flushes first.
func (s *sender) publish(ctx context.Context, msg *nats.Msg, viaJetStream bool, times int) error {
	if viaJetStream && s.r.js == nil {
		return errors.New("jetstream send without a JetStream broker")
	}
	for range times {
		var err error
		if viaJetStream {
			// The broker's acknowledgement, not the IUT's answer: it is
			// awaited as long as the scenario may run, as a loaded broker,
			// or a cluster electing a new stream leader, may take long.
			_, err = s.r.js.PublishMsg(ctx, msg)
		} else {
			err = s.r.nc.PublishMsg(msg)
		}
		if err != nil {
			return fmt.Errorf("publish on %s: %w", msg.Subject, err)
		}
	}
	return nil
}
