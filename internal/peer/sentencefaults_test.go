package peer

import (
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// catalogAnswer asks the peer for its capability catalog with ext and
// returns the answer's catalog entries (nil: no catalog).
func catalogAnswer(t *testing.T, r *rig, ext map[string]any) ([]any, map[string]any) {
	t.Helper()
	q := r.env("whois", map[string]any{"type": "request", "query": ""})
	q["ext"] = ext
	r.send(q)
	resp := r.expect("whois")
	e, _ := resp["ext"].(map[string]any)
	cat, _ := e[agh.ExtCapabilityCatalog].(map[string]any)
	list, _ := cat["capabilities"].([]any)
	if cat == nil {
		return nil, resp
	}
	return append([]any{}, list...), resp
}

// findings are the rules the engine raises on env.
func findings(t *testing.T, env map[string]any) []string {
	t.Helper()
	ck, err := agh.NewChecker(agh.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range ck.CheckBytes(mustJSON(env)).Findings {
		out = append(out, f.Rule.ID)
	}
	return out
}

// sentenceFaultCases are the behaviour tests of the faults that break one
// sentence each of the Capability Discovery, Peer Discovery and Delivery
// pages (TestFaultsChangeBehaviour runs them).
var sentenceFaultCases = []faultCase{
	{faultCatalogFilterIgnored, nil, func(t *testing.T, r *rig) {
		list, _ := catalogAnswer(t, r, map[string]any{"agh.include": []any{"capability_catalog"}, "agh.capability_ids": []any{"no-such"}})
		if len(list) == 0 {
			t.Fatal("the filter naming no capability still emptied the catalog")
		}
	}},
	{faultCatalogAnyInclude, nil, func(t *testing.T, r *rig) {
		if list, _ := catalogAnswer(t, r, map[string]any{"agh.include": []any{"peer_notes"}}); list == nil {
			t.Fatal("no catalog for an agh.include without capability_catalog")
		}
	}},
	{faultCatalogIncludeStrict, nil, func(t *testing.T, r *rig) {
		if list, _ := catalogAnswer(t, r, map[string]any{"agh.include": []any{"capability_catalog"}}); list == nil {
			t.Fatal("no catalog for a plain request")
		}
		if list, resp := catalogAnswer(t, r, map[string]any{"agh.include": []any{"future", "capability_catalog"}}); list != nil {
			t.Fatalf("catalog sent although agh.include held an unknown value: %s", mustJSON(resp))
		}
	}},
	{faultCatalogEmptyMembers, nil, func(t *testing.T, r *rig) {
		_, resp := catalogAnswer(t, r, map[string]any{"agh.include": []any{"capability_catalog"}})
		if got := findings(t, resp); strings.Join(got, ",") != "WHOIS-CATALOG-ENTRY,WHOIS-CATALOG-ENTRY" {
			t.Fatalf("findings %v, want the two empty lists (WHOIS-CATALOG-ENTRY)", got)
		}
	}},
	{faultCatalogStaleDigest, nil, func(t *testing.T, r *rig) {
		_, resp := catalogAnswer(t, r, map[string]any{"agh.include": []any{"capability_catalog"}})
		if got := findings(t, resp); strings.Join(got, ",") != "WHOIS-CATALOG-DIGEST" {
			t.Fatalf("findings %v, want WHOIS-CATALOG-DIGEST", got)
		}
	}},
	{faultCardWithoutCatalog, nil, func(t *testing.T, r *rig) {
		if got := findings(t, r.greet); len(got) > 0 {
			t.Fatalf("the greet breaks %v: its card alone is sound", got)
		}
		_, resp := catalogAnswer(t, r, map[string]any{"agh.include": []any{"capability_catalog"}})
		if got := findings(t, resp); len(got) == 0 || got[0] != "WHOIS-CATALOG-IN-CARD" {
			t.Fatalf("findings %v, want WHOIS-CATALOG-IN-CARD", got)
		}
	}},
	{faultBriefOutOfStep, nil, func(t *testing.T, r *rig) {
		if got := findings(t, r.greet); strings.Join(got, ",") != "CARD-CAPABILITIES-BRIEF" {
			t.Fatalf("greet findings %v, want CARD-CAPABILITIES-BRIEF", got)
		}
	}},
	{faultNoCapabilityArtifact, nil, func(t *testing.T, r *rig) {
		c := badDigest(r)
		c["body"] = map[string]any{"capability": map[string]any{"id": "echo", "summary": "s", "outcome": "o"}}
		d, err := agh.CapabilityDigest(body(c)["capability"].(map[string]any))
		if err != nil {
			t.Fatal(err)
		}
		body(c)["capability"].(map[string]any)["digest"] = d
		r.send(c)
		wantReceipt(t, r.expect("receipt"), c, "accepted", "")
		if list, _ := body(r.greet)["peer_card"].(map[string]any)["artifacts_supported"].([]any); len(list) != 0 {
			t.Fatalf("artifacts_supported %v", list)
		}
	}},
	{faultExpiredRemembered, nil, func(t *testing.T, r *rig) {
		w := r.work("stale")
		w["ts"], w["expires_at"] = time.Now().Unix()-120, time.Now().Unix()-60
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "expired", "expired")
		w["ts"], w["expires_at"] = time.Now().Unix(), time.Now().Unix()+300
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "duplicate", "duplicate")
	}},
	{faultRouteBeforeValidate, nil, func(t *testing.T, r *rig) {
		w := r.work("   ")
		w["to"] = "someone-else.session-9"
		r.toPeer(mustJSON(w))
		if got := body(r.expect("receipt")); got["reason_code"] != "not_target" {
			t.Fatalf("a malformed message for another peer refused as %v, want not_target", got["reason_code"])
		}
	}},
	{faultNullBodyAbsent, nil, func(t *testing.T, r *rig) {
		w := r.work("null intent")
		body(w)["intent"] = nil
		r.send(w)
		wantReceipt(t, r.expect("receipt"), w, "accepted", "")
	}},
}
