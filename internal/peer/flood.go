package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/randid"
)

// flooder publishes say envelopes of one size on the broadcast subject
// without pause (the flood-bytes:SIZE fault), so that what the harness
// keeps of a peer that publishes as fast as its connection takes it can
// be measured and bounded. Each envelope is valid on its own, with a fresh
// id and the current ts: what it breaks is how much a peer publishes, not
// any member.
type flooder struct {
	quit, done chan struct{}
}

// floodTemplate is one flood envelope of exactly size bytes (or as small
// as the envelope gets, for a smaller size), with the byte offsets of its
// id and ts, which each publication rewrites in place (a UUID and a
// ten-digit Unix time keep their width).
func (p *peer) floodTemplate(size int) (data []byte, idAt, tsAt int, err error) {
	env := p.envelope("say", map[string]any{"text": ""})
	env["surface"], env["thread_id"] = "thread", "flood-"+randid.Hex(4)
	id, ts := env["id"].(string), env["ts"].(int64)
	base, err := json.Marshal(env)
	if err != nil {
		return nil, 0, 0, err
	}
	env["body"] = map[string]any{"text": strings.Repeat("x", max(size-len(base), 0))}
	if data, err = json.Marshal(env); err != nil {
		return nil, 0, 0, err
	}
	// The text is all x, so neither marker can occur inside it.
	idAt = bytes.Index(data, []byte(`"id":"`+id+`"`)) + len(`"id":"`)
	tsAt = bytes.Index(data, []byte(`"ts":`+strconv.FormatInt(ts, 10))) + len(`"ts":`)
	return data, idAt, tsAt, nil
}

// startFlood starts publishing data on subject until stop.
func startFlood(nc *nats.Conn, subject string, data []byte, idAt, tsAt int, log *slog.Logger) *flooder {
	f := &flooder{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		buf := bytes.Clone(data)
		complained := false
		for {
			select {
			case <-f.quit:
				return
			default:
			}
			copy(buf[idAt:], randid.UUID())
			if ts := strconv.FormatInt(time.Now().Unix(), 10); len(ts) == 10 {
				copy(buf[tsAt:], ts)
			}
			// Publish copies buf into the connection's buffer, and blocks
			// while the broker is slower to read than the flood: the
			// connection is the only pace.
			err := nc.Publish(subject, buf)
			switch {
			case err == nil:
				continue
			case errors.Is(err, nats.ErrConnectionClosed):
				return
			case !complained:
				log.Error("flood", "subject", subject, "err", err)
				complained = true
			}
			// Reconnecting, or a payload the broker refuses: try again
			// soon, without spinning.
			select {
			case <-f.quit:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return f
}

func (f *flooder) stop() {
	close(f.quit)
	<-f.done
}
