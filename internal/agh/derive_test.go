package agh

import (
	"testing"
)

// Vectors from spec §2.
func TestRouteTokenVectors(t *testing.T) {
	for peer, want := range map[string]string{
		"reviewer.sess-xyz":       "790dd5515558f7784877abcbca51c5ba",
		"echo.demo":               "96b61db360703e491489caf5fbbd45bc",
		"patch-worker.session-19": "c1cc4fe4b7b176627e58384f1a402819",
	} {
		t.Run(peer, func(t *testing.T) {
			if got := RouteToken(peer); got != want {
				t.Errorf("RouteToken(%q) = %s, want %s", peer, got, want)
			}
		})
	}
}

func TestDirectIDVector(t *testing.T) {
	const want = "direct_a610973e3c0d915853982f4bfe1534e8"
	for _, pair := range [][2]string{
		{"ops-coordinator.session-42", "patch-worker.session-19"},
		{"patch-worker.session-19", "ops-coordinator.session-42"},
	} {
		t.Run(pair[0], func(t *testing.T) {
			got, err := DirectID("ws_alpha", "builders", pair[0], pair[1])
			if err != nil || got != want {
				t.Errorf("DirectID(%v) = %s, %v; want %s", pair, got, err, want)
			}
		})
	}
	if _, err := DirectID("ws_alpha", "builders", "a.b", "a.b"); err == nil {
		t.Error("a room of one peer must be refused")
	}
	// The seed's printed id is not the derivation (erratum 1).
	if got, _ := DirectID("ws_alpha", "builders", "ops-coordinator.session-42", "patch-worker.session-19"); got == "direct_99401d24bee62651d189e5a561785466" {
		t.Error("erratum 1 no longer holds")
	}
}

func TestCapabilityDigestVector(t *testing.T) {
	capDoc := map[string]any{
		"id": "build-site", "summary": "Build the landing page.", "outcome": "A finished landing page.",
		"version": "1.0.0", "context_needed": []any{"repo"}, "execution_outline": []any{"Inspect", "Build"},
		"digest": "ignored", "workspace_id": "ignored too",
	}
	const want = "sha256:56756e530d86ff5ec3dbdf2a0034fdcd69dae0f8d676dd04faca07f46b63c225"
	got, err := CapabilityDigest(capDoc)
	if err != nil || got != want {
		t.Fatalf("CapabilityDigest = %s, %v; want %s", got, err, want)
	}
	// Normalisation: padding, blank list entries, empty lists and an empty
	// version do not change the digest.
	padded := map[string]any{
		"id": " build-site ", "summary": "Build the landing page.\n", "outcome": "\tA finished landing page.",
		"version": "1.0.0 ", "context_needed": []any{"repo", "  "}, "execution_outline": []any{"Inspect", "", "Build"},
		"constraints": []any{}, "examples": nil,
	}
	if got, err := CapabilityDigest(padded); err != nil || got != want {
		t.Errorf("normalised digest = %s, %v; want %s", got, err, want)
	}
	// Requirements are sorted, so order does not matter; repeats are errors.
	a := map[string]any{"id": "x", "summary": "s", "outcome": "o", "requirements": []any{"b", "a"}}
	b := map[string]any{"id": "x", "summary": "s", "outcome": "o", "requirements": []any{"a", " b"}}
	da, _ := CapabilityDigest(a)
	db, _ := CapabilityDigest(b)
	if da != db || da == "" {
		t.Errorf("requirement order changed the digest: %s vs %s", da, db)
	}
	if _, err := CapabilityDigest(map[string]any{"id": "x", "summary": "s", "outcome": "o", "requirements": []any{"a", "a "}}); err == nil {
		t.Error("repeated requirement accepted")
	}
	// HTML-sensitive characters are escaped like Go's encoding/json.
	h1, _ := CapabilityDigest(map[string]any{"id": "x", "summary": "a<b", "outcome": "o"})
	if h1 != "sha256:"+sha256hex(`{"id":"x","summary":"a\u003cb","outcome":"o"}`) {
		t.Errorf("escaping differs: %s", h1)
	}
}

func TestSubjects(t *testing.T) {
	if got := BroadcastSubject("ws_alpha", "builders"); got != "agh.network.v0.ws_alpha.builders.broadcast" {
		t.Error(got)
	}
	if got := PeerSubject("ws_alpha", "builders", "reviewer.sess-xyz"); got != "agh.network.v0.ws_alpha.builders.peer.790dd5515558f7784877abcbca51c5ba" {
		t.Error(got)
	}
	s, err := Subject(map[string]any{"workspace_id": "ws_alpha", "channel": "builders", "to": nil})
	if err != nil || s != "agh.network.v0.ws_alpha.builders.broadcast" {
		t.Error(s, err)
	}
	s, err = Subject(map[string]any{"workspace_id": "ws_alpha", "channel": "builders", "to": "echo.demo"})
	if err != nil || s != "agh.network.v0.ws_alpha.builders.peer.96b61db360703e491489caf5fbbd45bc" {
		t.Error(s, err)
	}
	for _, tc := range []struct {
		name string
		bad  map[string]any
	}{
		{"bad-workspace", map[string]any{"workspace_id": "ws.alpha", "channel": "builders"}},
		{"bad-channel", map[string]any{"workspace_id": "ws_alpha", "channel": "Builders"}},
		{"to-not-a-string", map[string]any{"workspace_id": "ws_alpha", "channel": "builders", "to": 7.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Subject(tc.bad); err == nil {
				t.Errorf("Subject(%v) accepted", tc.bad)
			}
		})
	}
}

func TestDedupeKey(t *testing.T) {
	a, ok1 := DedupeKey(map[string]any{"from": "a", "id": "1"})
	b, ok2 := DedupeKey(map[string]any{"from": "b", "id": "1"})
	if !ok1 || !ok2 || a == b {
		t.Errorf("same id from two senders must not collide: %q %q", a, b)
	}
	// The separator keeps ("a.b", "c") and ("a", "b.c")-style splits apart.
	c, _ := DedupeKey(map[string]any{"from": "ab", "id": "c"})
	d, _ := DedupeKey(map[string]any{"from": "a", "id": "bc"})
	if c == d {
		t.Error("ambiguous key")
	}
	if _, ok := DedupeKey(map[string]any{"id": "1"}); ok {
		t.Error("key without a sender")
	}
}
