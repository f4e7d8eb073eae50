// Package jsontest decodes JSON in tests with the product's own strict
// decoder (jsonx), so tests see exactly the value model the tool sees.
package jsontest

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// Decode decodes b with jsonx.Decode and fails t on any finding.
func Decode(t testing.TB, b []byte) any {
	t.Helper()
	v, fs, ok := jsonx.Decode(b)
	if !ok || len(fs) > 0 {
		t.Fatalf("decode %.60q: %v", b, fs)
	}
	return v
}

// Object is Decode for a document that must be a JSON object.
func Object(t testing.TB, b []byte) map[string]any {
	t.Helper()
	m, ok := Decode(t, b).(map[string]any)
	if !ok {
		t.Fatalf("decode %.60q: not a JSON object", b)
	}
	return m
}
