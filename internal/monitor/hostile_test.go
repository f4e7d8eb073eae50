package monitor

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// Every sink writes what peers on the watched broker choose (peer ids,
// subjects, ids, found values) and the broker's URL: nothing of it reaches
// the output raw, and a password in the URL not at all.
func TestSinksSanitise(t *testing.T) {
	const h = "\x1b]0;pwned\x07\u009b2J\u202e\r\n::error title=forged::x"
	rule := &rules.Rule{ID: "TEST-RULE", Severity: rules.Error, Clause: "A test MUST hold."}
	f := Finding{Finding: rules.Finding{Rule: rule, Pointer: "/" + h, Found: h, Message: h},
		At: time.Unix(0, 0), Subject: "agh.network.v0." + h, Peer: h, ID: h, Kind: h, WorkID: h}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			s, err := NewSink(format, &b, false)
			if err != nil {
				t.Fatal(err)
			}
			s.Finding(f)
			sum := &Summary{URL: "nats://alice:hunter2-secret@broker:4222", Subject: h}
			s.Tick(sum)
			if err := s.Close(sum); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if format == "live" {
				// The live view clears the screen itself: its own ESC [H ESC [2J.
				out = strings.ReplaceAll(out, "\x1b[H\x1b[2J", "")
			}
			if strings.ContainsAny(out, "\x1b\r\u009b\u202e\x07") || strings.Contains(out, "hunter2-secret") {
				t.Errorf("%q", out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "::error title=forged") {
					t.Errorf("forged workflow command %q", l)
				}
			}
			if !strings.Contains(out, sanitize.Redacted) {
				t.Errorf("the URL's password is not shown redacted: %q", out)
			}
		})
	}
}
