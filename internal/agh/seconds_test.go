package agh

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

// ts and expires_at are what the schema types them, an integer >= 0: any
// integral JSON number. Only the plain int64 literal escapes the SHOULD.
func TestUnixSeconds(t *testing.T) {
	for _, tc := range []struct {
		lit             string
		n               int64
		integral, plain bool
	}{
		{"1776366000", 1776366000, true, true},
		{"0", 0, true, true},
		{"-0", 0, true, true},
		{"1776366000.0", 1776366000, true, false},
		{"1.776366e9", 1776366000, true, false},
		{"17763660E2", 1776366000, true, false},
		{"177636600000e-2", 1776366000, true, false},
		{"0.0e5", 0, true, false},
		{"-0.0", 0, true, false},
		{"1e+30", math.MaxInt64, true, false},
		{"9223372036854775808", math.MaxInt64, true, false},
		{"1e999999999999999999999", math.MaxInt64, true, false},
		{"1776366000.5", 0, false, false},
		{"1e-1", 0, false, false},
		{"1e-999999999999999999999", 0, false, false},
		{"-1", 0, false, false},
		{"-1e3", 0, false, false},
	} {
		t.Run(tc.lit, func(t *testing.T) {
			n, integral, plain := unixSeconds(json.Number(tc.lit))
			if integral != tc.integral || plain != tc.plain || (integral && n != tc.n) {
				t.Errorf("%d %t %t, want %d %t %t", n, integral, plain, tc.n, tc.integral, tc.plain)
			}
		})
	}
}

// A ts the schema takes breaks no MUST; written otherwise than as a plain
// int64 it draws the sender's SHOULD, and a time past int64 is far in the
// future: never expired, never past the replay age.
func TestIntegralTimes(t *testing.T) {
	raw, err := os.ReadFile("../../fixtures/agh/valid/say-work-correlated.json")
	if err != nil {
		t.Fatal(err)
	}
	c := mustChecker(t, Options{Now: 1776366200, MaxReplayAge: 300})
	for _, tc := range []struct{ ts, exp, want string }{
		{"1776366180", "1776366480", ""},
		{"1.77636618e9", "1776366480", "ENV-TS-LITERAL"},
		{"1e+30", "1776366480", "ENV-TS-LITERAL"},
		{"1776366180", "1e+30", "ENV-TS-LITERAL"},
		{"1776366180", "1776366480.0", "ENV-TS-LITERAL"},
		{"1776366180.5", "1776366480", "ENV-TS"},
		{"1776366180", "1776366000", "FRESH-EXPIRED"},
	} {
		t.Run("ts="+tc.ts+"_expires_at="+tc.exp, func(t *testing.T) {
			doc := setNumber(t, setNumber(t, raw, "ts", tc.ts), "expires_at", tc.exp)
			got := ids(c.CheckBytes(doc).Findings)
			if want := []string{tc.want}; (tc.want == "" && len(got) > 0) || (tc.want != "" && !slices.Equal(got, want)) {
				t.Errorf("%v, want %q", got, tc.want)
			}
		})
	}
	// The other reading refuses them.
	strict := mustChecker(t, Options{Errata: Errata{PlainTimes: true}})
	if got := ids(strict.CheckBytes(setNumber(t, raw, "ts", "1e+30")).Findings); !slices.Equal(got, []string{"ENV-TS"}) {
		t.Errorf("ts 1e+30 under plain-times: %v, want ENV-TS", got)
	}
	// Without expires_at, a ts past int64 is not older than the replay age.
	doc := bytes.Replace(setNumber(t, raw, "ts", "1e+30"), []byte(`"expires_at"`), []byte(`"org_drop"`), 1)
	if got := ids(c.CheckBytes(doc).Findings); slices.Contains(got, "FRESH-REPLAY-AGE") {
		t.Errorf("ts 1e+30 without expires_at: %v", got)
	}
}

// setNumber writes lit as the value of the top-level number member name.
func setNumber(t *testing.T, raw []byte, name, lit string) []byte {
	t.Helper()
	key := `"` + name + `": `
	i := bytes.Index(raw, []byte(key))
	if i < 0 {
		t.Fatalf("no member %s", name)
	}
	j := i + len(key)
	end := j + bytes.IndexAny(raw[j:], ",\n}")
	return []byte(string(raw[:j]) + lit + string(raw[end:]))
}

// A protocol or kind of the wrong JSON type names no profile or kind: its
// refusal is malformed; only a well-formed unknown string is unsupported_*.
func TestWrongTypeIsMalformed(t *testing.T) {
	raw, err := os.ReadFile("../../fixtures/agh/valid/say-work-correlated.json")
	if err != nil {
		t.Fatal(err)
	}
	c := mustChecker(t, Options{})
	for _, tc := range []struct{ name, member, value, want string }{
		{"protocol-array", "protocol", `["agh-network/v0"]`, ReasonMalformed},
		{"protocol-number", "protocol", `7`, ReasonMalformed},
		{"protocol-unknown", "protocol", `"agh-network/v1"`, ReasonUnsupportedProfile},
		{"kind-object", "kind", `{"say":true}`, ReasonMalformed},
		{"kind-unknown", "kind", `"shout"`, ReasonUnsupportedKind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env map[string]json.RawMessage
			if err := json.Unmarshal(raw, &env); err != nil {
				t.Fatal(err)
			}
			env[tc.member] = json.RawMessage(tc.value)
			doc, err := json.Marshal(env)
			if err != nil {
				t.Fatal(err)
			}
			if got := RefusalReason(c.CheckBytes(doc).Findings); got != tc.want {
				t.Errorf("%s %s: refused as %q, want %q", tc.member, tc.value, got, tc.want)
			}
		})
	}
}
