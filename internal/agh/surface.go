package agh

import (
	"strconv"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// The conversation surface: which kinds carry surface, thread_id, direct_id
// and work_id, and that a direct room's id is the one its peers derive.

// present reports whether a conversation field is set: null means absent
// for the fields the schema types "string or null".
func (r *run) present(i field) bool { return r.val[i] != nil }

func (r *run) surface(kind string) {
	if IsDiscoveryKind(kind) {
		for _, i := range [...]field{fSurface, fThreadID, fDirectID} {
			if r.present(i) {
				r.add(RuleDiscoverySurface, i.ptr(), "absent on "+kind, describe(r.val[i]))
			}
		}
		if r.present(fWorkID) {
			r.add(RuleDiscoveryWork, "/work_id", "absent on "+kind, describe(r.val[fWorkID]))
		}
		if kind == KindGreet && r.present(fTo) {
			r.add(RuleGreetTo, "/to", "null or absent", describe(r.val[fTo]))
		}
		return
	}
	r.container(kind)
	needWork := kind == KindReceipt || kind == KindTrace ||
		(kind == KindCapability && r.c.opts.Errata.CapabilityRequiresWorkID)
	if needWork && !r.present(fWorkID) {
		r.add(RuleWorkRequired, "/work_id", "work_id on "+kind, "absent")
	}
	if !r.present(fTo) {
		switch kind {
		case KindReceipt:
			r.add(RuleReceiptTo, "/to", "the peer that needs the receipt", "absent")
		case KindTrace:
			r.add(RuleTraceTo, "/to", "the work initiator", "absent")
		}
	}
}

// container checks that a conversation envelope names exactly the container
// its surface needs: thread_id for "thread", direct_id for "direct".
func (r *run) container(kind string) {
	var own, other field // the surface's container member, and the other one
	var required *rules.Rule
	surface, _ := r.val[fSurface].(string)
	switch {
	case r.val[fSurface] == nil:
		r.add(RuleSurfaceRequired, fSurface.ptr(), `"thread" or "direct" on `+kind, "absent")
	case surface == SurfaceThread:
		own, other, required = fThreadID, fDirectID, RuleThreadRequired
	case surface == SurfaceDirect:
		own, other, required = fDirectID, fThreadID, RuleDirectRequired
	} // any other surface is ENV-SURFACE-ENUM's
	if required != nil && !r.present(own) {
		r.add(required, own.ptr(), fields[own].name+` with surface "`+surface+`"`, "absent")
		if r.present(other) {
			r.add(RuleContainerSurface, other.ptr(), `absent with surface "`+surface+`"`, describe(r.val[other]))
		}
	}
	if r.present(fThreadID) && r.present(fDirectID) {
		// The member that does not belong to the surface is the misplaced one.
		misplaced := fDirectID
		if surface == SurfaceDirect {
			misplaced = fThreadID
		}
		r.add(RuleContainerExclusive, misplaced.ptr(), "only one of thread_id and direct_id", "both")
	}
}

func (r *run) directRoom() {
	if r.val[fSurface] != "direct" {
		return
	}
	did, _ := r.val[fDirectID].(string)
	to, _ := r.val[fTo].(string)
	from, _ := r.val[fFrom].(string)
	ws, _ := r.val[fWorkspaceID].(string)
	ch, _ := r.val[fChannel].(string)
	if !ValidDirectID(did) || to == "" || from == "" || ws == "" || ch == "" {
		return
	}
	want, err := DirectID(ws, ch, from, to)
	if err != nil {
		r.addMsg(RuleDirectDerivation, "/to", "a peer other than from", strconv.Quote(to), err.Error())
		return
	}
	if want != did {
		// The expected id and how to get it: a first peer that derives it
		// wrong needs the algorithm, not just the value.
		r.addMsg(RuleDirectDerivation, "/direct_id", want, did,
			"not the id derived from workspace_id, channel, from and to (docs/protocol.md#direct-room-id)")
	}
}
