package peer

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// edgeFaultCases are the behaviour tests of the faults and variants that
// show a verdict holds at the edges: an answer on another subject.
var edgeFaultCases = []faultCase{
	{faultWhoisOnBroadcast, nil, func(t *testing.T, r *rig) {
		req := r.env("whois", map[string]any{"type": "request", "query": ""})
		r.send(req)
		for {
			env, subj := r.next(wait)
			if env == nil {
				t.Fatal("no whois response")
			}
			if env["kind"] != "whois" {
				continue
			}
			if subj != agh.BroadcastSubject(testWS, testChannel) || env["to"] != nil || env["reply_to"] != req["id"] {
				t.Fatalf("whois response on %s to %v reply_to %v; want it broadcast (to null) answering %v", subj, env["to"], env["reply_to"], req["id"])
			}
			return
		}
	}},
}
