package baseline

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
)

// report is a graded run as harness.Run leaves it: a.fails fails, b.warns
// warns, c passes, d was skipped, e errored; passive validation fails on
// one MUST rule and warns on one SHOULD rule.
func sampleReport() *report.Report {
	rep := &report.Report{
		Scenarios: []*report.ScenarioResult{
			{ID: "a.fails", Outcome: report.Fail, Message: "step 2 (expect): no receipt"},
			{ID: "b.warns", Outcome: report.Warn, Message: "step 3 (SHOULD): no duplicate receipt"},
			{ID: "c.passes", Outcome: report.Pass},
			{ID: "d.skipped", Outcome: report.Skip},
			{ID: "e.errors", Outcome: report.Error},
		},
		Passive: report.PassiveResult{Outcome: report.Fail, Envelopes: 9, Invalid: 2, Findings: []report.PassiveFinding{
			{Rule: "ENV-WORK-ID", Level: "MUST", Count: 2, Example: "error ENV-WORK-ID at /work_id"},
			{Rule: "NATS-GREET-RECONNECT", Level: "SHOULD", Count: 1, Example: "no greet after the reconnect"},
		}},
		Summary: report.Summary{Pass: 1, Fail: 1, Warn: 1, Skip: 1, Error: 1},
	}
	return rep
}

func parse(t *testing.T, src string) *Baseline {
	t.Helper()
	b, err := Parse("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// failuresRecorded records today's failures of sampleReport(): the failing and
// the erroring scenario and the MUST passive finding.
const failuresRecorded = `entries:
  - {id: a.fails, outcome: fail, reason: r}
  - {id: e.errors, outcome: error, reason: r}
  - {id: "passive:ENV-WORK-ID", outcome: fail, reason: r}`

// allRecorded records every deviation of sampleReport(): failuresRecorded plus
// the warning scenario and the SHOULD passive finding.
const allRecorded = failuresRecorded + `
  - {id: b.warns, outcome: warn, reason: r}
  - {id: "passive:NATS-GREET-RECONNECT", outcome: warn, reason: r}`

// strictReport is sampleReport() as a --strict run leaves it: the warning
// scenario fails (for --strict only) and so does passive validation.
func strictReport() *report.Report {
	rep := sampleReport()
	rep.Strict = true
	w := rep.Scenarios[1]
	w.Outcome, w.StrictFail = report.Fail, true
	rep.Summary.Warn, rep.Summary.Fail = 0, 2
	return rep
}

// applyCase is one baseline applied to sampleReport (strictReport under
// strict), and what the report says after.
type applyCase struct {
	name              string
	entries           string
	strict            bool
	passed            bool
	expected, stale   []string // entry ids by status
	unjudged          []string
	new               []string // deviations the baseline does not record
	fail, xfail, errs int      // summary after the baseline
	passive           report.Outcome
	outcomeOf         map[string]report.Outcome
}

// testApply applies each case's baseline and checks the report after.
func testApply(t *testing.T, tests []applyCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := sampleReport()
			if tt.strict {
				rep = strictReport()
			}
			b := parse(t, tt.entries)
			b.Apply(rep)
			s, sum := rep.Summary, rep.Baseline
			var expected []string
			for _, sc := range rep.Scenarios {
				if sc.Baseline != nil && sc.Baseline.Status == report.BaselineExpected {
					expected = append(expected, sc.ID)
				}
			}
			for _, f := range rep.Passive.Findings {
				if f.Baseline != nil && f.Baseline.Status == report.BaselineExpected {
					expected = append(expected, PassivePrefix+f.Rule)
				}
			}
			if s.Passed != tt.passed || s.Fail != tt.fail || s.ExpectedFail != tt.xfail || s.Error != tt.errs || s.Stale != len(tt.stale) {
				t.Errorf("summary %+v; want passed=%v fail=%d expected-fail=%d error=%d stale=%d", s, tt.passed, tt.fail, tt.xfail, tt.errs, len(tt.stale))
			}
			if !slices.Equal(expected, tt.expected) || sum.Expected != len(tt.expected) {
				t.Errorf("expected entries %v (%d), want %v", expected, sum.Expected, tt.expected)
			}
			if !slices.Equal(sum.Stale, tt.stale) || !slices.Equal(sum.Unjudged, tt.unjudged) {
				t.Errorf("stale %v unjudged %v, want %v and %v", sum.Stale, sum.Unjudged, tt.stale, tt.unjudged)
			}
			if !slices.Equal(sum.New, tt.new) {
				t.Errorf("new %v, want %v", sum.New, tt.new)
			}
			if rep.Passive.Outcome != tt.passive {
				t.Errorf("passive %s, want %s", rep.Passive.Outcome, tt.passive)
			}
			for id, want := range tt.outcomeOf {
				i := slices.IndexFunc(rep.Scenarios, func(sc *report.ScenarioResult) bool { return sc.ID == id })
				if got := rep.Scenarios[i].Outcome; got != want {
					t.Errorf("%s: %s, want %s", id, got, want)
				}
			}
			if s.Pass+s.Fail+s.Warn+s.Skip+s.Error+s.ExpectedFail != len(rep.Scenarios) {
				t.Errorf("summary %+v does not count %d scenarios", s, len(rep.Scenarios))
			}
		})
	}
}

func TestApply(t *testing.T) {
	testApply(t, []applyCase{
		{
			name:    "no entries: every deviation is new and fails the run",
			entries: `entries: []`, fail: 1, errs: 1, passive: report.Fail,
			new: []string{"a.fails", "b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"},
		},
		{
			name:    "every deviation recorded, warnings and the error too",
			entries: allRecorded,
			passed:  true, expected: []string{"a.fails", "b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"}, xfail: 3,
			passive:   report.ExpectedFail,
			outcomeOf: map[string]report.Outcome{"a.fails": report.ExpectedFail, "b.warns": report.ExpectedFail, "e.errors": report.ExpectedFail},
		},
		{
			name:     "every failure recorded: a new warning fails the run",
			entries:  failuresRecorded,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, xfail: 2,
			new:       []string{"b.warns", "passive:NATS-GREET-RECONNECT"},
			passive:   report.Warn, // the unrecorded SHOULD finding still warns
			outcomeOf: map[string]report.Outcome{"a.fails": report.ExpectedFail, "b.warns": report.Warn},
		},
		{
			name: "a recorded warning; the rest is new",
			entries: `entries:
  - {id: b.warns, outcome: warn, reason: erratum 7}`,
			expected: []string{"b.warns"}, fail: 1, errs: 1, xfail: 1, passive: report.Fail,
			new: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"},
		},
		{
			name: "a skipped scenario neither confirms nor staleness",
			entries: allRecorded + `
  - {id: d.skipped, outcome: fail, reason: r}`,
			passed: true, expected: []string{"a.fails", "b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"},
			unjudged: []string{"d.skipped"}, xfail: 3, passive: report.ExpectedFail,
		},
	})
}

// An entry is stale when the run no longer shows its deviation as recorded:
// gone, or falling short differently.
func TestApplyStale(t *testing.T) {
	testApply(t, []applyCase{
		{
			name: "stale: the scenario passes now",
			entries: allRecorded + `
  - {id: c.passes, outcome: fail, reason: erratum 9}`,
			expected: []string{"a.fails", "b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"}, stale: []string{"c.passes"}, xfail: 3,
			passive: report.ExpectedFail, outcomeOf: map[string]report.Outcome{"c.passes": report.Pass},
		},
		{
			name: "stale, not new: it falls short differently (recorded fail, now warn)",
			entries: failuresRecorded + `
  - {id: "passive:NATS-GREET-RECONNECT", outcome: warn, reason: r}
  - {id: b.warns, outcome: fail, reason: r}`,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"}, stale: []string{"b.warns"}, xfail: 2,
			passive: report.ExpectedFail,
		},
		{
			name: "stale: recorded warn, now fail (a regression)",
			entries: `entries:
  - {id: a.fails, outcome: warn, reason: r}
  - {id: e.errors, outcome: error, reason: r}
  - {id: "passive:ENV-WORK-ID", outcome: fail, reason: r}
  - {id: b.warns, outcome: warn, reason: r}
  - {id: "passive:NATS-GREET-RECONNECT", outcome: warn, reason: r}`,
			expected: []string{"b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"}, stale: []string{"a.fails"}, fail: 1, xfail: 2,
			passive: report.ExpectedFail, outcomeOf: map[string]report.Outcome{"a.fails": report.Fail},
		},
		{
			name: "stale: a passive rule no longer broken",
			entries: allRecorded + `
  - {id: "passive:ENV-THREAD-ID", outcome: fail, reason: r}`,
			expected: []string{"a.fails", "b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"},
			stale:    []string{"passive:ENV-THREAD-ID"}, xfail: 3, passive: report.ExpectedFail,
		},
	})
}

func TestApplyStrict(t *testing.T) {
	testApply(t, []applyCase{
		{
			name:    "--strict: the recorded warnings still hold",
			entries: allRecorded, strict: true,
			passed: true, expected: []string{"a.fails", "b.warns", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"}, xfail: 3,
			passive: report.ExpectedFail, outcomeOf: map[string]report.Outcome{"b.warns": report.ExpectedFail},
		},
		{
			name:    "--strict: an unrecorded warning is new, and a failure",
			entries: failuresRecorded, strict: true,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, fail: 1, xfail: 2,
			new:     []string{"b.warns", "passive:NATS-GREET-RECONNECT"},
			passive: report.Fail, outcomeOf: map[string]report.Outcome{"b.warns": report.Fail},
		},
		{
			name: "--strict: a warn entry for a real failure is stale",
			entries: `entries:
  - {id: a.fails, outcome: warn, reason: r}
  - {id: e.errors, outcome: error, reason: r}
  - {id: b.warns, outcome: warn, reason: r}
  - {id: "passive:ENV-WORK-ID", outcome: warn, reason: r}
  - {id: "passive:NATS-GREET-RECONNECT", outcome: warn, reason: r}`, strict: true,
			expected: []string{"b.warns", "e.errors", "passive:NATS-GREET-RECONNECT"}, stale: []string{"a.fails", "passive:ENV-WORK-ID"}, fail: 1, xfail: 2,
			passive: report.Fail,
		},
	})
}

// A run that could not be carried out never passes, baseline or not.
func TestApplyHarnessError(t *testing.T) {
	rep := sampleReport()
	rep.Error = "the IUT did not greet"
	parse(t, `entries: [{id: a.fails, outcome: fail, reason: r}, {id: e.errors, outcome: error, reason: r}, {id: "passive:ENV-WORK-ID", outcome: fail, reason: r}]`).Apply(rep)
	if rep.Summary.Passed {
		t.Error("a harness error passed")
	}
}

func TestPreviewLeavesTheResultAlone(t *testing.T) {
	b := parse(t, `entries: [{id: a.fails, outcome: fail, reason: erratum 3}]`)
	sc := sampleReport().Scenarios[0]
	p := b.Preview(sc)
	if p.Outcome != report.ExpectedFail || p.Baseline.Reason != "erratum 3" {
		t.Errorf("preview %s %+v", p.Outcome, p.Baseline)
	}
	if sc.Outcome != report.Fail || sc.Baseline != nil {
		t.Errorf("Preview changed the result: %s %+v", sc.Outcome, sc.Baseline)
	}
	if other := sampleReport().Scenarios[2]; b.Preview(other) != other {
		t.Error("a scenario without an entry was copied")
	}
	// Under --strict a warning fails, and its warn entry still holds.
	strict := strictReport().Scenarios[1]
	if p := parse(t, `entries: [{id: b.warns, outcome: warn, reason: R1}]`).Preview(strict); p.Outcome != report.ExpectedFail {
		t.Errorf("--strict preview of a recorded warning: %s %+v", p.Outcome, p.Baseline)
	}
	if none := (*Baseline)(nil); none.Preview(sc) != sc {
		t.Error("no baseline changed the result")
	}
}

func TestParseMalformed(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"empty", "", "b.yaml: empty file"},
		{"bad-indent", "entries:\n  - id: a\n   outcome: fail", "b.yaml: line 1: did not find expected"},
		{"unknown-top-field", "deviations: []", "b.yaml: line 1: field deviations not found"},
		{"entries-not-a-list", "entries: {id: a}", "cannot unmarshal !!map into []baseline.Entry"},
		{"version-field", "version: 1\n", "field version not found"},
		{"no-entries", "# nothing\n{}\n", "b.yaml: no entries list"},
		{"no-id", "entries:\n  - {outcome: fail, reason: r}", "b.yaml:2: entry 1 has no id"},
		{"listed-twice", "entries:\n  - {id: a, outcome: fail, reason: r}\n  - {id: a, outcome: fail, reason: s}", "b.yaml:3: a is listed twice (first at line 2)"},
		{"unknown-outcome", "entries:\n  - {id: a, outcome: failed, reason: r}", `b.yaml:2: a: outcome "failed", want fail, warn or error`},
		{"no-outcome", "entries:\n  - {id: a, reason: r}", `b.yaml:2: a: outcome "", want fail, warn or error`},
		{"pass-outcome", "entries:\n  - {id: a, outcome: pass, reason: r}", `outcome "pass"`},
		{"no-reason", "entries:\n  - {id: a, outcome: fail}", "b.yaml:2: a has no reason (an erratum id or an issue link)"},
		{"unknown-entry-field", "entries:\n  - {id: a, outcome: fail, reason: r, why: x}", "field why not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("b.yaml", []byte(tt.src))
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: error %v, want one line with %q", tt.src, err, tt.want)
			}
		})
	}
}

// An id that names nothing any more is retired: listed, and reported
// stale by Apply (so the run fails), never a usage error.
func TestRetire(t *testing.T) {
	b := parse(t, "entries:\n  - {id: a.fails, outcome: fail, reason: r}\n  - {id: nope.gone, outcome: fail, reason: r}\n"+
		"  - {id: \"passive:ENV-WORK-ID\", outcome: fail, reason: r}\n  - {id: \"passive:NO-SUCH-RULE\", outcome: fail, reason: r}\n")
	scenarios := func(id string) bool { return id == "a.fails" }
	rules := func(id string) bool { return id == "ENV-WORK-ID" }
	got := b.Retire(scenarios, rules)
	if want := []string{"b.yaml:3: nope.gone", "b.yaml:5: passive:NO-SUCH-RULE"}; !slices.Equal(got, want) {
		t.Fatalf("retired %q, want %q", got, want)
	}
	if !b.Retired("nope.gone") || b.Retired("a.fails") || b.Retired("no.entry") {
		t.Error("Retired does not follow Retire")
	}
	rep := &report.Report{Scenarios: []*report.ScenarioResult{{ID: "a.fails", Outcome: report.Fail}}}
	b.Apply(rep)
	if s := rep.Baseline; !slices.Equal(s.Retired, []string{"nope.gone", "passive:NO-SUCH-RULE"}) ||
		!slices.Contains(s.Stale, "nope.gone") || !slices.Contains(s.Stale, "passive:NO-SUCH-RULE") || rep.Summary.Passed {
		t.Errorf("applied: %+v, passed %v; want both retired ids stale and the run failed", s, rep.Summary.Passed)
	}
	if got := parse(t, "entries: [{id: a.fails, outcome: fail, reason: r}]").Retire(scenarios, rules); len(got) != 0 {
		t.Fatalf("retired %q", got)
	}
}

// The written file is a baseline the same run passes against, and keeps
// the reasons of a previous baseline for the entries that still hold.
func TestWrite(t *testing.T) {
	prev := parse(t, `entries: [{id: a.fails, outcome: fail, reason: erratum 3}, {id: c.passes, outcome: fail, reason: fixed since}]`)
	var out bytes.Buffer
	if err := Write(&out, sampleReport(), prev); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/written.golden.yaml", out.Bytes())
	b, err := Parse("written", out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The written file names today's failures, not the error.
	rep := sampleReport()
	rep.Scenarios[4].Outcome = report.Pass
	rep.Summary.Error, rep.Summary.Pass = 0, 2
	b.Apply(rep)
	if !rep.Summary.Passed || rep.Baseline.Expected != 4 {
		t.Errorf("the run does not pass against the baseline it wrote: %+v %+v", rep.Summary, rep.Baseline)
	}
	// After a baseline rewrote the outcomes, the real ones are written.
	var again bytes.Buffer
	if err := Write(&again, rep, b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), out.Bytes()) {
		t.Errorf("rewritten after Apply:\n%s\nwant:\n%s", again.Bytes(), out.Bytes())
	}

	var none bytes.Buffer
	if err := Write(&none, &report.Report{}, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := Parse("none", none.Bytes()); err != nil || len(b.Entries) != 0 {
		t.Errorf("a run without failures wrote %q (%v)", none.String(), err)
	}
}

// Warnings are written like failures (a new one fails the gate), with the
// reason a previous baseline gives the same deviation; a --strict run
// writes the same file as a run without it.
func TestWriteWarnings(t *testing.T) {
	todo := func(id, outcome string) string { return id + "=" + outcome + "=" + TODOReason }
	for _, tc := range []struct {
		name, prev string
		strict     bool
		want       []string // id=outcome=reason, in order
	}{
		{"no previous file", `entries: []`, false,
			[]string{todo("a.fails", "fail"), todo("b.warns", "warn"), todo("passive:ENV-WORK-ID", "fail"), todo("passive:NATS-GREET-RECONNECT", "warn")}},
		{"reasons kept", `entries: [{id: b.warns, outcome: warn, reason: R1}, {id: passive:NATS-GREET-RECONNECT, outcome: warn, reason: R6}]`, false,
			[]string{todo("a.fails", "fail"), "b.warns=warn=R1", todo("passive:ENV-WORK-ID", "fail"), "passive:NATS-GREET-RECONNECT=warn=R6"}},
		{"reasons kept under --strict", `entries: [{id: b.warns, outcome: warn, reason: R1}, {id: passive:NATS-GREET-RECONNECT, outcome: warn, reason: R6}]`, true,
			[]string{todo("a.fails", "fail"), "b.warns=warn=R1", todo("passive:ENV-WORK-ID", "fail"), "passive:NATS-GREET-RECONNECT=warn=R6"}},
		// Recorded as a failure, it warns today: not the same deviation.
		{"recorded otherwise", `entries: [{id: b.warns, outcome: fail, reason: R1}]`, false,
			[]string{todo("a.fails", "fail"), todo("b.warns", "warn"), todo("passive:ENV-WORK-ID", "fail"), todo("passive:NATS-GREET-RECONNECT", "warn")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := sampleReport()
			if tc.strict {
				rep = strictReport()
			}
			rep.Scenarios[1].Message, rep.Scenarios[1].Notes = "", []string{"step 3 (SHOULD): no duplicate receipt"}
			var out bytes.Buffer
			if err := Write(&out, rep, parse(t, tc.prev)); err != nil {
				t.Fatal(err)
			}
			b, err := Parse("written", out.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range b.Entries {
				got = append(got, e.ID+"="+string(e.Outcome)+"="+e.Reason)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("written entries\n%q\nwant\n%q", got, tc.want)
			}
			if !strings.Contains(out.String(), "# step 3 (SHOULD): no duplicate receipt\n  - id: b.warns") {
				t.Errorf("the warning is not commented with its note:\n%s", out.String())
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("entries:\n  - {id: a, outcome: fail, reason: r}\n"))
	f.Add([]byte("entries: []"))
	f.Add([]byte("entries:\n  - id: passive:ENV-WORK-ID\n    outcome: warn\n    reason: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse("f.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error on several lines: %q", err)
			}
			return
		}
		// A loaded baseline applies to any report without panicking.
		b.Apply(sampleReport())
	})
}

func TestUnreasoned(t *testing.T) {
	b, err := Parse("known.yaml", []byte(`entries:
  - {id: a, outcome: fail, reason: erratum 2}
  - {id: b, outcome: fail, reason: "TODO: name the erratum or link the issue"}
  - {id: c, outcome: warn, reason: todo}
  - {id: d, outcome: fail, reason: "https://example.org/issues/7 (TODO list item)"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Unreasoned(), []string{"known.yaml:3: b", "known.yaml:4: c"}; !slices.Equal(got, want) {
		t.Errorf("Unreasoned() = %q, want %q", got, want)
	}
}
