package harness

import (
	"regexp"
	"sync"
	"testing"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/report"
)

const reconnectScenario = "nats.greet-after-reconnect"

// The disconnect step drops the IUT's connection at the embedded broker:
// the correct peer greets again and passes, one that does not greet again
// gets the SHOULD's warning; the scenario runs after every other one, and
// neither an outage nor a broker disconnect is put on the IUT.
func TestGreetAfterReconnect(t *testing.T) {
	t.Parallel()
	sel := regexp.MustCompile(`^(` + regexp.QuoteMeta(reconnectScenario) + `|lifecycle\.work-completes|kinds\.whois-directed-answered)$`)
	for _, tc := range []struct {
		mode string
		want report.Outcome
	}{
		{"peer", report.Pass},
		{"plain-peer", report.Pass},
		{"peer:no-greet-after-reconnect", report.Warn},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			var (
				mu    sync.Mutex
				order []string
			)
			rep := runAgainst(t, tc.mode, config{Scenarios: loadSuites(t), Select: sel, Progress: func(sc *report.ScenarioResult) {
				mu.Lock()
				order = append(order, sc.ID)
				mu.Unlock()
			}})
			if rep.Error != "" {
				t.Fatalf("harness error: %s", rep.Error)
			}
			if len(order) != 3 || order[2] != reconnectScenario {
				t.Errorf("scenarios ended in order %v, want %s alone, last", order, reconnectScenario)
			}
			for _, sc := range rep.Scenarios {
				want := report. // not selected
						Skip
				switch {
				case sc.ID == reconnectScenario:
					want = tc.want
				case sel.MatchString(sc.ID):
					want = report.Pass
				}
				if sc.Outcome != want {
					dump(t, rep)
					t.Errorf("%s: %s (%s %v), want %s", sc.ID, sc.Outcome, sc.Message, sc.Notes, want)
				}
			}
			if len(rep.Broker.Outages) != 0 || len(rep.IUT.Disconnects) != 0 || rep.Passive.Outcome != report.Pass {
				t.Errorf("outages %+v, disconnects %v, passive %s: the drop was put on the IUT",
					rep.Broker.Outages, rep.IUT.Disconnects, rep.Passive.Outcome)
			}
		})
	}
}

// On an external broker the harness cannot drop the IUT's connection: the
// scenario is skipped, saying so.
func TestGreetAfterReconnectExternalSkips(t *testing.T) {
	t.Parallel()
	n := startNode(t, "solo")
	ep := broker.Endpoint{URL: n.url(), User: n.opts.Username, Password: n.opts.Password, Token: n.opts.Authorization}
	rep := runAgainst(t, "peer", config{Target: Target{External: &ep}, Scenarios: loadSuites(t),
		Select: regexp.MustCompile(`^` + regexp.QuoteMeta(reconnectScenario) + `$`)})
	if rep.Error != "" {
		t.Fatalf("harness error: %s", rep.Error)
	}
	for _, sc := range rep.Scenarios {
		if sc.ID == reconnectScenario && (sc.Outcome != report.Skip || sc.Message != noDisconnect) {
			t.Errorf("%s: %s (%s), want skip: %s", sc.ID, sc.Outcome, sc.Message, noDisconnect)
		}
	}
}
