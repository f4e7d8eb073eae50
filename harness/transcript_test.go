package harness

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNewEntryKeepsTheReportValid(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     string
		envelope bool
	}{
		{"json", `{"kind":"say"}`, true},
		{"not json", `{"kind":`, false},
		{"invalid utf-8 in a string", "{\"text\":\"\xff\"}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEntry(0, "received", "", "agh.network.v0.x", []byte(tc.data))
			if got := e.Envelope != nil; got != tc.envelope {
				t.Fatalf("envelope kept = %v, want %v", got, tc.envelope)
			}
			out, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(out) || !json.Valid(out) {
				t.Fatalf("entry marshals to invalid JSON text: %q", out)
			}
			if !tc.envelope && !strings.Contains(e.Raw, "bytes)") {
				t.Fatalf("raw form missing its byte count: %q", e.Raw)
			}
		})
	}
}
