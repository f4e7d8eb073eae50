package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// found is an attached peer's first envelope seen on the broker.
type found struct {
	subject string
	data    []byte
	ws, ch  string
}

// findPeer waits, up to the greet timeout, for anything the attached peer
// publishes on the broker (its next presence greet, or any envelope it
// sends) and takes the run's workspace and channel from it, so that
// --iut-peer alone is enough. The channel, when given, must match.
func (r *runner) findPeer(ctx context.Context, nc *nats.Conn) (*found, error) {
	got := make(chan *found, 1)
	sub, err := nc.Subscribe(agh.SubjectPrefix+".>", func(m *nats.Msg) {
		var env struct {
			From      string `json:"from"`
			Workspace string `json:"workspace_id"`
			Channel   string `json:"channel"`
		}
		if json.Unmarshal(m.Data, &env) != nil || env.From != r.cfg.IUTPeer || env.Workspace == "" || env.Channel == "" {
			return
		}
		if r.cfg.Channel != "" && env.Channel != r.cfg.Channel {
			return
		}
		select {
		case got <- &found{subject: m.Subject, data: m.Data, ws: env.Workspace, ch: env.Channel}:
		default:
		}
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	defer sub.Unsubscribe()
	t := time.NewTimer(r.cfg.GreetTimeout)
	defer t.Stop()
	select {
	case f := <-got:
		return f, nil
	case <-t.C:
		return nil, fmt.Errorf("%s sent nothing on the broker within %s (--greet-timeout) to tell its workspace and channel: give them with --workspace and --channel", r.cfg.IUTPeer, r.cfg.GreetTimeout)
	case <-ctx.Done():
		return nil, interruption(ctx)
	}
}
