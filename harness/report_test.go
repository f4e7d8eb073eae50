package harness

import (
	"encoding/json"
	"testing"
	"time"
)

// What a report names as certified: the flags first, then the Peer Card,
// then the peer id, then unknown.
func TestNameImplementation(t *testing.T) {
	card := map[string]any{"display_name": "Acme runtime", "version": "0.4.0"}
	for _, c := range []struct {
		name, flagName, flagVersion string
		iut                         IUTInfo
		wantName, wantVersion       string
	}{
		{"flags win", "acme", "1.2.3", IUTInfo{PeerID: "iut.1", Card: card}, "acme", "1.2.3"},
		{"the card", "", "", IUTInfo{PeerID: "iut.1", Card: card}, "Acme runtime", "0.4.0"},
		{"one flag", "", "v9", IUTInfo{PeerID: "iut.1", Card: card}, "Acme runtime", "v9"},
		{"peer id", "", "", IUTInfo{PeerID: "iut.1", Card: map[string]any{"version": 3}}, "iut.1", Unknown},
		{"never joined", "", "", IUTInfo{}, Unknown, Unknown},
	} {
		rep := &Report{IUT: c.iut}
		rep.NameImplementation(c.flagName, c.flagVersion)
		if rep.IUT.Implementation != c.wantName || rep.IUT.ImplementationVersion != c.wantVersion {
			t.Errorf("%s: %q %q, want %q %q", c.name, rep.IUT.Implementation, rep.IUT.ImplementationVersion, c.wantName, c.wantVersion)
		}
	}
}

// A scenario's own outcome, whatever a baseline or --strict made of it.
func TestActual(t *testing.T) {
	for _, c := range []struct {
		sc   ScenarioResult
		want Outcome
	}{
		{ScenarioResult{Outcome: Pass}, Pass},
		{ScenarioResult{Outcome: Fail}, Fail},
		{ScenarioResult{Outcome: Fail, StrictFail: true}, Warn},
		{ScenarioResult{Outcome: ExpectedFail, Baseline: &BaselineMark{Actual: Fail}}, Fail},
		{ScenarioResult{Outcome: ExpectedFail, Baseline: &BaselineMark{Actual: Warn}, StrictFail: true}, Warn},
		{ScenarioResult{Outcome: Skip}, Skip},
	} {
		if got := c.sc.Actual(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.sc, got, c.want)
		}
	}
}

// A JSON report's durations read back as written.
func TestMillisRoundTrip(t *testing.T) {
	in := Millis(1234567 * time.Microsecond)
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Millis
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Errorf("%s read back as %v (%v)", b, out.D(), err)
	}
	if err := json.Unmarshal([]byte(`"1s"`), &out); err == nil {
		t.Error("a string read as a duration")
	}
}
