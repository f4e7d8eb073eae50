package agh

import "strconv"

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
	thread, direct := r.present(fThreadID), r.present(fDirectID)
	switch r.val[fSurface] {
	case nil:
		r.add(RuleSurfaceRequired, "/surface", `"thread" or "direct" on `+kind, "absent")
		if thread && direct {
			r.add(RuleContainerExclusive, "/direct_id", "only one of thread_id and direct_id", "both")
		}
	case "thread":
		if !thread {
			r.add(RuleThreadRequired, "/thread_id", `thread_id with surface "thread"`, "absent")
		}
		if direct {
			if thread {
				r.add(RuleContainerExclusive, "/direct_id", "only one of thread_id and direct_id", "both")
			} else {
				r.add(RuleContainerSurface, "/direct_id", `absent with surface "thread"`, describe(r.val[fDirectID]))
			}
		}
	case "direct":
		if !direct {
			r.add(RuleDirectRequired, "/direct_id", `direct_id with surface "direct"`, "absent")
		}
		if thread {
			if direct {
				r.add(RuleContainerExclusive, "/thread_id", "only one of thread_id and direct_id", "both")
			} else {
				r.add(RuleContainerSurface, "/thread_id", `absent with surface "direct"`, describe(r.val[fThreadID]))
			}
		}
	default: // already ENV-SURFACE-ENUM
		if thread && direct {
			r.add(RuleContainerExclusive, "/direct_id", "only one of thread_id and direct_id", "both")
		}
	}
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
		r.add(RuleDirectDerivation, "/direct_id", want, did)
	}
}
