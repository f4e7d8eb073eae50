// Package baseline holds a peer's known deviations — the --baseline file of
// `aghcheck run` — and applies them to a run's report: a recorded failure or
// warning is reported as expected-fail and does not fail the run, a new
// failure or warning does, and so does an entry that no longer holds
// (stale), so the file can only shrink honestly.
package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/report"
)

// PassivePrefix starts the id of an entry for a passive finding: the rule
// broken by what the IUT published, as in passive:ENV-WORK-ID.
const PassivePrefix = "passive:"

// ErrMalformed marks a file that is not a baseline: a usage error.
var ErrMalformed = errors.New("malformed baseline")

// Entry is one known deviation.
type Entry struct {
	// ID is a scenario (or generated case) id, or passive:RULE-ID.
	ID string `yaml:"id"`
	// Outcome is the outcome recorded for it: fail, warn or error.
	Outcome report.Outcome `yaml:"outcome"`
	// Reason says why: an erratum id or an issue link.
	Reason string `yaml:"reason"`

	line    int
	retired bool // names no scenario or rule any more (see Retire)
}

// Baseline is a loaded baseline file.
type Baseline struct {
	File    string
	Entries []Entry
	byID    map[string]*Entry
}

type file struct {
	Entries *[]Entry `yaml:"entries"`
}

// Load reads and checks a baseline file.
func Load(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return Parse(path, data)
}

// Parse checks a baseline file's contents; name is used in errors. Every
// error is one line: the file, the line, what is wrong.
func Parse(name string, data []byte) (*Baseline, error) {
	bad := func(line int, format string, args ...any) error {
		where := name
		if line > 0 {
			where = fmt.Sprintf("%s:%d", name, line)
		}
		return fmt.Errorf("%w %s: %s", ErrMalformed, where, fmt.Sprintf(format, args...))
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, bad(0, "empty file (want a map with an entries list)")
		}
		return nil, bad(0, "%s", oneLine(err))
	}
	if f.Entries == nil {
		return nil, bad(0, "no entries list (an empty baseline is 'entries: []')")
	}
	// Decoded again as nodes for the line of each entry.
	var lines struct{ Entries []yaml.Node }
	_ = yaml.Unmarshal(data, &lines)
	b := &Baseline{File: name, Entries: *f.Entries, byID: map[string]*Entry{}}
	for i := range b.Entries {
		e := &b.Entries[i]
		if i < len(lines.Entries) {
			e.line = lines.Entries[i].Line
		}
		switch {
		case strings.TrimSpace(e.ID) == "":
			return nil, bad(e.line, "entry %d has no id", i+1)
		case b.byID[e.ID] != nil:
			return nil, bad(e.line, "%s is listed twice (first at line %d)", e.ID, b.byID[e.ID].line)
		case e.Outcome != report.Fail && e.Outcome != report.Warn && e.Outcome != report.Error:
			return nil, bad(e.line, "%s: outcome %q, want fail, warn or error", e.ID, e.Outcome)
		case strings.TrimSpace(e.Reason) == "":
			return nil, bad(e.line, "%s has no reason (an erratum id or an issue link)", e.ID)
		}
		b.byID[e.ID] = e
	}
	return b, nil
}

// oneLine joins a YAML error's lines (a type error lists one per field,
// and may quote a value that spans lines).
func oneLine(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	return strings.Join(strings.Fields(msg), " ")
}

// Unreasoned lists, as file:line: id, the entries whose reason is still a
// placeholder (TODO..., as --write-baseline leaves it): a baseline is only
// as good as the reasons it gives for what it excuses.
func (b *Baseline) Unreasoned() []string {
	var out []string
	for _, e := range b.Entries {
		if r := strings.TrimSpace(e.Reason); len(r) >= 4 && strings.EqualFold(r[:4], "TODO") {
			out = append(out, fmt.Sprintf("%s:%d: %s", b.File, e.line, e.ID))
		}
	}
	return out
}

// Retire marks the entries naming neither a scenario (scenario says
// whether an id is one) nor, after passive:, a rule (rule likewise), and
// lists them as file:line: id. Such an entry is retired, not a usage
// error: the scenario or rule was removed or renamed, the deviation it
// recorded can no longer be seen, and Apply reports it stale, so the run
// fails until the entry is removed or renamed.
func (b *Baseline) Retire(scenario, rule func(id string) bool) []string {
	var retired []string
	for i := range b.Entries {
		e := &b.Entries[i]
		r, passive := strings.CutPrefix(e.ID, PassivePrefix)
		e.retired = (passive && !rule(r)) || (!passive && !scenario(e.ID))
		if e.retired {
			retired = append(retired, fmt.Sprintf("%s:%d: %s", b.File, e.line, e.ID))
		}
	}
	return retired
}

// Retired says whether id is an entry Retire found naming nothing.
func (b *Baseline) Retired(id string) bool {
	e := b.byID[id]
	return e != nil && e.retired
}

// judge compares what a run had with what an entry records.
func judge(actual, recorded report.Outcome) string {
	switch {
	case actual == recorded:
		return report.BaselineExpected
	case actual == report.Skip || actual == report.Error || actual == "":
		return report.BaselineUnjudged
	}
	return report.BaselineStale
}

func (b *Baseline) mark(id string, actual report.Outcome) *report.BaselineMark {
	e := b.byID[id]
	if e == nil {
		return nil
	}
	return &report.BaselineMark{Status: judge(actual, e.Outcome), Recorded: e.Outcome, Actual: actual, Reason: e.Reason}
}

// Preview is sc as it reads once the baseline is applied (a copy; sc is
// left alone): for the live progress of a run, whose claims are graded on
// the real outcomes. A nil baseline changes nothing.
func (b *Baseline) Preview(sc *report.ScenarioResult) *report.ScenarioResult {
	if b == nil {
		return sc
	}
	m := b.mark(sc.ID, sc.Actual())
	if m == nil {
		return sc
	}
	c := *sc
	c.Baseline = m
	if m.Status == report.BaselineExpected {
		c.Outcome = report.ExpectedFail
	}
	return &c
}

// levelOutcome is what a passive finding is at its rule's level, without
// --strict: fail for a MUST, warn otherwise.
func levelOutcome(f *report.PassiveFinding) report.Outcome {
	if f.Level == "MUST" {
		return report.Fail
	}
	return report.Warn
}

// Apply marks every scenario and passive finding an entry names, reports a
// recorded failure or warning as expected-fail, and sets the run's
// verdict: passed when nothing failed, errored or warned outside the
// baseline (a new SHOULD shortfall is a regression too) and no entry is
// stale. Claims stay as graded on the real outcomes.
func (b *Baseline) Apply(rep *report.Report) {
	sum := &report.BaselineSummary{File: b.File, Entries: len(b.Entries)}
	s := &rep.Summary
	seen := map[string]bool{}
	tally := func(id string, m *report.BaselineMark) {
		seen[id] = true
		switch m.Status {
		case report.BaselineExpected:
			sum.Expected++
		case report.BaselineStale:
			sum.Stale = append(sum.Stale, id)
		default:
			sum.Unjudged = append(sum.Unjudged, id)
		}
	}
	for _, sc := range rep.Scenarios {
		m := b.mark(sc.ID, sc.Actual())
		if m != nil {
			sc.Baseline = m
			tally(sc.ID, m)
		}
		if m != nil && m.Status == report.BaselineExpected {
			count(s, sc.Outcome, -1)
			sc.Outcome = report.ExpectedFail
			s.ExpectedFail++
		} else if m == nil && (sc.Outcome == report.Fail || sc.Outcome == report.Warn || sc.Outcome == report.Error) {
			sum.New = append(sum.New, sc.ID) // with an entry it is stale, and named so
		}
	}
	b.applyPassive(rep, tally, sum)
	for _, e := range b.Entries {
		if seen[e.ID] {
			continue
		}
		// A retired id; a rule the IUT no longer breaks; a scenario the
		// run never had.
		if e.retired {
			sum.Stale = append(sum.Stale, e.ID)
			sum.Retired = append(sum.Retired, e.ID)
		} else if strings.HasPrefix(e.ID, PassivePrefix) && rep.Error == "" && rep.Passive.Envelopes > 0 {
			sum.Stale = append(sum.Stale, e.ID)
		} else {
			sum.Unjudged = append(sum.Unjudged, e.ID)
		}
	}
	rep.Baseline = sum
	s.Stale = len(sum.Stale)
	s.Passed = rep.Error == "" && len(sum.New) == 0 && rep.Passive.Outcome != report.Fail &&
		s.Stale == 0 && s.Pass+s.ExpectedFail > 0
}

// applyPassive marks the passive findings, grades the passive verdict on
// the findings the baseline does not expect, and lists those as new.
func (b *Baseline) applyPassive(rep *report.Report, tally func(string, *report.BaselineMark), sum *report.BaselineSummary) {
	p := &rep.Passive
	rest, expected := report.Pass, false
	for i := range p.Findings {
		f := &p.Findings[i]
		id := PassivePrefix + f.Rule
		m := b.mark(id, levelOutcome(f))
		if m != nil {
			f.Baseline = m
			tally(id, m)
		}
		if m != nil && m.Status == report.BaselineExpected {
			expected = true
			continue
		}
		if m == nil {
			sum.New = append(sum.New, id)
		}
		if o := findingOutcome(f, rep.Strict); o == report.Fail || (o == report.Warn && rest != report.Fail) {
			rest = o
		}
	}
	if expected && (p.Outcome == report.Fail || p.Outcome == report.Warn) {
		p.Outcome = rest
		if rest == report.Pass {
			p.Outcome = report.ExpectedFail
		}
	}
}

// findingOutcome is what a passive finding makes of the verdict.
func findingOutcome(f *report.PassiveFinding, strict bool) report.Outcome {
	if strict {
		return report.Fail
	}
	return levelOutcome(f)
}

func count(s *report.Summary, o report.Outcome, d int) {
	switch o {
	case report.Pass:
		s.Pass += d
	case report.Fail:
		s.Fail += d
	case report.Warn:
		s.Warn += d
	case report.Skip:
		s.Skip += d
	case report.Error:
		s.Error += d
	}
}
