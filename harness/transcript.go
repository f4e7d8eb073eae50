package harness

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
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
	return keptEntry(at, direction, peer, subject, data, len(data))
}

// keptEntry is newEntry for bytes of which only kept (keep) is left of the
// size published.
func keptEntry(at time.Duration, direction, peer, subject string, kept []byte, size int) *report.ExchangedEntry {
	e := &report.ExchangedEntry{At: report.Millis(at), Direction: direction, Peer: peer, Subject: subject}
	if len(kept) == size && size <= entryJSONMax && json.Valid(kept) && utf8.Valid(kept) {
		e.Envelope = json.RawMessage(kept)
		return e
	}
	e.Raw = fmt.Sprintf("%q (%d bytes)", kept[:min(len(kept), entryRawShown)], size)
	return e
}

// keep is what the run keeps of an IUT message's bytes once they are
// judged: all of them when a transcript entry may show them whole, else
// only the first bytes an entry quotes. So a run holds at most entryJSONMax
// bytes of each message it judged, whatever the IUT published, and a copy:
// nothing pins the buffer the bytes came in.
func keep(data []byte) []byte {
	if len(data) <= entryJSONMax {
		return bytes.Clone(data)
	}
	return bytes.Clone(data[:entryRawShown])
}

// receivedEntry is the entry for a message from the IUT, with what the
// rule engine found in it.
func receivedEntry(m *message) *report.ExchangedEntry {
	e := keptEntry(m.at, "received", "", m.subject, m.kept, m.size)
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

// briefMax bounds what brief says of one send (before the tail that
// gives its size): a death's last_sent quotes two, whatever they were.
const briefMax = 200

// brief is the entry in a few words: its kind and id with its first bytes,
// for a line that says what a scenario sent before the IUT died.
func brief(e *report.ExchangedEntry) string {
	if e.Envelope == nil {
		// "quoted bytes" (N bytes) ×times: the quote is clipped, the size
		// kept.
		head, tail := e.Raw, ""
		if i := strings.LastIndex(e.Raw, `" (`); i > 0 {
			head, tail = e.Raw[:i], e.Raw[i:]
		}
		return rules.Clip(head, briefMax, "…") + tail
	}
	var env struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
	}
	_ = json.Unmarshal(e.Envelope, &env)
	return rules.Clip(fmt.Sprintf("%s %s %s", cmp.Or(rules.Clip(env.Kind, 32, "…"), "an envelope"), rules.Clip(env.ID, 64, "…"), e.Envelope), briefMax, "…")
}
