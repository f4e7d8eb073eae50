package agh

import "testing"

func TestCanTransition(t *testing.T) {
	allowed := map[[2]string]bool{
		{"submitted", "submitted"}: true, {"submitted", "working"}: true, {"submitted", "failed"}: true, {"submitted", "canceled"}: true,
		{"working", "working"}: true, {"working", "needs_input"}: true, {"working", "completed"}: true, {"working", "failed"}: true, {"working", "canceled"}: true,
		{"needs_input", "needs_input"}: true, {"needs_input", "working"}: true, {"needs_input", "completed"}: true, {"needs_input", "failed"}: true, {"needs_input", "canceled"}: true,
		{"canceled", "canceled"}: true,
	}
	for _, from := range TraceStates {
		for _, to := range TraceStates {
			if got := CanTransition(from, to); got != allowed[[2]string{from, to}] {
				t.Errorf("CanTransition(%s, %s) = %v", from, to, got)
			}
		}
	}
	if CanTransition("working", "done") || CanTransition("", "working") {
		t.Error("unknown states accepted")
	}
}

func TestAccessors(t *testing.T) {
	_, capEnv := loadValid(t, "capability-work-direct")
	if c, ok := CapabilityOf(capEnv); !ok || c["id"] != "build-site" {
		t.Error("CapabilityOf")
	}
	if _, ok := PeerCardOf(capEnv); ok {
		t.Error("PeerCardOf on a capability")
	}
	_, greet := loadValid(t, "greet-full")
	if c, ok := PeerCardOf(greet); !ok || c["peer_id"] != Str(greet, "from") {
		t.Error("PeerCardOf")
	}
	if s, id := Container(capEnv); s != "direct" || !ValidDirectID(id) {
		t.Error("Container", s, id)
	}
	k1, ok1 := WorkKey(capEnv)
	_, rc := loadValid(t, "receipt-canceled-no-reason")
	k2, ok2 := WorkKey(rc)
	_, tr := loadValid(t, "trace-working")
	k3, _ := WorkKey(tr)
	if !ok1 || !ok2 || k1 != k2 || k1 == k3 {
		t.Errorf("WorkKey: %q %q %q", k1, k2, k3)
	}
	if _, ok := WorkKey(greet); ok {
		t.Error("greet has no work")
	}
	for _, code := range []string{ReasonMalformed, ReasonWorkContainerMismatch, ReasonWorkClosed} {
		t.Run(code, func(t *testing.T) {
			if !IsReasonCode(code) {
				t.Error(code)
			}
		})
	}
	if len(ReasonCodes) != 12 {
		t.Errorf("%d reason codes", len(ReasonCodes))
	}
}
