package agh

import "testing"

// TestFieldTable: every envelope member has one distinct name, and the
// lookup finds each at its own index.
func TestFieldTable(t *testing.T) {
	for i, f := range fields {
		if f.name == "" {
			t.Fatalf("field %d has no name", i)
		}
		if got, ok := lookupField(f.name); !ok || got != field(i) {
			t.Errorf("lookupField(%q) = %d, %v; want %d", f.name, got, ok, i)
		}
		if field(i).ptr() != "/"+f.name {
			t.Errorf("field %d pointer %q", i, field(i).ptr())
		}
	}
	for _, name := range []string{"", "x", "interaction_id", "Protocol", "ids", "tx", "bodies"} {
		sub := name
		if sub == "" {
			sub = "empty"
		}
		t.Run(sub, func(t *testing.T) {
			if f, ok := lookupField(name); ok {
				t.Errorf("lookupField(%q) = %d, true; it is not an envelope member", name, f)
			}
		})
	}
}
