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

// RereadAs is Reread, each scenario it changes naming the reading in
// JudgedBy.
func RereadAs(scs []*Scenario, name string, swap map[string]string) []*Scenario {
	out := Reread(scs, swap)
	for i, sc := range out {
		if sc != scs[i] {
			sc.JudgedBy = append(sc.JudgedBy, name)
		}
	}
	return out
}

// Under returns scs under the reading called name: a scenario with a form
// for it (Scenario.Readings) becomes that form, named in JudgedBy; the
// others come back as they are, and so do the scenarios given.
func Under(scs []*Scenario, name string) []*Scenario {
	out := make([]*Scenario, len(scs))
	for i, sc := range scs {
		out[i] = sc.under(name)
	}
	return out
}

func (sc *Scenario) under(name string) *Scenario {
	f, ok := sc.Readings[name]
	if !ok {
		return sc
	}
	c := *sc
	c.Steps = f.Steps
	if f.Title != "" {
		c.Title = f.Title
	}
	if f.Description != "" {
		c.Description = f.Description
	}
	if len(f.Requirements) > 0 {
		c.Requirements = f.Requirements
	}
	if f.Level != "" {
		c.Level = f.Level
	}
	// A form is played once: the others stay for the readings still to
	// come.
	c.Readings = nil
	for n, g := range sc.Readings {
		if n != name {
			if c.Readings == nil {
				c.Readings = map[string]*Form{}
			}
			c.Readings[n] = g
		}
	}
	c.JudgedBy = append(slices.Clip(sc.JudgedBy), name)
	return &c
}

func (sc *Scenario) reread(swap map[string]string) *Scenario {
	if !slices.ContainsFunc(sc.Requirements, func(id string) bool { _, ok := swap[id]; return ok }) {
		return sc
	}
	c := *sc
	c.JudgedBy = slices.Clip(sc.JudgedBy)
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
