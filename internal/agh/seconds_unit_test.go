package agh

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// A time that cannot be Unix seconds (ms, µs, ns) is
// ENV-TS-SECONDS, a MUST, in ts and in expires_at; a clock off by
// minutes, days or years, and an expiry set to the year 9999, are not.
func TestTimesThatCannotBeSeconds(t *testing.T) {
	const now = 1776366600
	ck, err := NewChecker(Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	env := func(ts, exp string) []byte {
		e := `{"protocol":"agh-network/v0","id":"m1","workspace_id":"ws_alpha","kind":"greet","channel":"builders","from":"a.b",` +
			`"ts":` + ts + `,"body":{"peer_card":{"peer_id":"a.b","capabilities":[],"artifacts_supported":[],"profiles_supported":["agh-network/v0"]}},"proof":null`
		if exp != "" {
			e += `,"expires_at":` + exp
		}
		return []byte(e + "}")
	}
	for _, tc := range []struct {
		ts, exp string
		at      []string // pointers of ENV-TS-SECONDS findings
		unit    string
	}{
		{ts: fmt.Sprint(now * 1000), at: []string{"/ts"}, unit: "milliseconds"},
		{ts: fmt.Sprint(now * 1_000_000), at: []string{"/ts"}, unit: "microseconds"},
		{ts: fmt.Sprint(now * 1_000_000_000), at: []string{"/ts"}, unit: "nanoseconds"},
		{ts: "5000000000000000", at: []string{"/ts"}, unit: "10,000 years"},
		// Past int64: ENV-TS-LITERAL's, said once.
		{ts: "1e+30"},
		{ts: fmt.Sprint(now), exp: fmt.Sprint((now + 600) * 1000), at: []string{"/expires_at"}, unit: "milliseconds"},
		{ts: fmt.Sprint(now * 1000), exp: fmt.Sprint((now + 600) * 1000), at: []string{"/ts", "/expires_at"}, unit: "milliseconds"},
		// A skewed clock, an unset one, a far expiry: seconds all.
		{ts: fmt.Sprint(now + 180)},
		{ts: fmt.Sprint(now - 180)},
		{ts: fmt.Sprint(now + 3*365*86400)},
		{ts: "0"},
		{ts: fmt.Sprint(now), exp: "253402300799"}, // 9999-12-31T23:59:59Z
		{ts: fmt.Sprint(now + SecondsHorizon)},
	} {
		var at []string
		for _, f := range ck.CheckBytes(env(tc.ts, tc.exp)).Findings {
			if f.Rule != RuleTSSeconds {
				continue
			}
			at = append(at, f.Pointer)
			if !strings.Contains(f.Message, tc.unit) {
				t.Errorf("ts %s expires_at %s: message %q does not say %q", tc.ts, tc.exp, f.Message, tc.unit)
			}
		}
		if fmt.Sprint(at) != fmt.Sprint(tc.at) {
			t.Errorf("ts %s expires_at %s: ENV-TS-SECONDS at %v, want %v", tc.ts, tc.exp, at, tc.at)
		}
	}
	if RuleTSSeconds.Severity != rules.Error || RuleTSSeconds.Tolerable == "" {
		t.Error("ENV-TS-SECONDS: a MUST of the sender that a receiver may tolerate")
	}
	// Without a clock nothing says what the sender's present was.
	plain, _ := NewChecker(Options{})
	for _, f := range plain.CheckBytes(env(fmt.Sprint(now*1000), "")).Findings {
		if f.Rule == RuleTSSeconds {
			t.Error("ENV-TS-SECONDS without a clock")
		}
	}
}
