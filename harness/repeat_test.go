package harness

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
)

// flipFlop is a connection beside the reference peer, with its
// credentials, that accepts every other directed say without a work_id
// the peer is sent (the second, the fourth, ...): the peer invents work
// on one run of lifecycle.no-invented-work and not on the next, on a
// count, never a clock.
func flipFlop(cfg peer.Config) (func(), error) {
	nc, err := nats.Connect(cfg.URL, cfg.Auth()...)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	seen := 0
	_, err = nc.Subscribe(agh.PeerSubject(cfg.Workspace, cfg.Channel, cfg.PeerID), func(m *nats.Msg) {
		var say struct {
			Kind, ID, From, Surface string
			ThreadID                string `json:"thread_id"`
			WorkID                  any    `json:"work_id"`
		}
		if json.Unmarshal(m.Data, &say) != nil || say.Kind != "say" || say.WorkID != nil || say.Surface != "thread" {
			return
		}
		mu.Lock()
		seen++
		odd := seen%2 == 0
		mu.Unlock()
		if !odd {
			return
		}
		receipt, _ := json.Marshal(map[string]any{
			"protocol": agh.Protocol, "id": randid.UUID(), "workspace_id": cfg.Workspace, "channel": cfg.Channel,
			"kind": "receipt", "from": cfg.PeerID, "to": say.From, "ts": time.Now().Unix(), "proof": nil,
			"surface": "thread", "thread_id": say.ThreadID, "work_id": "work_" + randid.Hex(8), "reply_to": say.ID,
			"body": map[string]any{"for_id": say.ID, "status": "accepted"},
		})
		_ = nc.Publish(agh.PeerSubject(cfg.Workspace, cfg.Channel, say.From), receipt)
	})
	if err != nil {
		nc.Close()
		return nil, err
	}
	return nc.Close, nc.Flush()
}

// A scenario whose outcome differs between the runs of --repeat is an
// error of the harness, whatever its outcomes were; one that holds keeps
// its outcome; the summary names the unstable ones, and the run does not
// pass.
func TestRepeatReportsUnstable(t *testing.T) {
	t.Parallel()
	sel := regexp.MustCompile(`^lifecycle\.(no-invented-work|work-completes)$`)
	rep := runAgainst(t, "flip-flop-peer", config{Scenarios: loadSuites(t), Select: sel, Repeat: 3})
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	for _, sc := range rep.Scenarios {
		switch sc.ID {
		case "lifecycle.no-invented-work":
			if sc.Outcome != report.Error || !slices.Equal(sc.Runs, []report.Outcome{report.Pass, report.Fail, report.Pass}) {
				dump(t, rep)
				t.Errorf("%s: %s %v (%s), want error over pass, fail, pass", sc.ID, sc.Outcome, sc.Runs, sc.Message)
			}
			if !strings.Contains(sc.Message, "unstable: its outcome differed between the 3 runs (pass on runs 1 and 3; fail on run 2); run 2: fail") {
				t.Errorf("message %q", sc.Message)
			}
		case "lifecycle.work-completes":
			if sc.Outcome != report.Pass || !slices.Equal(sc.Runs, []report.Outcome{report.Pass, report.Pass, report.Pass}) {
				t.Errorf("%s: %s %v, want pass on every run", sc.ID, sc.Outcome, sc.Runs)
			}
		}
	}
	s := rep.Summary
	if s.Repeat != 3 || !slices.Equal(s.Unstable, []string{"lifecycle.no-invented-work"}) || s.Passed || s.Incomplete {
		t.Errorf("summary repeat %d unstable %v passed %v incomplete %v", s.Repeat, s.Unstable, s.Passed, s.Incomplete)
	}
	if line := s.UnstableLine(); !strings.HasPrefix(line, "unstable: 1 scenario differed between the 3 runs") {
		t.Errorf("line %q", line)
	}
}

func TestFoldAndTally(t *testing.T) {
	p, f, w := report.Pass, report.Fail, report.Warn
	if got := tally([]report.Outcome{p, f, p, f, w}); got != "pass on runs 1 and 3; fail on runs 2 and 4; warn on run 5" {
		t.Errorf("tally %q", got)
	}
	runs := []*report.ScenarioResult{{ID: "x", Outcome: p}, {ID: "x", Outcome: w, Message: "step 2: late"}, {ID: "x", Outcome: p}}
	got := fold(runs)
	if got.Outcome != report.Error || got.Message != "unstable: its outcome differed between the 3 runs (pass on runs 1 and 3; warn on run 2); run 2: warn (step 2: late)" {
		t.Errorf("fold: %s %q", got.Outcome, got.Message)
	}
	if len(got.Notes) != 3 || got.Notes[0] != "run 1: pass" {
		t.Errorf("notes %q", got.Notes)
	}
	runs = []*report.ScenarioResult{{ID: "x", Outcome: w, Message: "a"}, {ID: "x", Outcome: w, Message: "b"}}
	if got := fold(runs); got.Outcome != w || got.Message != "a" || len(got.Runs) != 2 {
		t.Errorf("stable fold: %+v", got)
	}
}
