package baseline

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/golden"
)

// report is a graded run as harness.Run leaves it: a.fails fails, b.warns
// warns, c passes, d was skipped, e errored; passive validation fails on
// one MUST rule and warns on one SHOULD rule.
func report() *harness.Report {
	rep := &harness.Report{
		Scenarios: []*harness.ScenarioResult{
			{ID: "a.fails", Outcome: harness.Fail, Message: "step 2 (expect): no receipt"},
			{ID: "b.warns", Outcome: harness.Warn, Message: "step 3 (SHOULD): no duplicate receipt"},
			{ID: "c.passes", Outcome: harness.Pass},
			{ID: "d.skipped", Outcome: harness.Skip},
			{ID: "e.errors", Outcome: harness.Error},
		},
		Passive: harness.PassiveResult{Outcome: harness.Fail, Envelopes: 9, Invalid: 2, Findings: []harness.PassiveFinding{
			{Rule: "ENV-WORK-ID", Level: "MUST", Count: 2, Example: "error ENV-WORK-ID at /work_id"},
			{Rule: "NATS-GREET-RECONNECT", Level: "SHOULD", Count: 1, Example: "no greet after the reconnect"},
		}},
		Summary: harness.Summary{Pass: 1, Fail: 1, Warn: 1, Skip: 1, Error: 1},
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

// failuresRecorded records today's failures of report(): the failing and
// the erroring scenario and the MUST passive finding.
const failuresRecorded = `entries:
  - {id: a.fails, outcome: fail, reason: r}
  - {id: e.errors, outcome: error, reason: r}
  - {id: "passive:ENV-WORK-ID", outcome: fail, reason: r}`

func TestApply(t *testing.T) {
	tests := []struct {
		name                 string
		entries              string
		strict               bool
		passed               bool
		expected, stale      []string // entry ids by status
		unjudged             []string
		fail, xfail, errs    int // summary after the baseline
		passive              harness.Outcome
		outcomeOf            map[string]harness.Outcome
		noPassiveBaselineFor string
	}{
		{
			name:    "no entries: a new failure fails the run",
			entries: `entries: []`, fail: 1, errs: 1, passive: harness.Fail,
		},
		{
			name: "every failure recorded, the error too",
			entries: `entries:
  - {id: a.fails, outcome: fail, reason: erratum 3}
  - {id: e.errors, outcome: error, reason: "https://example.org/issues/1"}
  - {id: "passive:ENV-WORK-ID", outcome: fail, reason: erratum 1}`,
			passed: true, expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, xfail: 2,
			passive:   harness.Warn, // the unrecorded SHOULD finding still warns
			outcomeOf: map[string]harness.Outcome{"a.fails": harness.ExpectedFail, "e.errors": harness.ExpectedFail},
		},
		{
			name: "a recorded warning; the rest is new",
			entries: `entries:
  - {id: b.warns, outcome: warn, reason: erratum 7}`,
			expected: []string{"b.warns"}, fail: 1, errs: 1, xfail: 1, passive: harness.Fail,
		},
		{
			name: "stale: the scenario passes now",
			entries: `entries:
  - {id: a.fails, outcome: fail, reason: erratum 3}
  - {id: e.errors, outcome: error, reason: erratum 4}
  - {id: "passive:ENV-WORK-ID", outcome: fail, reason: erratum 1}
  - {id: c.passes, outcome: fail, reason: erratum 9}`,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, stale: []string{"c.passes"}, xfail: 2,
			passive: harness.Warn, outcomeOf: map[string]harness.Outcome{"c.passes": harness.Pass},
		},
		{
			name: "stale: it falls short differently (recorded fail, now warn)",
			entries: failuresRecorded + `
  - {id: b.warns, outcome: fail, reason: r}`,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, stale: []string{"b.warns"}, xfail: 2, passive: harness.Warn,
		},
		{
			name: "stale: a passive rule no longer broken",
			entries: failuresRecorded + `
  - {id: "passive:ENV-THREAD-ID", outcome: fail, reason: r}`,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, stale: []string{"passive:ENV-THREAD-ID"}, xfail: 2, passive: harness.Warn,
		},
		{
			name: "a skipped scenario neither confirms nor staleness",
			entries: failuresRecorded + `
  - {id: "passive:NATS-GREET-RECONNECT", outcome: warn, reason: r}
  - {id: d.skipped, outcome: fail, reason: r}`,
			passed: true, expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID", "passive:NATS-GREET-RECONNECT"},
			unjudged: []string{"d.skipped"}, xfail: 2, passive: harness.ExpectedFail,
		},
		{
			name: "--strict: a SHOULD finding is a failure; recorded as warn it is stale",
			entries: failuresRecorded + `
  - {id: "passive:NATS-GREET-RECONNECT", outcome: warn, reason: r}`,
			strict:   true,
			expected: []string{"a.fails", "e.errors", "passive:ENV-WORK-ID"}, stale: []string{"passive:NATS-GREET-RECONNECT"}, xfail: 2,
			passive: harness.Fail,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := report()
			rep.Strict = tt.strict
			b := parse(t, tt.entries)
			b.Apply(rep)
			s, sum := rep.Summary, rep.Baseline
			var expected []string
			for _, sc := range rep.Scenarios {
				if sc.Baseline != nil && sc.Baseline.Status == harness.BaselineExpected {
					expected = append(expected, sc.ID)
				}
			}
			for _, f := range rep.Passive.Findings {
				if f.Baseline != nil && f.Baseline.Status == harness.BaselineExpected {
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
			if rep.Passive.Outcome != tt.passive {
				t.Errorf("passive %s, want %s", rep.Passive.Outcome, tt.passive)
			}
			for id, want := range tt.outcomeOf {
				i := slices.IndexFunc(rep.Scenarios, func(sc *harness.ScenarioResult) bool { return sc.ID == id })
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

// A run that could not be carried out never passes, baseline or not.
func TestApplyHarnessError(t *testing.T) {
	rep := report()
	rep.Error = "the IUT did not greet"
	parse(t, `entries: [{id: a.fails, outcome: fail, reason: r}, {id: e.errors, outcome: error, reason: r}, {id: "passive:ENV-WORK-ID", outcome: fail, reason: r}]`).Apply(rep)
	if rep.Summary.Passed {
		t.Error("a harness error passed")
	}
}

func TestPreviewLeavesTheResultAlone(t *testing.T) {
	b := parse(t, `entries: [{id: a.fails, outcome: fail, reason: erratum 3}]`)
	sc := report().Scenarios[0]
	p := b.Preview(sc)
	if p.Outcome != harness.ExpectedFail || p.Baseline.Reason != "erratum 3" {
		t.Errorf("preview %s %+v", p.Outcome, p.Baseline)
	}
	if sc.Outcome != harness.Fail || sc.Baseline != nil {
		t.Errorf("Preview changed the result: %s %+v", sc.Outcome, sc.Baseline)
	}
	if other := report().Scenarios[2]; b.Preview(other) != other {
		t.Error("a scenario without an entry was copied")
	}
	if none := (*Baseline)(nil); none.Preview(sc) != sc {
		t.Error("no baseline changed the result")
	}
}

func TestParseMalformed(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"", "b.yaml: empty file"},
		{"entries:\n  - id: a\n   outcome: fail", "b.yaml: line 1: did not find expected"},
		{"deviations: []", "b.yaml: line 1: field deviations not found"},
		{"entries: {id: a}", "cannot unmarshal !!map into []baseline.Entry"},
		{"version: 1\n", "field version not found"},
		{"# nothing\n{}\n", "b.yaml: no entries list"},
		{"entries:\n  - {outcome: fail, reason: r}", "b.yaml:2: entry 1 has no id"},
		{"entries:\n  - {id: a, outcome: fail, reason: r}\n  - {id: a, outcome: fail, reason: s}", "b.yaml:3: a is listed twice (first at line 2)"},
		{"entries:\n  - {id: a, outcome: failed, reason: r}", `b.yaml:2: a: outcome "failed", want fail, warn or error`},
		{"entries:\n  - {id: a, reason: r}", `b.yaml:2: a: outcome "", want fail, warn or error`},
		{"entries:\n  - {id: a, outcome: pass, reason: r}", `outcome "pass"`},
		{"entries:\n  - {id: a, outcome: fail}", "b.yaml:2: a has no reason (an erratum id or an issue link)"},
		{"entries:\n  - {id: a, outcome: fail, reason: r, why: x}", "field why not found"},
	} {
		_, err := Parse("b.yaml", []byte(tt.src))
		if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", tt.src, err, tt.want)
		}
	}
}

func TestCheckIDs(t *testing.T) {
	b := parse(t, "entries:\n  - {id: a.fails, outcome: fail, reason: r}\n  - {id: nope.gone, outcome: fail, reason: r}\n"+
		"  - {id: \"passive:ENV-WORK-ID\", outcome: fail, reason: r}\n  - {id: \"passive:NO-SUCH-RULE\", outcome: fail, reason: r}\n")
	scenarios := func(id string) bool { return id == "a.fails" }
	rules := func(id string) bool { return id == "ENV-WORK-ID" }
	err := b.CheckIDs(scenarios, rules)
	if !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), "unknown id b.yaml:3: nope.gone, b.yaml:5: passive:NO-SUCH-RULE (") {
		t.Fatalf("error %v", err)
	}
	if err := parse(t, "entries: [{id: a.fails, outcome: fail, reason: r}]").CheckIDs(scenarios, rules); err != nil {
		t.Fatal(err)
	}
}

// The written file is a baseline the same run passes against, and keeps
// the reasons of a previous baseline for the entries that still hold.
func TestWrite(t *testing.T) {
	prev := parse(t, `entries: [{id: a.fails, outcome: fail, reason: erratum 3}, {id: c.passes, outcome: fail, reason: fixed since}]`)
	var out bytes.Buffer
	if err := Write(&out, report(), prev); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/written.golden.yaml", out.Bytes())
	b, err := Parse("written", out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The written file names today's failures, not the error.
	rep := report()
	rep.Scenarios[4].Outcome = harness.Pass
	rep.Summary.Error, rep.Summary.Pass = 0, 2
	b.Apply(rep)
	if !rep.Summary.Passed || rep.Baseline.Expected != 2 {
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
	if err := Write(&none, &harness.Report{}, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := Parse("none", none.Bytes()); err != nil || len(b.Entries) != 0 {
		t.Errorf("a run without failures wrote %q (%v)", none.String(), err)
	}
}

// A warning is written only when the previous baseline pins it, with its
// reason; an unpinned one is left out (warnings never fail a run).
func TestWriteKeepsPinnedWarnings(t *testing.T) {
	rep := report()
	rep.Scenarios[1].Message, rep.Scenarios[1].Notes = "", []string{"step 3 (SHOULD): no duplicate receipt"}
	for _, tc := range []struct {
		name, prev string
		want       []string // id=outcome=reason, in order
	}{
		{"unpinned", `entries: []`, []string{"a.fails=fail=" + TODOReason, "passive:ENV-WORK-ID=fail=" + TODOReason}},
		{"pinned", `entries: [{id: b.warns, outcome: warn, reason: R1}, {id: passive:NATS-GREET-RECONNECT, outcome: warn, reason: R6}]`,
			[]string{"a.fails=fail=" + TODOReason, "b.warns=warn=R1", "passive:ENV-WORK-ID=fail=" + TODOReason, "passive:NATS-GREET-RECONNECT=warn=R6"}},
		// Recorded as a failure, it warns today: not the same deviation.
		{"recorded otherwise", `entries: [{id: b.warns, outcome: fail, reason: R1}]`, []string{"a.fails=fail=" + TODOReason, "passive:ENV-WORK-ID=fail=" + TODOReason}},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
			if tc.name == "pinned" && !strings.Contains(out.String(), "# step 3 (SHOULD): no duplicate receipt\n  - id: b.warns") {
				t.Errorf("the pinned warning is not commented with its note:\n%s", out.String())
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
		b.Apply(report())
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
