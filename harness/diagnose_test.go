package harness

import (
	"context"
	"github.com/aghcheck/aghcheck/internal/report"
	"regexp"
	"strings"
	"testing"
	"time"
)

// An IUT that publishes more than the broker's max payload is disconnected
// by the broker; the harness never sees the message, but the report says
// what happened: a failing passive finding and the disconnect.
func TestOversizePublishIsReported(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "oversize", config{Target: Target{StepTimeout: 500 * time.Millisecond}, Select: regexp.MustCompile(`^kinds\.greet`)})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if rep.Passive.Outcome != report.Fail {
		t.Errorf("passive %s, want fail", rep.Passive.Outcome)
	}
	found := false
	for _, f := range rep.Passive.Findings {
		if f.Rule == "INPUT-SIZE" && f.RunWide && strings.Contains(f.Example, "max payload") {
			found = true
		}
	}
	if !found {
		t.Errorf("no INPUT-SIZE finding for the oversized publish: %+v", rep.Passive.Findings)
	}
	if strings.Join(rep.IUT.Disconnects, ";") != "Maximum Message Payload Exceeded" {
		t.Errorf("disconnects %q", rep.IUT.Disconnects)
	}
}

// "Arrived instead" lists the envelopes of the exchange a step waits for:
// the same work, or answers to the same message; others are only counted.
func TestRelatedToTheExchange(t *testing.T) {
	env := func(kv ...any) *message {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return &message{env: m}
	}
	workW := []map[string]any{{"kind": "trace", "work_id": "work_t_w", "body": map[string]any{"state": "completed"}}}
	forOpen := []map[string]any{{"kind": "receipt", "body": map[string]any{"for_id": "msg_t_open"}}}
	anyWork := []map[string]any{{"kind": "trace", "work_id": map[string]any{"$present": true}}}
	for _, tc := range []struct {
		name string
		pats []map[string]any
		m    *message
		want bool
	}{
		{"same work", workW, env("kind", "trace", "work_id", "work_t_w"), true},
		{"other work", workW, env("kind", "trace", "work_id", "work_t_x"), false},
		{"no work at all", workW, env("kind", "greet"), false},
		{"answer to the same message", forOpen, env("kind", "receipt", "body", map[string]any{"for_id": "msg_t_open"}), true},
		{"answer to another", forOpen, env("kind", "receipt", "body", map[string]any{"for_id": "msg_t_late"}), false},
		{"nothing pinned", anyWork, env("kind", "say"), true},
		{"not an envelope", workW, &message{size: 1, kept: []byte("\xff")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pinned(tc.pats).relate(tc.m); got != tc.want {
				t.Errorf("relate = %v, want %v", got, tc.want)
			}
		})
	}
}

// While the IUT has not greeted, Config.Waiting hears how the wait goes,
// with the IUT's latest stderr line, and once more when it ends.
func TestWaitingReportsTheWait(t *testing.T) {
	t.Parallel()
	var waits []Wait
	cfg := config{Target: Target{Command: []string{"sh", "-c", "echo dialing the broker >&2; sleep 0.8; exit 3"},
		GreetTimeout: 10 * time.Second, Waiting: func(w Wait) { waits = append(waits, w) }}, Scenarios: loadSuites(t),
	}
	rep, err := runConfig(context.Background(), cfg)
	if rep == nil || err == nil {
		t.Fatalf("report %v, err %v", rep != nil, err)
	}
	if len(waits) < 3 {
		t.Fatalf("%d calls, want a few ticks and the end", len(waits))
	}
	last, ticks := waits[len(waits)-1], waits[:len(waits)-1]
	if !last.Done {
		t.Errorf("last call %+v, want Done", last)
	}
	for i, w := range ticks {
		if w.Done || w.For != "the IUT's greet" || (i > 0 && w.Elapsed <= ticks[i-1].Elapsed) {
			t.Errorf("tick %d: %+v", i, w)
		}
	}
	if got := ticks[len(ticks)-1].LastStderr; got != "dialing the broker" {
		t.Errorf("last stderr line %q", got)
	}
}
