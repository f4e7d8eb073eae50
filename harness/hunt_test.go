package harness

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
)

// A scenario interrupted by deaths it did not cause is left unplayed after
// maxInterrupts deaths that followed no input closely (an IUT dying on a
// timer), but stays in play beside killers: each death that followed
// another scenario's input closely weighs a third.
func TestSiftWeighsDeathsByCause(t *testing.T) {
	t.Parallel()
	sent := func(at time.Duration) []*report.ExchangedEntry {
		return []*report.ExchangedEntry{{At: report.Millis(at)}}
	}
	play := func(killerBeside bool) (deaths int, msg string) {
		r := &runner{hunting: newHunting()}
		r.life = newLiveness(r)
		rep := &report.Report{Scenarios: []*report.ScenarioResult{{ID: "innocent"}, {ID: "killer"}}}
		for n := 1; n <= 3*maxInterrupts; n++ {
			at := time.Duration(n) * time.Minute
			d := &death{after: at, at: at}
			innocent := &attempt{i: 0, res: rep.Scenarios[0], sent: sent(at - 30*time.Second)} // long before
			as := []*attempt{innocent}
			if killerBeside {
				as = append(as, &attempt{i: 1, res: rep.Scenarios[1], sent: sent(at - time.Millisecond)})
			}
			back, suspects := r.sift(rep, d, as)
			if killerBeside && len(suspects) != 1 {
				t.Fatalf("death %d: suspects %d, want the killer", n, len(suspects))
			}
			if len(back) == 0 {
				return n, rep.Scenarios[0].Message
			}
		}
		return 0, ""
	}
	if n, msg := play(false); n != maxInterrupts || !strings.Contains(msg, "interrupted by 4 deaths") {
		t.Errorf("alone with causeless deaths: left unplayed after %d deaths (%q), want %d", n, msg, maxInterrupts)
	}
	if n, _ := play(true); n != 3*maxInterrupts {
		t.Errorf("beside a killer: left unplayed after %d deaths, want %d (a third of the weight)", n, 3*maxInterrupts)
	}
}

// Every killer is found, whatever the budget: a hunt that finds its killer
// gives its replays back, so that seven scenarios killing one peer are
// each blamed on every run, not as many as a budget of ten replays
// allows with the rest left unplayed.
func TestEveryKillerFound(t *testing.T) {
	t.Parallel() // it mostly waits for deafness to show
	garbage := regexp.MustCompile(`^(receiver\.INPUT-|delivery\.garbage|envelope\.|nats\.payload-one)`)
	rep := runAgainst(t, "peer:deaf-after-garbage", config{Select: garbage, huntBudget: 10, deafAfter: testDeafAfter})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	killed := 0
	for _, sc := range rep.Scenarios {
		switch {
		case sc.Outcome == report.Error:
			t.Errorf("%s: %s, want it played", sc.ID, sc.Message)
		case sc.Killed:
			killed++
		}
	}
	if killed < 7 || len(rep.IUT.Killers) != killed {
		dump(t, rep)
		t.Errorf("%d scenarios blamed, %d killers named; want the seven that send what is not one JSON envelope, each named", killed, len(rep.IUT.Killers))
	}
}
