package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

func receiverScenarios(t *testing.T, ids ...string) []*scenario.Scenario {
	t.Helper()
	var out []*scenario.Scenario
	for _, sc := range loadSuites(t) {
		if strings.HasPrefix(sc.ID, "receiver.") && (len(ids) == 0 || slices.Contains(ids, sc.ID)) {
			out = append(out, sc)
		}
	}
	if len(ids) > 0 && len(out) != len(ids) {
		t.Fatalf("found %d of the receiver cases %v", len(out), ids)
	}
	return out
}

// The receiver family, live on the embedded broker: the reference peer
// passes every generated case without a warning (so every refusal receipt
// the family expects arrived, in the right class).
func TestReceiverFamilyAgainstReferencePeer(t *testing.T) {
	t.Parallel()
	fam := receiverScenarios(t)
	if len(fam) < 120 {
		t.Fatalf("only %d receiver cases", len(fam))
	}
	rep := runAgainst(t, "peer", config{Scenarios: fam})
	dump(t, rep)
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	if s := rep.Summary; s.Pass != len(fam) {
		t.Errorf("summary %+v, want all %d cases to pass", s, len(fam))
	}
	if rep.Passive.Outcome != report.Pass {
		t.Errorf("passive %+v", rep.Passive)
	}
}

// Faults of the reference peer that accept a broken message, or refuse it
// in the wrong class, fail the cases that play that message, and only those.
func TestReceiverFamilyCatchesFaults(t *testing.T) {
	t.Parallel()
	cases := receiverScenarios(t, "receiver.SAY-TEXT.blank", "receiver.CAP-DIGEST.mismatch",
		"receiver.ENV-PROTOCOL.v1", "receiver.ENV-FROM-GRAMMAR.space", "receiver.TRUST-PROOF-ALG.alg-eddsa")
	for _, tc := range []struct {
		fault string
		want  map[string]string // case → outcome and the failing step's kind
	}{
		{"accept-malformed", map[string]string{
			"receiver.SAY-TEXT.blank": "fail expect_silence", // accepted and worked on
			// From a sender that is not the tester: the reply goes elsewhere,
			// but the work it opened refuses the tester's follow-up.
			"receiver.ENV-FROM-GRAMMAR.space": "fail expect",
			"receiver.CAP-DIGEST.mismatch":    "pass", "receiver.ENV-PROTOCOL.v1": "pass", "receiver.TRUST-PROOF-ALG.alg-eddsa": "pass",
		}},
		{"one-failure-class", map[string]string{
			// The class of a refusal is a SHOULD (DELIV-FAILURE-CLASSES), but
			// CAP-DIGEST's own MUST names verification_failed.
			"receiver.CAP-DIGEST.mismatch":       "fail expect_silence", // malformed, not verification_failed
			"receiver.ENV-PROTOCOL.v1":           "warn",                // malformed, not unsupported_profile
			"receiver.TRUST-PROOF-ALG.alg-eddsa": "warn",
			"receiver.SAY-TEXT.blank":            "pass", "receiver.ENV-FROM-GRAMMAR.space": "pass",
		}},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, "peer:"+tc.fault, config{Scenarios: cases})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			for _, sc := range rep.Scenarios {
				got := string(sc.Outcome)
				if sc.Outcome == report.Fail {
					got += " " + sc.Steps[len(sc.Steps)-1].Kind
				}
				if got != tc.want[sc.ID] {
					t.Errorf("%s: %s (%s), want %s", sc.ID, got, sc.Message, tc.want[sc.ID])
				}
			}
		})
	}
}
