package agh

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// FuzzCheck feeds arbitrary bytes to the engine: it must never panic, and
// the native rules must explain every schema error (the fast path's premise).
func FuzzCheck(f *testing.F) {
	for _, dir := range []string{"seed", "valid", "invalid"} {
		for _, file := range fixtureFiles(f, dir) {
			f.Add(mustRead(f, file))
		}
	}
	f.Add([]byte(`{"protocol":"agh-network/v0","kind":"whois","body":{"type":"response","peer_card":{"peer_id":"a@b"}}}`))
	f.Add([]byte(`{"kind":"receipt","body":{"status":"accepted","reason_code":null},"ts":1.0,"expires_at":null}`))
	def := mustChecker(f, Options{FullSchema: true, Now: 1776366100})
	ref := mustChecker(f, Options{FullSchema: true, Errata: Reference(), Now: 1776366100})
	f.Fuzz(func(t *testing.T, raw []byte) {
		res := def.CheckBytes(raw)
		_ = RefusalReason(res.Findings)
		v, _, ok := jsonx.Decode(raw)
		if !ok {
			return
		}
		assertSubsumed(t, "default", def, raw, v)
		assertSubsumed(t, "reference", ref, raw, v)
		if env, isObj := v.(map[string]any); isObj {
			_, _ = Subject(env)
			if c, ok := CapabilityOf(env); ok {
				_, _ = CapabilityDigest(c)
			}
			_, _ = DedupeKey(env)
		}
	})
}
