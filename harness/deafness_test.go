package harness

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
)

// testDeafAfter shortens the least deaf window in tests: what is named
// and hunted is the same, found sooner.
const testDeafAfter = 2 * time.Second

// A peer that goes deaf on its own subject and stays connected (what
// nats.js does when a subscription callback throws): the deafness is named
// with the scenario that causes it, only such scenarios fail (played alone
// on a fresh IUT), each naming the deafness, and the rest pass after
// restarts.
func TestDeafnessIsNamedAndTheRunGoesOn(t *testing.T) {
	t.Parallel() // it mostly waits for deafness to show
	some := regexp.MustCompile(`^(kinds|delivery|receiver\.(WHOIS|ENV-ID|ENV-KIND))`)
	// The correct peer's run, for comparison, is played meanwhile.
	done := make(chan *report.Report, 1)
	go func() { done <- runAgainst(t, "peer", config{Select: some}) }()
	rep := runAgainst(t, "peer:deaf-on:whois-query-type", config{Target: Target{GreetTimeout: 3 * time.Second}, Select: some, deafAfter: testDeafAfter})
	correct := <-done
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	dump(t, rep)
	if len(rep.IUT.Killers) == 0 {
		t.Fatal("no killer named")
	}
	for _, k := range rep.IUT.Killers {
		if !strings.HasPrefix(k.Scenario, "receiver.WHOIS-QUERY-TYPE.") || k.Event != report.LifeDeaf || !strings.Contains(k.Message, "went deaf") {
			t.Errorf("killer %+v, want a receiver.WHOIS-QUERY-TYPE case that made it deaf", k)
		}
	}
	fails := 0
	for _, sc := range rep.Scenarios {
		switch sc.Outcome {
		case report.Fail:
			fails++
			if !strings.Contains(sc.Message, "kills the IUT") || !strings.Contains(sc.Message, "went deaf") {
				t.Errorf("%s fails with %q, want the deafness named", sc.ID, sc.Message)
			}
		case report.Error:
			t.Errorf("%s: error %q", sc.ID, sc.Message)
		}
	}
	if fails == 0 || fails > 6 {
		t.Errorf("%d scenarios fail, want 1 to 6", fails)
	}
	if rep.Summary.Pass < correct.Summary.Pass-6 {
		t.Errorf("%d pass, want at most 6 fewer than the correct peer's %d", rep.Summary.Pass, correct.Summary.Pass)
	}
	deaf := 0
	for _, ev := range rep.IUT.Events {
		if ev.Kind == report.LifeDeaf {
			deaf++
			// Its subscription is gone: the broker shows it at once, no
			// window without answers is waited out.
			if !strings.Contains(ev.Cause, "it no longer subscribes to its peer subject") || !strings.Contains(ev.Cause, "broadcast") {
				t.Errorf("deafness %s does not say the subscription is gone and where it still listens", ev)
			}
		}
	}
	if deaf == 0 || rep.IUT.Restarts == 0 || rep.Summary.Incomplete {
		t.Errorf("%d deafnesses, %d restarts, incomplete %v: want deafness, restarts and a complete run", deaf, rep.IUT.Restarts, rep.Summary.Incomplete)
	}
}

// A peer that closes its connection on a timer, whatever it is sent: the
// disconnect is named, the deaths are found to come at the same uptime
// with nothing sent, and no scenario is blamed.
func TestTimedDeathBlamesNoScenario(t *testing.T) {
	t.Parallel() // it mostly waits for the timer
	rep := runAgainst(t, "peer:hang-up-after:1500ms,slow:700ms", config{Target: Target{GreetTimeout: 3 * time.Second, BackTimeout: 200 * time.Millisecond, MaxRestarts: 6},
		Select: regexp.MustCompile(`^kinds\.`)})
	dump(t, rep)
	if len(rep.IUT.Killers) > 0 {
		t.Errorf("killers %+v, want none: the deaths follow a timer", rep.IUT.Killers)
	}
	disconnects, timed := 0, false
	for _, ev := range rep.IUT.Events {
		if ev.Kind == report.LifeDisconnected {
			disconnects++
			if !strings.Contains(ev.Cause, "Client Closed") {
				t.Errorf("disconnect %s does not name the close", ev)
			}
		}
		timed = timed || strings.Contains(ev.Blame, "whatever is sent")
	}
	if disconnects == 0 || !timed {
		t.Errorf("%d disconnects, timed %v; want the disconnects named and found to come whatever is sent: %+v", disconnects, timed, rep.IUT.Events)
	}
	for _, sc := range rep.Scenarios {
		if sc.Outcome == report.Fail || sc.Killed {
			t.Errorf("%s: %s %q, want no scenario blamed", sc.ID, sc.Outcome, sc.Message)
		}
	}
	// Nor is the IUT charged for them as a sender.
	if hasFinding(rep, "PEER-SURVIVES-INPUT") || rep.Passive.Outcome == report.Fail {
		t.Errorf("passive %s with findings %+v, want deaths without a cause charged nowhere", rep.Passive.Outcome, rep.Passive.Findings)
	}
}

// While a run waits on a slow IUT, Config.Waiting hears what is awaited
// (a scenario's step) and for how long, and once more when nothing is.
func TestWaitingNamesTheStep(t *testing.T) {
	t.Parallel()
	var waits []Wait
	rep := runAgainst(t, "peer:slow:700ms", config{Select: regexp.MustCompile(`^kinds\.whois-directed-answered$`),
		Target: Target{Waiting: func(w Wait) { waits = append(waits, w) }}})
	if rep.Summary.Pass != 1 {
		t.Fatalf("summary %+v, want the one scenario passed", rep.Summary)
	}
	step := false
	for _, w := range waits {
		step = step || (strings.Contains(w.For, "kinds.whois-directed-answered step ") && w.Elapsed >= waitingEvery && w.Run >= w.Elapsed)
	}
	if !step || len(waits) == 0 || !waits[len(waits)-1].Done {
		t.Errorf("waits %+v, want the step awaited and a last Done", waits)
	}
}

// A death follows an input closely when the input came at most the span
// before the death began, and not after it.
func TestCloseTo(t *testing.T) {
	at := func(d time.Duration) *report.ExchangedEntry { return &report.ExchangedEntry{At: report.Millis(d)} }
	a := &attempt{sent: []*report.ExchangedEntry{at(time.Second), at(5 * time.Second)}}
	for _, c := range []struct {
		after, at time.Duration
		want      bool
	}{
		{time.Second, time.Second, true},                        // at the input
		{2900 * time.Millisecond, 3 * time.Second, true},        // within 2s of the first
		{3100 * time.Millisecond, 4 * time.Second, false},       // too late for the first, before the second
		{4 * time.Second, 6 * time.Second, true},                // the second falls in the span
		{8 * time.Second, 8 * time.Second, false},               // long after both
		{500 * time.Millisecond, 900 * time.Millisecond, false}, // before any input
	} {
		if got := a.closeTo(&death{after: c.after, at: c.at}, 2*time.Second); got != c.want {
			t.Errorf("death %v..%v: closeTo %v, want %v", c.after, c.at, got, c.want)
		}
	}
	if !sameSpan(4800*time.Millisecond, 4500*time.Millisecond) || sameSpan(time.Second, 2*time.Second) || !sameSpan(60*time.Second, 55*time.Second) {
		t.Error("sameSpan: within half a second or a tenth")
	}
	// A timer from the greet shows when the processes took unequal times
	// to start, and one from the process's start when they greeted late.
	s := time.Second
	if !sameUptime(uptime{proc: 3 * s, greeted: 1500 * time.Millisecond}, uptime{proc: 2 * s, greeted: 1500 * time.Millisecond}) ||
		!sameUptime(uptime{proc: 3 * s, greeted: 2 * s}, uptime{proc: 3 * s, greeted: s}) ||
		sameUptime(uptime{proc: 3 * s, greeted: 2 * s}, uptime{proc: 2 * s, greeted: s}) {
		t.Error("sameUptime: either count agreeing")
	}
}

// A peer that stops processing anything after one payload that is not a
// JSON object, still connected and subscribed: only a window without
// answers shows it deaf. The first deafness of the run is told by the
// whole window; once it has been seen deaf, a deafness again is told by a
// probe that goes unanswered for half a second, so that the hunt for the
// scenario that makes it deaf costs a second a death, not five. The
// verdict is the same: the scenario that sends the garbage is blamed,
// reproducibly.
func TestDeafAgainIsToldSooner(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "peer:deaf-after-garbage", config{Target: Target{GreetTimeout: 3 * time.Second},
		Select: regexp.MustCompile(`^(delivery\.garbage-survived|kinds\.)`)})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	dump(t, rep)
	after := regexp.MustCompile(`unanswered after ([0-9.]+m?s);`)
	var waits []time.Duration
	for _, ev := range rep.IUT.Events {
		if ev.Kind != report.LifeDeaf {
			continue
		}
		m := after.FindStringSubmatch(ev.Cause)
		if m == nil {
			t.Fatalf("deafness %s does not say how long its probe went unanswered", ev)
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, d)
	}
	if len(waits) < 2 {
		t.Fatalf("%d deafnesses, want the first and the hunt's: %+v", len(waits), rep.IUT.Events)
	}
	// The first probe waited out the window from the last answer; each
	// later one only its grace (a loaded machine polls late: far below
	// the window still).
	if waits[0] < deafAfter-probeQuiet-deafPoll {
		t.Errorf("the first deafness was told after %s, want the whole window", waits[0])
	}
	for _, w := range waits[1:] {
		if w >= deafAfter/2 {
			t.Errorf("a deafness again was told after %s (%v), want about %s", w, waits, probeGrace)
		}
	}
	if len(rep.IUT.Killers) != 1 || rep.IUT.Killers[0].Scenario != "delivery.garbage-survived" {
		t.Errorf("killers %+v, want delivery.garbage-survived blamed", rep.IUT.Killers)
	}
}
