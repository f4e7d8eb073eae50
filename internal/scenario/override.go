package scenario

import (
	"fmt"
	"io/fs"
	"path"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// overrideProblems finds the case overrides of a family (its cases: key)
// that the case they name would ignore, each at its line: a tamper on a
// fixture its corpus plays as it is (shape fixture: nothing is signed, so
// there is nothing to tamper with after signing), broken pointers on a
// fixture played as bytes, anything beside a skip. Left alone, such an
// override changes nothing and says it does. top is the file's key the
// family sits under (family or template).
func overrideProblems(file string, f *Family, root *yaml.Node, top string) []Problem {
	if f == nil {
		return nil
	}
	names := make([]string, 0, len(f.Overrides))
	for name := range f.Overrides {
		names = append(names, name)
	}
	sort.Strings(names)
	var probs []Problem
	for _, name := range names {
		for field, why := range f.ignored(fixtures.FS(), name) {
			_, key := nodeAt(root, []string{top, "cases", name, field})
			if key == nil {
				_, key = nodeAt(root, []string{top, "cases", name})
			}
			probs = append(probs, Problem{File: file, Message: fmt.Sprintf("%s: cases: %s: %s is ignored: %s", top, name, field, why)}.at(key))
		}
	}
	return probs
}

// ignored says, by field, which parts of the override of fixture name the
// case would not use, and why.
func (f *Family) ignored(fsys fs.FS, name string) map[string]string {
	over := f.Overrides[name]
	out := map[string]string{}
	if over.Skip != "" {
		if len(over.Broken) > 0 {
			out["broken"] = "the case is skipped, so nothing of it is played"
		}
		if over.Tamper != nil {
			out["tamper"] = "the case is skipped, so nothing of it is played"
		}
		return out
	}
	for _, corpus := range f.Corpora {
		file := path.Join(corpus.Dir, name+".json")
		raw, err := fs.ReadFile(fsys, file)
		if err != nil {
			continue // not in this corpus (one naming no fixture is casesFrom's to report)
		}
		ids, _, _ := fixtures.Name(file)
		v, _, _ := jsonx.Decode(raw)
		_, object := v.(map[string]any)
		asBytes := !object || bytesRule(ids)
		if asBytes && len(over.Broken) > 0 {
			out["broken"] = fmt.Sprintf("%s is played as the bytes it holds (not a JSON object, or its rule is about the bytes), so no member is set", file)
		}
		switch {
		case over.Tamper == nil:
		case asBytes:
			out["tamper"] = fmt.Sprintf("%s is played as the bytes it holds, so nothing is signed or changed after signing", file)
		case corpus.Shape != "opening":
			out["tamper"] = fmt.Sprintf("corpus %s has shape %s: the fixture is played as it is and nothing is signed, so there is nothing to change after signing (tamper applies to shape opening; change the fixture instead)", corpus.Dir, corpus.Shape)
		}
	}
	return out
}
