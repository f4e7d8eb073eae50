package requirements

import (
	"strconv"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// A clock skewed by minutes is the sender's SHOULD (ENV-TS-CLOCK); a ts
// in milliseconds is no skew but ENV-TS-SECONDS, the engine's MUST, and
// is not said twice.
func TestSenderClock(t *testing.T) {
	now := time.Unix(1776366600, 0)
	env := map[string]any{"id": "0b8e2f7c-1f7e-4a43-9d5e-2b8d6a1c9e11", "to": nil, "proof": nil}
	for _, tc := range []struct {
		ts    int64
		clock bool
	}{
		{now.Unix(), false},
		{now.Unix() + 20, false},
		{now.Unix() + 180, true}, // three minutes ahead
		{now.Unix() - 900, true}, // fifteen minutes behind
		{now.Unix() * 1000, false},
	} {
		got := SenderAdvice(env, tc.ts, true, now)
		if clock := len(got) == 1 && got[0].Rule == SenderTSClock; clock != tc.clock || (!tc.clock && len(got) > 0) {
			t.Errorf("ts %d: %v, want ENV-TS-CLOCK %t", tc.ts, got, tc.clock)
		}
	}
	ck, err := agh.NewChecker(agh.Options{Now: now.Unix()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ts      int64
		seconds bool
	}{{now.Unix() + 180, true}, {now.Unix() * 1000, false}} {
		raw := []byte(`{"protocol":"agh-network/v0","id":"m1","workspace_id":"ws_alpha","kind":"whois","channel":"builders","from":"a.b","to":null,"proof":null,` +
			`"ts":` + strconv.FormatInt(tc.ts, 10) + `,"body":{"type":"request","query":"x"}}`)
		broke := false
		for _, f := range ck.CheckBytes(raw).Findings {
			broke = broke || f.Rule == agh.RuleTSSeconds
		}
		if broke == tc.seconds {
			t.Errorf("ts %d: ENV-TS-SECONDS %t, want %t", tc.ts, broke, !tc.seconds)
		}
	}
}
