package monitor

import (
	"bytes"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

// TestSinkGolden: each output format over the same findings and summary.
func TestSinkGolden(t *testing.T) {
	at := time.Date(2026, 4, 16, 18, 3, 0, 0, time.UTC)
	findings := []Finding{
		{Finding: rules.Finding{Rule: requirements.LifeTransitions, Pointer: "/body/state", Expected: "never back to submitted (work is working)", Found: "submitted"},
			At: at, Subject: "agh.network.v0.ws_alpha.builders.peer.0123", Peer: "patch-worker.s19", ID: "msg_trace_2", Kind: "trace", WorkID: "work_1"},
		{Finding: rules.Finding{Rule: requirements.LifeTransitions, Pointer: "/body/state", Expected: "a state that may follow submitted", Found: "completed"},
			At: at, Subject: "agh.network.v0.ws_alpha.builders.peer.0123", Peer: "patch-worker.s19", ID: "msg_trace_3", Kind: "trace", WorkID: "work_2"},
		{Finding: rules.Finding{Rule: requirements.DiscGreetHeartbeat, Expected: "a greet at least every 30s (expired after 1m0s)", Found: "no greet for 1m12s"},
			At: at.Add(time.Second), Subject: "agh.network.v0.ws_alpha.builders.broadcast", Peer: "ops.s42", ID: "msg_say_9", Kind: "say"},
		{Finding: rules.Finding{Rule: Dropped, Message: "12 messages dropped by the NATS client"}, At: at.Add(2 * time.Second), Subject: "agh.network.v0.>"},
	}
	sum := &Summary{
		URL: "nats://127.0.0.1:4222", Subject: "agh.network.v0.>", Started: at, Elapsed: 75 * time.Second,
		Delivered: 1012, Judged: 1000, Dropped: 12, Repeats: 3, Rate: 13.3, Errors: 3, Warnings: 1,
		Rules: []RuleCount{{"LIFE-TRANSITIONS", "MUST", 2}, {"DISC-GREET-HEARTBEAT", "SHOULD", 1}, {"MONITOR-DROPPED", "MUST", 1}},
		Peers: []PeerCount{{Peer: "patch-worker.s19", Envelopes: 600, Errors: 2, LastSeen: at},
			{Peer: "ops.s42", Envelopes: 400, Warnings: 1, LastSeen: at, Expired: true}},
		Tracker:  workunit.Stats{Envelopes: 1000, Units: 250, Open: 3, IDs: 997, Peers: 2},
		Expired:  1,
		PeakHeap: 24 << 20,
	}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			s, err := NewSink(format, &buf, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				s.Finding(f)
			}
			s.Tick(sum)
			if err := s.Close(sum); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/"+format+".golden", buf.Bytes())
		})
	}
	if _, err := NewSink("yaml", &bytes.Buffer{}, false); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// TestSummaryCounts: one of anything is singular, and a slow rate keeps a
// decimal instead of reading as 0/s.
func TestSummaryCounts(t *testing.T) {
	sum := &Summary{Subject: "agh.network.v0.>", URL: "nats://127.0.0.1:4222", Elapsed: 6 * time.Second,
		Delivered: 1, Judged: 1, Repeats: 1, Rate: 0.2, Tracker: workunit.Stats{Units: 1, Peers: 1}}
	var buf bytes.Buffer
	writeSummary(&buf, sum, painter{}, 0)
	for _, want := range []string{"judged 1 envelope of 1 delivered (0 dropped), 0.2/s; 1 repeat\n", "1 work unit followed (0 open), 1 peer (0 expired)"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}
