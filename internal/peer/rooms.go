package peer

import (
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// unsortedRoom is the direct-unsorted fault: the peer derives a direct
// room's id from (the sender, itself) in that order, as a runtime that
// forgets to sort the pair byte-wise does. Against a sender whose id sorts
// before the peer's the two agree; against one that sorts after, the
// peer refuses the correct direct_id as malformed and takes the one it
// derives itself (broken for that alone). It returns the refusal reason
// and findings the peer acts on.
func (p *peer) unsortedRoom(env map[string]any, reason string, fs []rules.Finding) (string, []rules.Finding) {
	if !p.faults[faultDirectUnsorted] || agh.Str(env, "surface") != agh.SurfaceDirect {
		return reason, fs
	}
	from, to, id := agh.Str(env, "from"), agh.Str(env, "to"), agh.Str(env, "direct_id")
	if from == "" || to == "" || id == "" {
		return reason, fs
	}
	mine := agh.DirectIDInOrder(p.cfg.Workspace, p.cfg.Channel, from, to)
	switch {
	case id == mine && onlyBreaks(fs, agh.RuleDirectDerivation):
		return "", nil
	case id != mine && reason == "":
		return agh.ReasonMalformed, fs
	}
	return reason, fs
}

// onlyBreaks reports whether r is the one MUST the findings break.
func onlyBreaks(fs []rules.Finding, r *rules.Rule) bool {
	found := false
	for _, f := range fs {
		if f.Rule == nil || f.Rule.Severity != rules.Error {
			continue
		}
		if f.Rule != r {
			return false
		}
		found = true
	}
	return found
}
