// Package rundiff compares two runs of `aghcheck run` from their JSON
// reports — `aghcheck diff OLD.json NEW.json` — by scenario id and by
// requirement id: what regressed, what improved, what appeared or
// vanished, with the implementation versions of both sides. Only outcomes
// are compared, never message ids, timings or messages, which change from
// run to run.
package rundiff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/aghcheck/aghcheck/internal/report"
)

// ErrNotReport marks input that is not a JSON report of aghcheck run, or
// one of a run that could not be carried out: a usage error.
var ErrNotReport = errors.New("not a report to compare")

// Load reads a JSON run report (aghcheck run --format json).
func Load(path string) (*report.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks that data is a JSON report of a run that was carried out;
// name is used in errors, each one line.
func Parse(name string, data []byte) (*report.Report, error) {
	rep, err := parseAny(name, data)
	if err == nil && rep.Error != "" {
		return nil, fmt.Errorf("%w: %s is a run that could not be carried out (%s): nothing to compare", ErrNotReport, name, rep.Error)
	}
	return rep, err
}

// parseAny is Parse that also takes a run that could not be carried out.
func parseAny(name string, data []byte) (*report.Report, error) {
	var rep report.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("%w: %s is not a JSON report of aghcheck run (--format json): %v", ErrNotReport, name, err)
	}
	switch {
	case rep.Tool != "aghcheck" || rep.Scenarios == nil:
		return nil, fmt.Errorf("%w: %s is not a JSON report of aghcheck run (--format json): no tool aghcheck and scenarios list", ErrNotReport, name)
	}
	for i, sc := range rep.Scenarios {
		if sc == nil || sc.ID == "" {
			return nil, fmt.Errorf("%w: %s: scenario %d has no id", ErrNotReport, name, i+1)
		}
	}
	return &rep, nil
}

// Class is how an id's outcome changed between the two runs.
type Class string

const (
	Regressed Class = "regressed" // pass → warn or fail, warn → fail
	Improved  Class = "improved"  // the other way
	Appeared  Class = "appeared"  // only the new run has it
	Vanished  Class = "vanished"  // only the old run has it
	// Unplayable was judged in the old run (pass, warn or fail) and could
	// not be played in the new one (error): the new run says nothing about
	// it, so it is no regression, and no "no regression" either. It fails
	// the gate unless errors are allowed (aghcheck diff --allow-errors).
	Unplayable Class = "unplayable"
	// Unjudged is any other change to or from skip or error: one of the
	// runs did not judge it, so it neither regressed nor improved.
	Unjudged Class = "unjudged"
	// Shifted is a requirement whose verdict changed while every scenario
	// citing it kept its outcome (and no passive finding on it changed):
	// those scenarios stopped at another step, so the runs judged the
	// requirement on different steps. It says how far a scenario got, not
	// that the implementation changed, and is no regression.
	Shifted Class = "shifted"
)

// Kinds of compared ids.
const (
	Scenario    = "scenario"
	Requirement = "requirement"
)

// Change is one id whose outcome differs.
type Change struct {
	Kind  string         `json:"kind"` // Scenario or Requirement
	ID    string         `json:"id"`
	Level string         `json:"level,omitempty"`
	Old   report.Outcome `json:"old,omitempty"` // empty when the old run lacks it
	New   report.Outcome `json:"new,omitempty"` // empty when the new run lacks it
	Class Class          `json:"class"`
	// Message is why the new run's scenario did not pass (or, vanished, the
	// old run's): for reading, never compared.
	Message string `json:"message,omitempty"`
}

// Side is what one report says about its run.
type Side struct {
	File                  string         `json:"file"`
	Implementation        string         `json:"implementation"`
	ImplementationVersion string         `json:"implementation_version"`
	Aghcheck              string         `json:"aghcheck_version"`
	Level                 string         `json:"level"`
	Started               string         `json:"started"`
	Counts                map[string]int `json:"counts"` // scenarios by their own outcome
	Claim                 string         `json:"claim"`
}

// Diff is the comparison of two runs.
type Diff struct {
	Old Side `json:"old"`
	New Side `json:"new"`
	// Changes are every id whose outcome differs, scenarios first, each
	// kind in id order.
	Changes []Change `json:"changes"`
	// Same counts the ids with the same outcome in both runs.
	Same map[string]int `json:"same"`
}

// Count is the number of changes of one class.
func (d *Diff) Count(c Class) int {
	n := 0
	for _, ch := range d.Changes {
		if ch.Class == c {
			n++
		}
	}
	return n
}

// Regressed says whether anything regressed: the exit status of aghcheck
// diff.
func (d *Diff) Regressed() bool { return d.Count(Regressed) > 0 }

// Fails says whether the comparison fails the gate: something regressed,
// or (unless allowErrors) something judged before could not be played.
func (d *Diff) Fails(allowErrors bool) bool {
	return d.Regressed() || (!allowErrors && d.Count(Unplayable) > 0)
}

// Of lists the changes of one class.
func (d *Diff) Of(c Class) []Change {
	var out []Change
	for _, ch := range d.Changes {
		if ch.Class == c {
			out = append(out, ch)
		}
	}
	return out
}

// rank orders the outcomes that judge a peer; skip and error judge nothing.
var rank = map[report.Outcome]int{report.Pass: 0, report.Warn: 1, report.Fail: 2}

func classify(old, cur report.Outcome) Class {
	ro, okOld := rank[old]
	rn, okNew := rank[cur]
	switch {
	case old == "":
		return Appeared
	case cur == "":
		return Vanished
	case okOld && cur == report.Error:
		return Unplayable
	case !okOld || !okNew:
		return Unjudged
	case rn > ro:
		return Regressed
	}
	return Improved
}

// Compare compares two runs, old first.
func Compare(oldName string, old *report.Report, newName string, cur *report.Report) *Diff {
	d := &Diff{Old: side(oldName, old), New: side(newName, cur), Changes: []Change{}, Same: map[string]int{Scenario: 0, Requirement: 0}}
	type entry struct {
		outcome report.Outcome
		level   string
		message string
		cited   []string // a requirement's scenarios ("passive" for a passive finding)
	}
	var oldScenarios, newScenarios map[string]entry
	// steady says whether every scenario citing a requirement in either
	// run had the same outcome in both, no passive finding among them.
	steady := func(o, n entry) bool {
		for _, id := range append(slices.Clone(o.cited), n.cited...) {
			so, inOld := oldScenarios[id]
			sn, inNew := newScenarios[id]
			if !inOld || !inNew || so.outcome != sn.outcome {
				return false
			}
		}
		return true
	}
	compare := func(kind string, olds, news map[string]entry) {
		ids := make([]string, 0, len(olds)+len(news))
		for id := range olds {
			ids = append(ids, id)
		}
		for id := range news {
			if _, ok := olds[id]; !ok {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			o, n := olds[id], news[id]
			if o.outcome == n.outcome {
				d.Same[kind]++
				continue
			}
			ch := Change{Kind: kind, ID: id, Level: cmp.Or(n.level, o.level), Old: o.outcome, New: n.outcome, Class: classify(o.outcome, n.outcome)}
			if kind == Requirement && (ch.Class == Regressed || ch.Class == Improved) && steady(o, n) {
				ch.Class = Shifted
			}
			ch.Message = n.message
			if ch.Class == Vanished || (ch.Class == Improved && n.message == "") {
				ch.Message = o.message
			}
			d.Changes = append(d.Changes, ch)
		}
	}
	scenarios := func(rep *report.Report) map[string]entry {
		m := make(map[string]entry, len(rep.Scenarios))
		for _, sc := range rep.Scenarios {
			e := entry{outcome: sc.Actual(), level: sc.Level}
			if e.outcome != report.Pass {
				e.message = cmp.Or(sc.Message, firstNote(sc))
			}
			m[sc.ID] = e
		}
		return m
	}
	requirements := func(rep *report.Report) map[string]entry {
		m := make(map[string]entry, len(rep.Requirements))
		for _, r := range rep.Requirements {
			m[r.ID] = entry{outcome: r.Outcome, level: r.Level, cited: r.Scenarios}
		}
		return m
	}
	oldScenarios, newScenarios = scenarios(old), scenarios(cur)
	compare(Scenario, oldScenarios, newScenarios)
	compare(Requirement, requirements(old), requirements(cur))
	return d
}

func firstNote(sc *report.ScenarioResult) string {
	if len(sc.Notes) > 0 {
		return sc.Notes[0]
	}
	return ""
}

func side(name string, rep *report.Report) Side {
	s := Side{
		File:                  name,
		Implementation:        cmp.Or(rep.IUT.Implementation, report.Unknown),
		ImplementationVersion: cmp.Or(rep.IUT.ImplementationVersion, report.Unknown),
		Aghcheck:              cmp.Or(rep.Version, report.Unknown),
		Level:                 rep.Level,
		Claim:                 rep.Summary.Claim,
		Counts:                map[string]int{},
	}
	if !rep.Started.IsZero() {
		s.Started = rep.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	for _, o := range []report.Outcome{report.Pass, report.Fail, report.Warn, report.Skip, report.Error} {
		s.Counts[string(o)] = 0
	}
	for _, sc := range rep.Scenarios {
		s.Counts[string(sc.Actual())]++
	}
	return s
}
