package scenario

import "slices"

// Reread returns scs read under an erratum's other reading: every
// requirement id of swap that a scenario cites, and that its steps name in
// checks, becomes the id it maps to, so those steps are graded at that
// requirement's level and reports name it. The scenarios given are left
// alone (the cases of a family share their steps); those swap does not
// touch come back as they are.
func Reread(scs []*Scenario, swap map[string]string) []*Scenario {
	out := make([]*Scenario, len(scs))
	for i, sc := range scs {
		out[i] = sc.reread(swap)
	}
	return out
}

func (sc *Scenario) reread(swap map[string]string) *Scenario {
	if !slices.ContainsFunc(sc.Requirements, func(id string) bool { _, ok := swap[id]; return ok }) {
		return sc
	}
	c := *sc
	c.Requirements = swapped(sc.Requirements, swap)
	c.Steps = slices.Clone(sc.Steps)
	for i := range c.Steps {
		c.Steps[i].Checks = swapped(c.Steps[i].Checks, swap)
	}
	return &c
}

// swapped is ids with each one swap maps replaced (a copy when any is).
func swapped[S ~[]string](ids S, swap map[string]string) S {
	if !slices.ContainsFunc(ids, func(id string) bool { _, ok := swap[id]; return ok }) {
		return ids
	}
	out := slices.Clone(ids)
	for i, id := range out {
		if to, ok := swap[id]; ok {
			out[i] = to
		}
	}
	return out
}
