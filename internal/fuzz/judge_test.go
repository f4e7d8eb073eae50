package fuzz

import (
	"slices"
	"testing"
)

// Findings of the same kind and rule are one, with a count and the inputs
// that showed it; each input that kills the IUT is a finding of its own.
func TestFindingsDeduplicate(t *testing.T) {
	fs := newFindings()
	for _, f := range []Finding{
		{Kind: KindWrongReason, Rule: "DELIV-FAILURE-CLASSES", Input: "ENV-TS", Level: "SHOULD"},
		{Kind: KindWrongReason, Rule: "DELIV-FAILURE-CLASSES", Input: "SAY-TEXT", Level: "SHOULD"},
		{Kind: KindWrongReason, Rule: "DELIV-FAILURE-CLASSES", Input: "ENV-TS", Level: "SHOULD"},
		{Kind: KindDisconnect, Rule: "PEER-SURVIVES-INPUT", Input: "WHOIS-QUERY-TYPE", Level: "MUST"},
		{Kind: KindDisconnect, Rule: "PEER-SURVIVES-INPUT", Input: "INPUT-DEPTH", Level: "MUST"},
	} {
		fs.add(f)
	}
	got := fs.list()
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3 (one wrong-reason, two deaths): %+v", len(got), got)
	}
	var wrong *Finding
	for _, f := range got {
		if f.Kind == KindWrongReason {
			wrong = f
		}
	}
	if wrong == nil || wrong.Count != 3 || !slices.Equal(wrong.Inputs, []string{"ENV-TS", "SAY-TEXT"}) {
		t.Errorf("wrong-reason: %+v, want count 3 shown by ENV-TS, SAY-TEXT", wrong)
	}
}
