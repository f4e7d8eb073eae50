package harness

import (
	"encoding/json"
	"github.com/aghcheck/aghcheck/internal/report"
	"testing"
	"time"
)

// What a report names as certified: the flags first, then the Peer Card,
// then the peer id, then unknown.
func TestNameImplementation(t *testing.T) {
	card := map[string]any{"display_name": "Acme runtime", "version": "0.4.0"}
	for _, c := range []struct {
		name, flagName, flagVersion string
		iut                         report.IUTInfo
		wantName, wantVersion       string
	}{
		{"flags win", "acme", "1.2.3", report.IUTInfo{PeerID: "iut.1", Card: card}, "acme", "1.2.3"},
		{"the card", "", "", report.IUTInfo{PeerID: "iut.1", Card: card}, "Acme runtime", "0.4.0"},
		{"one flag", "", "v9", report.IUTInfo{PeerID: "iut.1", Card: card}, "Acme runtime", "v9"},
		{"peer id", "", "", report.IUTInfo{PeerID: "iut.1", Card: map[string]any{"version": 3}}, "iut.1", report.Unknown},
		{"never joined", "", "", report.IUTInfo{}, report.Unknown, report.Unknown},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := &report.Report{IUT: c.iut}
			rep.NameImplementation(c.flagName, c.flagVersion)
			if rep.IUT.Implementation != c.wantName || rep.IUT.ImplementationVersion != c.wantVersion {
				t.Errorf("%q %q, want %q %q", rep.IUT.Implementation, rep.IUT.ImplementationVersion, c.wantName, c.wantVersion)
			}
		})
	}
}

// A scenario's own outcome, whatever a baseline or --strict made of it.
func TestActual(t *testing.T) {
	for _, c := range []struct {
		name string
		sc   report.ScenarioResult
		want report.Outcome
	}{
		{"pass", report.ScenarioResult{Outcome: report.Pass}, report.Pass},
		{"fail", report.ScenarioResult{Outcome: report.Fail}, report.Fail},
		{"strict warning", report.ScenarioResult{Outcome: report.Fail, StrictFail: true}, report.Warn},
		{"expected failure", report.ScenarioResult{Outcome: report.ExpectedFail, Baseline: &report.BaselineMark{Actual: report.Fail}}, report.Fail},
		{"expected strict warning", report.ScenarioResult{Outcome: report.ExpectedFail, Baseline: &report.BaselineMark{Actual: report.Warn}, StrictFail: true}, report.Warn},
		{"skip", report.ScenarioResult{Outcome: report.Skip}, report.Skip},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.sc.Actual(); got != c.want {
				t.Errorf("%+v: %s, want %s", c.sc, got, c.want)
			}
		})
	}
}

// A JSON report's durations read back as written.
func TestMillisRoundTrip(t *testing.T) {
	in := report.Millis(1234567 * time.Microsecond)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out report.Millis
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Errorf("%s read back as %v (%v)", b, out.D(), err)
	}
	if err := json.Unmarshal([]byte(`"1s"`), &out); err == nil {
		t.Error("a string read as a duration")
	}
}
