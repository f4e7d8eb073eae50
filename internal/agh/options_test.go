package agh

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

func loadValid(t testing.TB, name string) ([]byte, map[string]any) {
	t.Helper()
	raw, v := readFixture(t, "../../fixtures/agh/valid/"+name+".json")
	return raw, v.(map[string]any)
}

func checkEnv(t testing.TB, c *Checker, env map[string]any) Result {
	t.Helper()
	return c.CheckValue(nil, env)
}

func TestFreshness(t *testing.T) {
	// say-work-correlated: ts 1776366180, expires_at 1776366480.
	_, withExp := loadValid(t, "say-work-correlated")
	// say-thread-broadcast: ts 1776366120, no expires_at.
	_, noExp := loadValid(t, "say-thread-broadcast")
	for _, tc := range []struct {
		name string
		env  map[string]any
		now  int64
		age  int64
		want []string
	}{
		{"off", withExp, 0, 0, nil},
		{"before expiry", withExp, 1776366479, 0, nil},
		{"at expiry", withExp, 1776366480, 0, []string{"FRESH-EXPIRED"}},
		{"expires_at wins over replay age", withExp, 1776366479, 10, nil},
		{"within replay age", noExp, 1776366420, 0, nil},
		{"past replay age", noExp, 1776366421, 0, []string{"FRESH-REPLAY-AGE"}},
		{"custom replay age", noExp, 1776366131, 10, []string{"FRESH-REPLAY-AGE"}},
		{"future ts allowed by default", noExp, 1776360000, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustChecker(t, Options{Now: tc.now, MaxReplayAge: tc.age})
			res := checkEnv(t, c, tc.env)
			if got := ids(res.Findings); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
			if tc.want != nil && RefusalReason(res.Findings) != "expired" {
				t.Errorf("refusal %q", RefusalReason(res.Findings))
			}
		})
	}
	c := mustChecker(t, Options{Now: 1776360000, Errata: Errata{RejectFutureTS: true}})
	if got := ids(checkEnv(t, c, noExp).Findings); !reflect.DeepEqual(got, []string{"ENV-TS-FUTURE"}) {
		t.Errorf("future ts under erratum 11: %v", got)
	}
}

// Each errata flag flips exactly the reading it names.
func TestErrataFlags(t *testing.T) {
	_, say := loadValid(t, "say-work-correlated")
	mod := func(f func(map[string]any)) map[string]any {
		e := deepCopy(say)
		f(e)
		return e
	}
	for _, tc := range []struct {
		name    string
		flag    string
		env     map[string]any
		strict  []string // rules without the flag
		relaxed []string // rules with it
	}{
		{"null-as-absent", "null-as-absent", mod(func(e map[string]any) {
			e["reply_to"], e["trace_id"], e["causation_id"], e["expires_at"] = nil, nil, nil, nil
		}), []string{"ENV-NULL-OPTIONAL"}, nil},
		{"allow-unknown-fields/unknown-member", "allow-unknown-fields", mod(func(e map[string]any) { e["acme_priority"] = 1 }), []string{"ENV-UNKNOWN-FIELD"}, nil},
		{"allow-unknown-fields/interaction-id", "allow-unknown-fields", mod(func(e map[string]any) { e["interaction_id"] = "x" }), []string{"ENV-LEGACY-INTERACTION-ID"}, []string{"ENV-LEGACY-INTERACTION-ID"}},
		{"reference-work-id/colon", "reference-work-id", mod(func(e map[string]any) { e["work_id"] = "task:42" }), []string{"ENV-WORK-ID-GRAMMAR"}, nil},
		{"reference-work-id/slash", "reference-work-id", mod(func(e map[string]any) { e["work_id"] = "work_a/b" }), []string{"ENV-WORK-ID-GRAMMAR"}, []string{"ENV-WORK-ID-GRAMMAR"}},
		{"reference-thread-id", "reference-thread-id", mod(func(e map[string]any) { e["thread_id"] = "Release Thread" }), nil, []string{"ENV-THREAD-ID-GRAMMAR"}},
		{"capability-requires-work-id", "capability-requires-work-id", func() map[string]any { _, e := loadValid(t, "capability-thread"); return e }(), nil, []string{"KIND-WORK-ID-REQUIRED"}},
		{"reject-secret-keys", "reject-secret-keys", mod(func(e map[string]any) {
			e["body"].(map[string]any)["artifacts"] = []any{map[string]any{"api_key": "sk-1"}}
		}), nil, []string{"ENV-SECRET-MATERIAL"}},
		{"skip-direct-id-derivation", "skip-direct-id-derivation", mod(func(e map[string]any) {
			e["surface"], e["direct_id"] = "direct", "direct_99401d24bee62651d189e5a561785466"
			delete(e, "thread_id")
		}), []string{"ENV-DIRECT-ID-DERIVATION"}, nil},
		{"skip-capability-digest", "skip-capability-digest", func() map[string]any {
			_, e := loadValid(t, "capability-thread")
			e["body"].(map[string]any)["capability"].(map[string]any)["digest"] = "sha256:6c5d"
			return e
		}(), []string{"CAP-DIGEST"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Errata
			if err := e.Set(tc.flag); err != nil {
				t.Fatal(err)
			}
			for _, mode := range []struct {
				o    Options
				want []string
			}{{Options{FullSchema: true}, tc.strict}, {Options{FullSchema: true, Errata: e}, tc.relaxed}} {
				c := mustChecker(t, mode.o)
				if got := ids(checkEnv(t, c, tc.env).Findings); !reflect.DeepEqual(got, mode.want) {
					t.Errorf("%s (errata %v): %v, want %v", tc.flag, mode.o.Errata.Names(), got, mode.want)
				}
			}
		})
	}
}

func TestErrataSet(t *testing.T) {
	var e Errata
	if err := e.Set("no-such-reading"); err == nil || !strings.Contains(err.Error(), "null-as-absent") {
		t.Errorf("unknown errata: %v", err)
	}
	if err := e.Set("reference"); err != nil || e != Reference() {
		t.Errorf("reference preset: %v %+v", err, e)
	}
	if len(ErrataNames()) != len(errataFlags) || Reference().SkipCapabilityDigest || Reference().SkipDirectIDDerivation {
		t.Error("catalogue or preset is off")
	}
	for _, info := range ErrataNames() {
		t.Run(info.Name, func(t *testing.T) {
			var one Errata
			if err := one.Set(info.Name); err != nil || !reflect.DeepEqual(one.Names(), []string{info.Name}) {
				t.Errorf("%v %v", err, one.Names())
			}
		})
	}
}

func TestTrust(t *testing.T) {
	priv, err := trust.NewKey(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	_, greet := loadValid(t, "greet-full")
	if err := trust.Sign(greet, priv, "patch-worker"); err != nil {
		t.Fatal(err)
	}
	c := mustChecker(t, Options{FullSchema: true})
	strict := mustChecker(t, Options{FullSchema: true, RequireVerified: true})
	res := checkEnv(t, c, greet)
	if len(res.Findings) != 0 || res.Trust != "verified" {
		t.Fatalf("signed greet: %s %s", res.Trust, dump(res.Findings))
	}
	if res := checkEnv(t, strict, greet); len(res.Findings) != 0 {
		t.Errorf("signed greet under require-verified: %s", dump(res.Findings))
	}
	if got := RouteToken(greet["from"].(string)); got != strings.SplitN(greet["from"].(string), "@", 2)[1] {
		t.Errorf("route token of a handle: %s", got)
	}

	tampered := deepCopy(greet)
	tampered["body"].(map[string]any)["summary"] = "changed"
	res = checkEnv(t, c, tampered)
	if res.Trust != "rejected" || res.Valid(false) || RefusalReason(res.Findings) != "verification_failed" {
		t.Errorf("tampered: %s %q %s", res.Trust, RefusalReason(res.Findings), dump(res.Findings))
	}
	for _, id := range ids(checkEnv(t, strict, tampered).Findings) {
		if id == RuleRequireVerified.ID {
			t.Error("a rejected envelope also got the require-verified finding")
		}
	}
	stripped := deepCopy(greet)
	stripped["proof"] = nil
	if res := checkEnv(t, c, stripped); res.Trust != "rejected" || res.Valid(false) {
		t.Errorf("stripped proof: %s %s", res.Trust, dump(res.Findings))
	}

	_, plain := loadValid(t, "greet-full")
	if res := checkEnv(t, strict, plain); !reflect.DeepEqual(ids(res.Findings), []string{"POLICY-REQUIRE-VERIFIED"}) ||
		RefusalReason(res.Findings) != "verification_failed" {
		t.Errorf("unverified under require-verified: %s", dump(res.Findings))
	}
}

func TestRefusalReasonOrder(t *testing.T) {
	f := func(r *rules.Rule) rules.Finding { return rules.Finding{Rule: r} }
	for _, tc := range []struct {
		fs   []rules.Finding
		want string
	}{
		{nil, ""},
		{[]rules.Finding{f(RuleExtNamespace), f(RuleReceiptTo)}, ""},
		{[]rules.Finding{f(RuleExpired), f(RuleChannel)}, "malformed"},
		{[]rules.Finding{f(RuleSayText), f(RuleExpired)}, "expired"},
		{[]rules.Finding{f(RuleRequireVerified), f(RuleSayText)}, "malformed"},
		{[]rules.Finding{f(RuleCapDigest)}, "verification_failed"},
		{[]rules.Finding{f(RuleKind)}, "unsupported_kind"},
		{[]rules.Finding{f(RuleDirectDerivation), f(RuleRequireVerified)}, "verification_failed"},
		{[]rules.Finding{f(RuleExpired), f(rules.InputTooLarge)}, "malformed"},
	} {
		t.Run(findingsName(tc.fs), func(t *testing.T) {
			if got := RefusalReason(tc.fs); got != tc.want {
				t.Errorf("RefusalReason(%s) = %q, want %q", dump(tc.fs), got, tc.want)
			}
		})
	}
	for _, r := range Rules() {
		if r.Profile == "agh" && r.Reason != "" && !IsReasonCode(r.Reason) {
			t.Errorf("%s refuses with unregistered reason %q", r.ID, r.Reason)
		}
	}
}

func deepCopy(m map[string]any) map[string]any {
	var cp func(v any) any
	cp = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			o := make(map[string]any, len(t))
			for k, e := range t {
				o[k] = cp(e)
			}
			return o
		case []any:
			o := make([]any, len(t))
			for i, e := range t {
				o[i] = cp(e)
			}
			return o
		}
		return v
	}
	return cp(m).(map[string]any)
}

// findingsName names a list of findings for a subtest: its rule ids joined
// by "+", or "none".
func findingsName(fs []rules.Finding) string {
	if len(fs) == 0 {
		return "none"
	}
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule.ID)
	}
	return strings.Join(ids, "+")
}
