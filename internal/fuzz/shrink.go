package fuzz

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// Minimization. Each finding's case is shrunk to the smallest message that
// still shows it: a mutation of a two-mutation case is undone, the members
// its mutations did not touch are removed (all at once, then one by one),
// and long padding is cut short. A smaller message is tried only when the
// engine's verdict on it is the same (shape, refusal class, and the rules
// broken, or fewer of them when a mutation was undone), and kept when,
// played again alone, it shows the same finding (of the same kind and
// rule, for fewer rules broken at most): a candidate the engine already
// tells apart costs nothing, and at most Config.Shrink replays are spent
// per finding (two when each costs a restart of the IUT). The finding's
// case becomes the smaller one, its reproducer is written from it, and
// findings that turn out the same are reported once.

// minimize shrinks every finding a case showed and writes its reproducer.
// The findings of behaviour are shrunk together, a round at a time: each
// round plays every finding's candidates in one batch and keeps, per
// finding, the smallest candidate that still shows it. A finding that
// kills the IUT is shrunk on its own: each replay that still kills it
// costs restarts.
func (fz *fuzzer) minimize(ctx context.Context) {
	var together []*Finding
	before := map[*Finding]Finding{}
	for _, f := range fz.found.list() {
		if f.c == nil || fz.cfg.Shrink <= 0 {
			continue
		}
		before[f] = *f
		f.Shrunk = "already minimal"
		if f.Rule == requirements.PeerSurvives.ID {
			fz.shrinkAlone(f)
			continue
		}
		together = append(together, f)
	}
	spent := map[*Finding]int{}
	for round := 0; len(together) > 0 && ctx.Err() == nil && fz.sess != nil; round++ {
		if !fz.roomToShrink() {
			for _, f := range together {
				if f.Shrunk == "already minimal" {
					f.Shrunk = "not tried: --duration ran out"
				} else {
					f.Shrunk += "; cut short by --duration"
				}
			}
			break
		}
		var plays []*Case
		var owner []*Finding
		var took []candidate
		for _, f := range together {
			for _, cand := range candidates(f.c.draft) {
				if spent[f] >= fz.cfg.Shrink {
					break
				}
				next := fz.same(f.c, cand, len(plays))
				if next == nil {
					continue
				}
				spent[f]++
				plays, owner, took = append(plays, next), append(owner, f), append(took, cand)
			}
		}
		if len(plays) == 0 {
			break
		}
		fz.progress("minimizing")
		shows, _ := fz.replay(plays)
		best, seen := map[*Finding]int{}, map[*Finding]*Finding{}
		for i := range plays {
			f := owner[i]
			g := showing(f, shows[i])
			if g == nil {
				continue
			}
			if b, ok := best[f]; !ok || took[i].score() > took[b].score() {
				best[f], seen[f] = i, g
			}
		}
		var again []*Finding
		for _, f := range together {
			i, ok := best[f]
			if !ok {
				continue
			}
			fz.adopt(f, plays[i], took[i], seen[f])
			again = append(again, f)
		}
		together = again
	}
	if reverted := fz.confirm(before); len(reverted) > 0 {
		fz.confirm(nil, reverted...) // the cases they replaced, as found
	}
	fz.found.merge()
	if fz.cfg.ReproDir == "" {
		return
	}
	for _, f := range fz.found.list() {
		if f.c == nil && len(f.suspects) == 0 {
			continue
		}
		path, err := fz.reproducer(f)
		if err != nil {
			f.Message += " (reproducer not written: " + err.Error() + ")"
			continue
		}
		f.Reproducer = path
	}
}

// confirm plays again, with the full --step-timeout, the case of each
// finding (of only), that rests on a ceiling shortened for the run: a
// finding it does not show again is dropped, unless it was minimized
// (before holds each finding as it was found): it then takes back the
// case it was found with, and is returned, to be confirmed in turn.
func (fz *fuzzer) confirm(before map[*Finding]Finding, only ...*Finding) (reverted []*Finding) {
	if fz.sess == nil || fz.ceiling >= fz.cfg.Target.StepTimeout {
		return nil
	}
	var check []*Finding
	for _, f := range fz.found.list() {
		if f.waited && f.c != nil && (len(only) == 0 || slices.Contains(only, f)) {
			check = append(check, f)
		}
	}
	if len(check) == 0 {
		return nil
	}
	fz.sess.SetStepTimeout(0)
	defer fz.sess.SetStepTimeout(fz.ceiling)
	fz.progress("confirming")
	plays := make([]*Case, len(check))
	for i, f := range check {
		c := *f.c
		sc := *c.Scenario
		sc.ID = fmt.Sprintf("%s.c%d", c.ID, i)
		c.ID, c.Scenario = sc.ID, &sc
		plays[i] = &c
	}
	shows, cut := fz.replay(plays)
	for i, f := range check {
		if g := showing(f, shows[i]); g != nil {
			f.Message = g.Message // as the full ceiling saw it
			continue
		}
		if cut[i] {
			// Not played again before --duration ran out: it cannot be
			// confirmed, and no verdict rests on the shorter ceiling
			// (counted in CutShort, said in the report).
			fz.found.drop(f)
			continue
		}
		if b, ok := before[f]; ok && b.c != f.c {
			*f = b // the smaller case rested on the shorter ceiling
			reverted = append(reverted, f)
			continue
		}
		fz.found.drop(f)
		fz.rep.Unconfirmed++
	}
	return reverted
}

// same is the case of candidate cand when the engine's verdict on it is
// the one on c (shape, refusal class, rules broken: fewer of them when a
// mutation was undone), under a name of its own; nil when the engine
// tells them apart, so no replay is needed.
func (fz *fuzzer) same(c *Case, cand candidate, k int) *Case {
	next, _, err := fz.o.build(cand.d, c.N)
	switch {
	case err != nil || next == nil || next.Shape != c.Shape:
		return nil
	case cand.undone > 0:
		// Fewer rules broken may call for another refusal: the replay
		// says whether the finding stays.
		if !subset(next.Verdict.Breaks, c.Verdict.Breaks) {
			return nil
		}
	case next.Input() != c.Input() || next.Verdict.Reason != c.Verdict.Reason || next.Verdict.Answered != c.Verdict.Answered:
		return nil
	}
	sc := *next.Scenario
	sc.ID = fmt.Sprintf("%s.m%d", c.ID, k)
	next.ID, next.Scenario = sc.ID, &sc
	return next
}

// subset reports whether every rule of a is in b (and a is not empty when
// b is not: a valid message is no smaller case of a broken one).
func subset(a, b []string) bool {
	if len(a) == 0 && len(b) > 0 {
		return false
	}
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}

// showing is the finding among shown that is f again: of the same kind
// and rule (or, for a rule named after the input, the smaller input's),
// with no rule broken that f's input did not break.
func showing(f *Finding, shown []Finding) *Finding {
	for i, g := range shown {
		if g.Kind != f.Kind || !subset(strings.Split(g.Input, "+"), strings.Split(f.Input, "+")) && g.Input != f.Input {
			continue
		}
		if g.Rule == f.Rule || (f.Rule == f.Input && g.Rule == g.Input) {
			return &shown[i]
		}
	}
	return nil
}

// adopt makes the smaller case f's, under the name of the case it
// replaces; g is the finding it showed (its input may be smaller).
func (fz *fuzzer) adopt(f *Finding, c *Case, cand candidate, g *Finding) {
	sc := *c.Scenario
	sc.ID = caseID(c.N, c.draft) // named after what is left of it
	c.ID, c.Scenario = sc.ID, &sc
	f.c, f.Case, f.What = c, c.ID, c.What()
	f.Rule, f.Input, f.Message = g.Rule, g.Input, g.Message
	f.removed += cand.removed
	f.cut += cand.cut
	f.undone += cand.undone
	var parts []string
	if f.undone > 0 {
		parts = append(parts, fmt.Sprintf("%d %s undone", f.undone, plural(f.undone, "mutation")))
	}
	if f.removed > 0 {
		parts = append(parts, fmt.Sprintf("%d %s removed", f.removed, plural(f.removed, "member")))
	}
	if f.cut > 0 {
		parts = append(parts, fmt.Sprintf("%d padded %s cut short", f.cut, plural(f.cut, "value")))
	}
	f.Shrunk = strings.Join(parts, ", ")
}

// replay plays cases at once and says, for each, the findings it shows,
// and whether --duration left it unjudged (cut).
func (fz *fuzzer) replay(cases []*Case) (shows [][]Finding, cut []bool) {
	out := make([][]Finding, len(cases))
	cut = make([]bool, len(cases))
	scs := make([]*scenario.Scenario, len(cases))
	for i, c := range cases {
		scs[i] = c.Scenario
	}
	b, _ := fz.sess.Play(scs, fz.playOptions())
	if b == nil {
		return out, cut // the session ended: nothing shows
	}
	byID := map[string]int{}
	for i, res := range b.Results {
		byID[cases[i].ID] = i
		if fz.cutShort(res) {
			fz.rep.CutShort++
			cut[i] = true
			continue
		}
		out[i] = append(out[i], behaviour(cases[i], res)...)
	}
	// A death no case of the replay explains is a finding too, with the
	// cases in flight at it as its reproducer.
	if f := fz.unexplained(b, cases, slices.Contains(cut, true)); f != nil {
		fz.found.add(*f)
	}
	for _, p := range b.Published {
		if p.Scenario >= 0 {
			out[p.Scenario] = append(out[p.Scenario], output(p, cases[p.Scenario])...)
		}
	}
	for _, k := range b.Killers {
		if i, ok := byID[k.Scenario]; ok {
			out[i] = append(out[i], killed(k, cases[i]))
		}
	}
	return out, cut
}

// shrinkAlone tries, one at a time, at most two candidates for a case
// that kills the IUT: each mutation undone, then every removable member
// removed.
func (fz *fuzzer) shrinkAlone(f *Finding) {
	tries := 0
	for _, cand := range candidates(f.c.draft) {
		if tries == min(2, fz.cfg.Shrink) || fz.sess == nil {
			return
		}
		if !fz.roomToShrink() {
			if tries == 0 {
				f.Shrunk = "not tried: --duration ran out"
			}
			return
		}
		if cand.undone == 0 && cand.removed <= 1 && cand.cut == 0 {
			continue // one member at a time is too dear here
		}
		next := fz.same(f.c, cand, tries)
		if next == nil {
			continue
		}
		tries++
		fz.progress("minimizing")
		shows, _ := fz.replay([]*Case{next})
		if g := showing(f, shows[0]); g != nil {
			fz.adopt(f, next, cand, g)
		}
	}
}

// candidate is a smaller draft, and what was taken from it.
type candidate struct {
	d                    *draft
	removed, cut, undone int
}

// score is how much smaller a candidate is: an undone mutation counts most.
func (c candidate) score() int { return 100*c.undone + c.removed + c.cut }

// protected are the members a message keeps while it shrinks: what every
// envelope carries, and what places it (its work and container).
var protected = map[string]bool{"/protocol": true, "/id": true, "/workspace_id": true, "/channel": true, "/kind": true,
	"/from": true, "/to": true, "/ts": true, "/proof": true, "/body": true, "/surface": true, "/thread_id": true,
	"/direct_id": true, "/work_id": true}

var padding = regexp.MustCompile(`\{\{\s*pad\.(\d+)\s*\}\}`)

// candidates are the smaller drafts of d: without every member but the
// ones every message keeps, then without each one, then with long padding
// cut short (unless its size is the point). Removing a member a mutation
// put there undoes that mutation; the engine tells whether the message
// still breaks what it broke.
func candidates(d *draft) []candidate {
	if d.pre != nil {
		return rebytes(d)
	}
	env := d.send.Envelope
	if env == nil {
		return nil
	}
	var free []string
	for _, p := range members(env) {
		if !protected[p] {
			free = append(free, p)
		}
	}
	var out []candidate
	if len(d.keys) > 1 {
		for i := range d.keys {
			if u, ok := undo(d, i); ok {
				out = append(out, candidate{d: u, undone: 1})
			}
		}
	}
	if len(free) > 1 {
		out = append(out, candidate{d: without(d, free), removed: len(free)})
	}
	for _, p := range free {
		out = append(out, candidate{d: without(d, []string{p}), removed: 1})
	}
	if d.accept != requirements.NATSPayload.ID {
		if small, n := unpadded(d); n > 0 {
			out = append(out, candidate{d: small, cut: n})
		}
	}
	return out
}

// rebytes are the candidates of a draft whose bytes were changed: the
// envelope they were made from, shrunk, changed the same way again.
func rebytes(d *draft) []candidate {
	before := *d
	before.send, before.pre = *d.pre, nil
	before.ops, before.keys = slices.Clone(d.ops[:len(d.ops)-1]), slices.Clone(d.keys[:len(d.keys)-1])
	var out []candidate
	for _, c := range candidates(&before) {
		if c.d.applyBytes(d.bytesOp) {
			out = append(out, c)
		}
	}
	return out
}

// without is d with the members at ptrs removed.
func without(d *draft, ptrs []string) *draft {
	out := *d
	out.send.Envelope = jsonx.Copy(d.send.Envelope).(map[string]any)
	out.send.Drop = slices.Clone(d.send.Drop)
	out.ops, out.keys = nil, nil
	for i, k := range d.keys {
		if !slices.ContainsFunc(ptrs, func(p string) bool { return touches(k, p) }) {
			out.ops, out.keys = append(out.ops, d.ops[i]), append(out.keys, k)
		}
	}
	for _, p := range ptrs {
		m, k := parent(out.send.Envelope, p, false)
		if m == nil {
			continue
		}
		delete(m, k)
		if strings.Count(p, "/") == 1 && defaults[k] {
			out.send.Drop = append(out.send.Drop, k)
		}
	}
	return &out
}

// undo is d without its i-th mutation, when that mutation changed one
// member: the member as the seed has it again.
func undo(d *draft, i int) (*draft, bool) {
	kind, at, ok := strings.Cut(d.keys[i], "@")
	if !ok || kind == "ext" || kind == "size" {
		return nil, false
	}
	at, _, _ = strings.Cut(at, ":")
	out := *d
	out.send.Envelope = jsonx.Copy(d.send.Envelope).(map[string]any)
	out.send.Drop = slices.Clone(d.send.Drop)
	out.ops = slices.Delete(slices.Clone(d.ops), i, i+1)
	out.keys = slices.Delete(slices.Clone(d.keys), i, i+1)
	if kind == "tamper" || strings.HasPrefix(d.ops[i], "after signing") {
		if d.send.Tamper == nil {
			return nil, false
		}
		out.send.Tamper = jsonx.Copy(d.send.Tamper).(map[string]any)
		m, k := parent(out.send.Tamper, at, false)
		if m == nil {
			return nil, false
		}
		delete(m, k)
		return &out, true
	}
	m, k := parent(out.send.Envelope, at, true)
	if m == nil {
		return nil, false
	}
	top := strings.Count(at, "/") == 1
	if orig, _ := parent(d.seed.send.Envelope, at, false); orig != nil {
		if v, has := orig[k]; has {
			m[k] = jsonx.Copy(v)
			if top {
				out.send.Drop = slices.DeleteFunc(out.send.Drop, func(s string) bool { return s == k })
			}
			if strings.HasPrefix(at, "/body/capability") {
				out.send.Digest = d.seed.send.Digest
			}
			return &out, true
		}
	}
	delete(m, k)
	if top && defaults[k] && !slices.Contains(d.seed.send.Drop, k) {
		out.send.Drop = append(out.send.Drop, k)
	}
	return &out, true
}

// touches reports whether the mutation key k put something at or inside
// pointer p (removing p undoes it).
func touches(k, p string) bool {
	_, at, ok := strings.Cut(k, "@")
	if !ok {
		return false
	}
	at, _, _ = strings.Cut(at, ":")
	return at == p || strings.HasPrefix(at, p+"/")
}

// unpadded is d with every {{pad.N}} longer than 16 made {{pad.16}}, and
// how many there were.
func unpadded(d *draft) (*draft, int) {
	n := 0
	cut := func(s string) any {
		return padding.ReplaceAllStringFunc(s, func(m string) string {
			if size, _ := strconv.Atoi(padding.FindStringSubmatch(m)[1]); size > 16 {
				n++
				return "{{pad.16}}"
			}
			return m
		})
	}
	out := *d
	out.send.Envelope = mapValues(d.send.Envelope, cut).(map[string]any)
	if out.send.Tamper != nil {
		out.send.Tamper = mapValues(d.send.Tamper, cut).(map[string]any)
	}
	return &out, n
}

// mapValues is a deep copy of v with f applied to every string value.
func mapValues(v any, f func(string) any) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = mapValues(val, f)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = mapValues(val, f)
		}
		return out
	}
	return v
}

// reproducer writes f's case as a scenario file of its own and returns its
// path: aghcheck run --suite DIR --embedded=false replays it, failing the
// peer that shows the finding and passing a conformant one.
//
// A death no case explains has no case of its own: its reproducer holds
// every case in flight at it, played together as they were (aghcheck run
// plays a file's scenarios at once, and its own hunt, with a run's time,
// pins the one that kills the IUT).
func (fz *fuzzer) reproducer(f *Finding) (string, error) {
	cases, name := f.suspects, fmt.Sprintf("fuzz.%s.in-flight", f.Kind)
	if f.c != nil {
		cases, name = []*Case{f.c}, f.c.Scenario.ID
	}
	docs := make([]any, 0, len(cases))
	for _, c := range cases {
		sc := *c.Scenario
		// Survival is a MUST: a scenario graded SHOULD cannot cite it
		// (run refuses the file), and a death fails it all the same.
		if f.Rule == requirements.PeerSurvives.ID && sc.Level != "SHOULD" && sc.Level != "MAY" && !slices.Contains(sc.Requirements, f.Rule) {
			sc.Requirements = append(slices.Clone(sc.Requirements), f.Rule)
		}
		docs = append(docs, scenario.Document(&sc))
	}
	data, err := yaml.Marshal(map[string]any{"scenarios": docs})
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	if err := os.MkdirAll(fz.cfg.ReproDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(fz.cfg.ReproDir, name+".yaml")
	head := fmt.Sprintf("# aghcheck fuzz --seed %d: %s %s (%s), found by %d case(s).\n# %s\n# Replay: aghcheck run --suite %s --embedded=false --iut '...'\n",
		fz.cfg.Seed, sanitize.YAMLComment(string(f.Kind)), sanitize.YAMLComment(f.Rule), sanitize.YAMLComment(f.Level), f.Count,
		sanitize.YAMLComment(oneLine(f.Message)), sanitize.YAMLComment(fz.cfg.ReproDir))
	if err := os.WriteFile(path, append([]byte(head), data...), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// oneLine is s on one line, for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
