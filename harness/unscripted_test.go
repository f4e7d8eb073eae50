package harness

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
)

// The lifecycle scenarios any peer plays, judged on a correct peer without
// the control extension: container binding and non-participants are
// judged on work that runs at its own pace. The cancel scenario needs work
// held open, so such a peer, finishing at once, skips it for the
// extension it lacks, never passes it. The peer ignoring containers is
// caught without the extension too while its work is still open when the
// other container's message comes (pace:DURATION); once its work is over
// it refuses that message as work_closed, in the work's container, which a
// peer keeping the binding may do too (docs/errata.md, erratum 14): not
// observable, never a pass.
func TestUnscriptedLifecycle(t *testing.T) {
	t.Parallel()
	sel := regexp.MustCompile(`^lifecycle\.(cancel-idempotent|container-binding-unscripted|non-participant-unscripted)$`)
	for _, tc := range []struct {
		mode string
		want map[string]report.Outcome
	}{
		{"plain-peer", map[string]report.Outcome{"lifecycle.cancel-idempotent": report.Skip,
			"lifecycle.container-binding-unscripted": report.Pass, "lifecycle.non-participant-unscripted": report.Pass}},
		{"plain-peer:ignore-container", map[string]report.Outcome{"lifecycle.container-binding-unscripted": report.Skip}},
		// Work at the peer's own pace is open when the message sent right
		// behind its opening comes: the correct peer passes, the peer
		// keying work by work_id alone takes the other thread's message
		// as talk about the work (no refusal: a SHOULD), and the one
		// obeying anyone is cancelled by the third peer. A pace far past
		// any scheduling delay shows the verdict rests on order alone.
		{"plain-peer:pace:1m", map[string]report.Outcome{"lifecycle.container-binding-unscripted": report.Pass,
			"lifecycle.non-participant-unscripted": report.Pass}},
		{"plain-peer:pace:1m,ignore-container", map[string]report.Outcome{"lifecycle.container-binding-unscripted": report.Warn}},
		{"plain-peer:pace:1m,non-participant-obeyed", map[string]report.Outcome{"lifecycle.non-participant-unscripted": report.Fail}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			rep := runAgainst(t, tc.mode, config{Scenarios: loadSuites(t), Select: sel})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			for _, sc := range rep.Scenarios {
				want, ok := tc.want[sc.ID]
				if !ok {
					continue
				}
				if sc.Outcome != want {
					dump(t, rep)
					t.Errorf("%s: %s (%s), want %s", sc.ID, sc.Outcome, sc.Message, want)
				}
				why := "does not advertise profile aghcheck.control/v1"
				if sc.ID == "lifecycle.container-binding-unscripted" {
					why = "not observable: the work was refused as closed"
				}
				if want == report.Skip && !strings.Contains(sc.Message, why) {
					t.Errorf("%s skipped for %q, want %q", sc.ID, sc.Message, why)
				}
			}
		})
	}
}

// A started IUT that joined by answering the harness's whois sent no join
// greet: the scenarios judging that greet say so at once, whatever
// presence greet the peer sends later (whether one came before a step's
// ceiling would be its clock against the harness's).
func TestNoJoinGreetIsJudgedAtOnce(t *testing.T) {
	t.Parallel()
	sel := regexp.MustCompile(`^kinds\.(greet-announces-card|card-lists-v0)$`)
	// The greet timeout only has to let the peer connect before the
	// harness's whois: its presence greets come every 30 s.
	rep := runAgainst(t, "peer:no-join-greet", config{Scenarios: loadSuites(t), Select: sel, Target: Target{GreetTimeout: 5 * time.Second}})
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	for _, sc := range rep.Scenarios {
		if !sel.MatchString(sc.ID) {
			continue
		}
		if sc.Outcome != report.Warn || len(sc.Steps) == 0 || !strings.Contains(sc.Steps[0].Message, "did not greet on joining") {
			dump(t, rep)
			t.Errorf("%s: %s (%v), want a warning that it did not greet on joining", sc.ID, sc.Outcome, sc.Steps)
		}
	}
}
