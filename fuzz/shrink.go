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

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/harness/scenario"
	"github.com/aghcheck/aghcheck/requirements"
)

// Minimization. Each finding's case is shrunk to the smallest message that
// still shows it: the members its mutations did not touch are removed (all
// at once, then one by one) and long padding is cut short. A smaller
// message is kept only when the engine's verdict on it is the same (shape,
// rules broken, refusal class) and, played again alone, it shows the same
// finding: a candidate the engine already tells apart costs nothing, and
// at most Config.Shrink replays are spent per finding (a few when each
// costs a restart of the IUT). The finding's case becomes the smaller one,
// and its reproducer is written from it.

// minimize shrinks every finding a case showed and writes its reproducer.
func (fz *fuzzer) minimize(ctx context.Context) {
	for _, f := range fz.found.list() {
		if f.c == nil || ctx.Err() != nil || fz.sess == nil {
			continue
		}
		if fz.cfg.Shrink > 0 {
			fz.shrink(f)
			fz.progress("minimizing")
		}
		if fz.cfg.ReproDir == "" {
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

// shrink replaces f's case with the smallest that still shows it.
func (fz *fuzzer) shrink(f *Finding) {
	budget := fz.cfg.Shrink
	if f.Rule == requirements.PeerSurvives.ID {
		budget = min(budget, 3) // each replay that still kills costs restarts
	}
	c, removed, cut := f.c, 0, 0
	for budget > 0 {
		better := false
		for _, cand := range candidates(c.draft) {
			if budget == 0 {
				break
			}
			next, _, err := fz.o.build(cand.d, c.N)
			if err != nil || next == nil || next.Shape != c.Shape || next.Input() != c.Input() ||
				next.Verdict.Reason != c.Verdict.Reason || next.Verdict.Answered != c.Verdict.Answered {
				continue // the engine tells it apart: no replay needed
			}
			budget--
			if !fz.shows(next, f) {
				continue
			}
			c, removed, cut, better = next, removed+cand.removed, cut+cand.cut, true
			break
		}
		if !better {
			break
		}
	}
	switch {
	case c == f.c:
		f.Shrunk = "already minimal"
	default:
		var parts []string
		if removed > 0 {
			parts = append(parts, fmt.Sprintf("%d members removed", removed))
		}
		if cut > 0 {
			parts = append(parts, fmt.Sprintf("%d padded values cut short", cut))
		}
		f.Shrunk = strings.Join(parts, ", ")
	}
	f.c, f.Case, f.What = c, c.ID, c.What()
}

// shows plays c alone and reports whether it shows f again.
func (fz *fuzzer) shows(c *Case, f *Finding) bool {
	b, err := fz.sess.Play([]*scenario.Scenario{c.Scenario}, harness.PlayOptions{Parallel: 1})
	if b == nil {
		return false
	}
	seen := newFindings()
	for _, g := range behaviour(c, b.Results[0]) {
		seen.add(g)
	}
	for _, p := range b.Published {
		if p.Scenario == 0 {
			for _, g := range output(p, c) {
				seen.add(g)
			}
		}
	}
	for _, k := range b.Killers {
		seen.add(killed(k, c))
	}
	_ = err // the session's end shows at the next play; this candidate proved nothing
	return seen.byKey[f.key] != nil
}

// candidate is a smaller draft, and what was taken from it.
type candidate struct {
	d            *draft
	removed, cut int
}

// protected are the members a message keeps while it shrinks: what every
// envelope carries, and what places it (its work and container).
var protected = map[string]bool{"/protocol": true, "/id": true, "/workspace_id": true, "/channel": true, "/kind": true,
	"/from": true, "/to": true, "/ts": true, "/proof": true, "/body": true, "/surface": true, "/thread_id": true,
	"/direct_id": true, "/work_id": true}

var padding = regexp.MustCompile(`\{\{\s*pad\.(\d+)\s*\}\}`)

// candidates are the smaller drafts of d: without every member its
// mutations did not touch, then without each one, then with long padding
// cut short (unless its size is the point).
func candidates(d *draft) []candidate {
	env := d.send.Envelope
	if env == nil {
		return nil
	}
	touched := func(p string) bool {
		for _, k := range d.keys {
			_, at, ok := strings.Cut(k, "@")
			if !ok {
				continue
			}
			at, _, _ = strings.Cut(at, ":")
			if p == at || strings.HasPrefix(at, p+"/") || strings.HasPrefix(p, at+"/") {
				return true
			}
		}
		return false
	}
	var free []string
	for _, p := range members(env) {
		if !protected[p] && !touched(p) {
			free = append(free, p)
		}
	}
	var out []candidate
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

// without is d with the members at ptrs removed.
func without(d *draft, ptrs []string) *draft {
	out := *d
	out.send.Envelope = copyValue(d.send.Envelope).(map[string]any)
	out.send.Drop = slices.Clone(d.send.Drop)
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
func (fz *fuzzer) reproducer(f *Finding) (string, error) {
	sc := *f.c.Scenario
	if f.Rule == requirements.PeerSurvives.ID && !slices.Contains(sc.Requirements, f.Rule) {
		sc.Requirements = append(slices.Clone(sc.Requirements), f.Rule)
	}
	data, err := yaml.Marshal(map[string]any{"scenarios": []any{scenario.Document(&sc)}})
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	if err := os.MkdirAll(fz.cfg.ReproDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(fz.cfg.ReproDir, sc.ID+".yaml")
	head := fmt.Sprintf("# aghcheck fuzz --seed %d: %s %s (%s), found by %d case(s).\n# %s\n# Replay: aghcheck run --suite %s --embedded=false --iut '...'\n",
		fz.cfg.Seed, f.Kind, f.Rule, f.Level, f.Count, oneLine(f.Message), fz.cfg.ReproDir)
	if err := os.WriteFile(path, append([]byte(head), data...), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// oneLine is s on one line, for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
