package peer

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
)

// exchanges drives an offline peer through what the mutation test's
// scenarios make it send: its greet, a whois response, and work in a
// thread and in a direct room (receipts, traces).
func exchanges(t *testing.T, faults ...string) []sent {
	t.Helper()
	p, out := offline(t, faults...)
	now := time.Now().Unix()
	p.greet()
	p.handle(p.ownSubject, fmt.Appendf(nil, `{"protocol":"agh-network/v0","id":"msg_w1","workspace_id":%q,"kind":"whois","channel":%q,`+
		`"from":"tester.session-1","to":"ref.peer-1","ts":%d,"body":{"type":"request","query":""},"proof":null}`, testWS, testChannel, now))
	p.handle(p.ownSubject, workSay(1, now, ""))
	room, err := agh.DirectID(testWS, testChannel, "tester.session-1", "ref.peer-1")
	if err != nil {
		t.Fatal(err)
	}
	p.handle(p.ownSubject, fmt.Appendf(nil, `{"protocol":"agh-network/v0","id":"msg_d1","workspace_id":%q,"kind":"say","channel":%q,`+
		`"surface":"direct","direct_id":%q,"from":"tester.session-1","to":"ref.peer-1","work_id":"work_d1",`+
		`"ts":%d,"body":{"text":"direct"},"proof":null}`, testWS, testChannel, room, now))
	return *out
}

// Every emit:RULE-ID fault makes the peer send what breaks RULE-ID, and
// nothing but RULE-ID and the rules its entry lists under also: the data
// in emit.yaml is proven, entry by entry.
func TestEmitPatches(t *testing.T) {
	// With a clock, as passive judging has one: a time that cannot be
	// seconds (ENV-TS-SECONDS) shows only against it.
	ck, err := agh.NewChecker(agh.Options{Now: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	ids := EmitRules()
	if len(ids) == 0 {
		t.Fatal("emit.yaml has no entry")
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			e, _ := Emit(id)
			if _, ok := catalogue.Lookup(id); !ok {
				t.Fatalf("%s is no catalogue rule", id)
			}
			want := append([]string{id}, e.Also...)
			sort.Strings(want)
			broke := 0
			for _, s := range exchanges(t, FaultEmit+id) {
				var got []string
				for _, f := range ck.CheckBytes(s.data).Findings {
					if !slices.Contains(got, f.Rule.ID) {
						got = append(got, f.Rule.ID)
					}
				}
				if len(got) == 0 {
					continue
				}
				broke++
				sort.Strings(got)
				if !slices.Equal(got, want) {
					t.Errorf("sent %s\nbreaks %v, want %v", s.data, got, want)
				}
			}
			if broke == 0 {
				t.Errorf("no %s the peer sends was corrupted", e.Kind)
			}
		})
	}
	if _, err := parseFaults([]string{FaultEmit + "NO-SUCH-RULE"}); err == nil {
		t.Error("emit of a rule emit.yaml does not name accepted")
	}
}
