package harness

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/report"
	"sort"
	"time"
	"unicode/utf8"
)

// What a transcript entry keeps of the bytes: JSON up to entryJSONMax
// whole, anything else quoted up to entryRawShown bytes. json.Valid lets
// invalid UTF-8 inside strings through, and such bytes embedded raw would
// make the JSON report itself invalid, so they are quoted too.
const (
	entryJSONMax  = 64 << 10
	entryRawShown = 512
)

// newEntry is the one place a transcript entry is made from bytes on the
// wire.
func newEntry(at time.Duration, direction, peer, subject string, data []byte) *report.ExchangedEntry {
	e := &report.ExchangedEntry{At: report.Millis(at), Direction: direction, Peer: peer, Subject: subject}
	if len(data) <= entryJSONMax && json.Valid(data) && utf8.Valid(data) {
		e.Envelope = json.RawMessage(data)
		return e
	}
	shown := data
	if len(shown) > entryRawShown {
		shown = shown[:entryRawShown]
	}
	e.Raw = fmt.Sprintf("%q (%d bytes)", shown, len(data))
	return e
}

// receivedEntry is the entry for a message from the IUT, with what the
// rule engine found in it.
func receivedEntry(m *message) *report.ExchangedEntry {
	e := newEntry(m.at, "received", "", m.subject, m.raw)
	for _, f := range m.findings {
		e.Findings = append(e.Findings, f.String())
	}
	return e
}

// transcript records what one scenario's test peers sent and what the IUT
// sent them. One scenario plays its steps in order, so it needs no lock.
type transcript struct {
	entries []*report.ExchangedEntry
}

// sent records bytes a test peer published, times times.
func (t *transcript) sent(at time.Duration, peer, subject string, data []byte, times int) {
	e := newEntry(at, "sent", peer, subject, data)
	if times > 1 {
		e.Raw += fmt.Sprintf(" ×%d", times)
	}
	t.entries = append(t.entries, e)
}

func (t *transcript) received(m *message) { t.entries = append(t.entries, receivedEntry(m)) }

// ordered is the transcript in the order the broker carried it.
func (t *transcript) ordered() []*report.ExchangedEntry {
	sort.SliceStable(t.entries, func(i, j int) bool { return t.entries[i].At < t.entries[j].At })
	return t.entries
}

// brief is the entry in a few words: its kind and id with its first bytes,
// for a line that says what a scenario sent before the IUT died.
func brief(e *report.ExchangedEntry) string {
	if e.Envelope == nil {
		return e.Raw
	}
	var env struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
	}
	_ = json.Unmarshal(e.Envelope, &env)
	shown := string(e.Envelope)
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	return fmt.Sprintf("%s %s %s", cmp.Or(env.Kind, "an envelope"), env.ID, shown)
}
