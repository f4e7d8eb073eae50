package harness

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// sayOf is a valid say on the broadcast subject of ws_run/builders from
// the IUT, padded to size bytes.
func sayOf(t *testing.T, size int) []byte {
	t.Helper()
	head := `{"protocol":"agh-network/v0","id":"` + strings.Repeat("0", 8) + `","workspace_id":"ws_run","kind":"say","channel":"builders",` +
		`"from":"iut.1","to":null,"surface":"thread","thread_id":"t1","ts":1,"proof":null,"body":{"text":"`
	tail := `"}}`
	return []byte(head + strings.Repeat("x", max(size-len(head)-len(tail), 0)) + tail)
}

// What the run keeps of a message is bounded once it is judged: a small
// one whole (its transcript entry shows it whole), a large one only the
// first bytes its entry quotes. And once the IUT has published more bytes
// than the budget, nothing more is judged or kept, and the flood is named
// with the limit it passed.
func TestBusKeepsWithinTheBudget(t *testing.T) {
	bus := newBus(time.Now(), "ws_run", "builders", true, floodBudget{messages: 1000, bytes: 4 << 20}, time.Now)
	floods := 0
	bus.onFlood = func() { floods++ }
	subject := "agh.network.v0.ws_run.builders.broadcast"
	small := sayOf(t, 1000)
	bus.receive(subject, small)
	large := sayOf(t, 1<<20)
	for range 6 {
		bus.receive(subject, large)
	}
	if !bus.flooded || floods != 1 {
		t.Fatalf("flooded %v, told %d times; want one flood after 4 MiB", bus.flooded, floods)
	}
	if len(bus.passive) != 4 || bus.iutCount != 7 || bus.iutBytes != int64(len(small)+6*len(large)) {
		t.Fatalf("%d judged, %d counted, %d bytes; want 4 judged (the small one and three of 1 MiB), 7 counted", len(bus.passive), bus.iutCount, bus.iutBytes)
	}
	if m := bus.passive[0]; !bytes.Equal(m.kept, small) || m.size != len(small) {
		t.Errorf("the small message kept %d of its %d bytes, want all", len(m.kept), m.size)
	}
	for _, m := range bus.passive[1:] {
		if len(m.kept) != entryRawShown || m.size != len(large) {
			t.Errorf("a 1 MiB message kept %d bytes (size %d), want %d", len(m.kept), m.size, entryRawShown)
		}
		if cap(m.kept) > 2*entryRawShown {
			t.Errorf("what is kept of a 1 MiB message pins %d bytes", cap(m.kept))
		}
		if m.env == nil || m.kind() != "say" {
			t.Errorf("a large message was not judged: %v", m.env)
		}
	}
	// Its transcript entry is what it was before: the first bytes, and
	// the size.
	e := receivedEntry(bus.passive[1])
	if e.Envelope != nil || !strings.HasSuffix(e.Raw, "(1048576 bytes)") {
		t.Errorf("entry of a 1 MiB message: %q", clipped(e.Raw))
	}
	if e := receivedEntry(bus.passive[0]); e.Envelope == nil {
		t.Errorf("entry of a small message does not show it: %q", e.Raw)
	}
	why, at := bus.floodReason()
	if !strings.Contains(why, "more than 4.0 MiB") || at <= 0 {
		t.Errorf("flood reason %q at %v", why, at)
	}
	if ex := floodExample(bus); !strings.Contains(ex, "7 messages, 6.0 MiB, in all") {
		t.Errorf("flood example %q", ex)
	}
}

func clipped(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// The messages limit is still a flood of its own.
func TestBusMessageFlood(t *testing.T) {
	bus := newBus(time.Now(), "ws_run", "builders", true, floodBudget{messages: 3, bytes: defaultFloodBytes}, time.Now)
	for range 5 {
		bus.receive("agh.network.v0.ws_run.builders.broadcast", sayOf(t, 500))
	}
	if why, _ := bus.floodReason(); len(bus.passive) != 3 || !strings.Contains(why, "more than 3 messages") {
		t.Fatalf("%d judged, reason %q", len(bus.passive), why)
	}
}

// What a death says was sent last is a few words whatever was sent: a
// quote of a 1 MiB send, or an id of 60 KiB, are clipped.
func TestBriefIsBounded(t *testing.T) {
	huge := newEntry(0, "sent", "alice", "s", bytes.Repeat([]byte{0xff, 'x'}, 1<<19))
	bigID := newEntry(0, "sent", "alice", "s", []byte(`{"kind":"say","id":"`+strings.Repeat("é", 30000)+`"}`))
	repeated := newEntry(0, "sent", "alice", "s", []byte("not json"))
	repeated.Raw += " ×3"
	for _, e := range []*report.ExchangedEntry{huge, bigID, repeated} {
		b := brief(e)
		if len(b) > briefMax+64 || !utf8.ValidString(b) {
			t.Errorf("brief is %d bytes (valid UTF-8: %v): %q", len(b), utf8.ValidString(b), clipped(b))
		}
	}
	if b := brief(huge); !strings.HasSuffix(b, `…" (1048576 bytes)`) {
		t.Errorf("brief of a 1 MiB send lost its size: %q", b)
	}
	if b := brief(repeated); b != `"not json" (8 bytes) ×3` {
		t.Errorf("brief of a short send: %q", b)
	}
}

// A peer that publishes 256 KiB envelopes without pause floods a run whose
// budget is 4 MiB: the run says so (NATS-PUBLISH-RATE, with the limit it
// passed), stops at once, and blames nothing else on it: no scenario fails
// for what went unheard after the flood, and no death is made of the
// answers it did not hear.
func TestByteFloodEndsTheRun(t *testing.T) {
	t.Parallel()
	var scs []*scenario.Scenario
	for _, sc := range loadSuites(t) {
		if !strings.HasPrefix(sc.ID, "receiver.") {
			scs = append(scs, sc)
		}
	}
	rep := runAgainst(t, "peer:flood-bytes:256KiB", config{Target: Target{FloodBytes: 4 << 20}, Scenarios: scs})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if !rep.Passive.Flooded || rep.Passive.Outcome != report.Fail || rep.Summary.Passed {
		t.Fatalf("flood not reported: passive %+v", rep.Passive)
	}
	named := false
	for _, f := range rep.Passive.Findings {
		switch f.Rule {
		case requirements.NATSFlood.ID:
			named = strings.Contains(f.Example, "more than 4.0 MiB")
		case requirements.PeerSurvives.ID:
			t.Errorf("a death was made of the flood: %s", f.Example)
		}
	}
	if !named {
		t.Errorf("no flood finding naming the 4 MiB budget: %+v", rep.Passive.Findings)
	}
	for _, ev := range rep.IUT.Events {
		if ev.Death() {
			t.Errorf("liveness event %s", ev)
		}
	}
	errs := 0
	for _, sc := range rep.Scenarios {
		switch sc.Outcome {
		case report.Fail, report.Warn:
			t.Errorf("%s: %s %s", sc.ID, sc.Outcome, sc.Message)
		case report.Error:
			errs++
			if !strings.Contains(sc.Message, "the IUT flooded the run") {
				t.Errorf("%s: error %q, want the flood named", sc.ID, sc.Message)
			}
		}
		for _, st := range sc.Steps {
			if st.Outcome == report.Fail {
				t.Errorf("%s step %d failed after the flood: %s", sc.ID, st.Index, st.Message)
			}
		}
	}
	if errs == 0 || !rep.Summary.Incomplete {
		t.Errorf("%d errors, summary %+v: want the scenarios after the flood unplayed", errs, rep.Summary)
	}
	// Stopped by the flood, not by each scenario's step timeout.
	if waited := ceilingEnded(rep); len(waited) > 0 {
		t.Errorf("steps that waited out a ceiling: %v", waited)
	}
}

// A session's budget is per batch: a flooding IUT floods each batch, whose
// scenarios are not judged, and the next batch is played (not taken for an
// IUT that did not come back), with no death made of the flood.
func TestSessionFloodIsPerBatch(t *testing.T) {
	t.Parallel()
	var pick []*scenario.Scenario
	for _, sc := range loadSuites(t) {
		if sc.ID == "kinds.whois-directed-answered" {
			pick = append(pick, sc)
		}
	}
	s, err := Open(context.Background(), Target{Command: selfIUT(t), Env: []string{"AGHCHECK_TEST_IUT=peer:flood-bytes:256KiB"},
		GreetTimeout: 10 * time.Second, StepTimeout: 3 * time.Second, FloodBytes: 600 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// How much of the flood lands in one batch depends on the machine:
	// batches are played until two were flooded.
	flooded := 0
	for batch := 0; batch < 8 && flooded < 2; batch++ {
		b, err := s.Play(pick, PlayOptions{})
		if err != nil {
			t.Fatalf("batch %d: %v", batch, err)
		}
		if len(b.Results) != 1 || len(b.Events) > 0 {
			t.Fatalf("batch %d: results %d, events %v", batch, len(b.Results), b.Events)
		}
		if res := b.Results[0]; res.Outcome != report.Pass && !strings.Contains(res.Message, "the IUT flooded the run") {
			t.Errorf("batch %d: %s %q, want a pass or the flood named", batch, res.Outcome, res.Message)
		}
		if b.Flooded {
			flooded++
			if !strings.Contains(b.Flood, "more than 600.0 KiB") {
				t.Errorf("batch %d: flood %q", batch, b.Flood)
			}
		}
	}
	if flooded < 2 {
		t.Fatalf("%d flooded batches of 8", flooded)
	}
}

// Whatever a scenario says (one built in code, past the file checks, or a
// subject made of a capture of the IUT's), the harness publishes only on
// the run's subjects: the send is refused, and the scenario is an error.
func TestSendOutsideTheRunRefused(t *testing.T) {
	t.Parallel()
	var base *scenario.Scenario
	for _, sc := range loadSuites(t) {
		if sc.ID == "kinds.whois-directed-answered" {
			base = sc
		}
	}
	if base == nil {
		t.Fatal("no kinds.whois-directed-answered")
	}
	var scs []*scenario.Scenario
	for k, bad := range []struct{ subject, reply string }{{subject: "orders.evil"}, {subject: "$JS.API.STREAM.DELETE.PROD_ORDERS"}, {reply: "$JS.API.STREAM.PURGE.X"}} {
		sc := *base
		sc.ID = fmt.Sprintf("%s.%d", base.ID, k)
		sc.Steps = slices.Clone(base.Steps)
		for i := range sc.Steps {
			if s := sc.Steps[i].Send; s != nil {
				c := *s
				c.Subject, c.Reply = bad.subject, bad.reply
				sc.Steps[i].Send = &c
				break
			}
		}
		scs = append(scs, &sc)
	}
	rep := runAgainst(t, "peer", config{Scenarios: scs})
	for _, res := range rep.Scenarios {
		if res.Outcome != report.Error || !strings.Contains(res.Message, "publish refused") || !strings.Contains(res.Message, "is not one of the run's subjects") {
			t.Errorf("%s: %s %q, want the publish refused", res.ID, res.Outcome, res.Message)
		}
	}
}
