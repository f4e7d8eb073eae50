package rundiff

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
)

func sc(id string, o report.Outcome, msg string) *report.ScenarioResult {
	return &report.ScenarioResult{ID: id, Level: "MUST", Outcome: o, Message: msg, Duration: report.Millis(time.Millisecond)}
}

func sampleReport(version string, scs []*report.ScenarioResult, reqs ...report.RequirementResult) *report.Report {
	return &report.Report{Tool: "aghcheck", Version: "v1", Level: "full",
		IUT:       report.IUTInfo{Implementation: "acme", ImplementationVersion: version},
		Scenarios: scs, Requirements: reqs}
}

// Every class of change, and what is never one: a changed message or
// timing, a baseline's expected-fail for the failure it records, a failure
// that is only --strict's for a warning.
func TestCompare(t *testing.T) {
	strictFail := sc("k.warns", report.Fail, "step 2 (SHOULD) (--strict)")
	strictFail.StrictFail = true
	xfail := sc("j.known", report.ExpectedFail, "step 3: accepted")
	xfail.Baseline = &report.BaselineMark{Status: report.BaselineExpected, Recorded: report.Fail, Actual: report.Fail}
	old := sampleReport("1.0", []*report.ScenarioResult{
		sc("a.regresses", report.Pass, ""),
		sc("b.improves", report.Fail, "step 2: no receipt msg_111"),
		sc("c.warns-now", report.Pass, ""),
		sc("d.was-skipped", report.Skip, "not advertised"),
		sc("e.vanishes", report.Warn, "step 4: old"),
		sc("g.same", report.Fail, "step 2: nothing from msg_aaa"),
		sc("j.known", report.Fail, "step 3: accepted"),
		sc("k.warns", report.Warn, "step 2 (SHOULD)"),
		sc("l.fail-to-warn", report.Fail, "x"),
	}, report.RequirementResult{ID: "REQ-A", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"a.regresses", "g.same"}},
		report.RequirementResult{ID: "REQ-B", Level: "SHOULD", Outcome: report.Warn},
		report.RequirementResult{ID: "REQ-GONE", Level: "MUST", Outcome: report.Pass},
		report.RequirementResult{ID: "REQ-P", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"g.same"}},
		report.RequirementResult{ID: "REQ-S", Level: "SHOULD", Outcome: report.Pass, Scenarios: []string{"g.same", "j.known"}})
	cur := sampleReport("1.1-dirty", []*report.ScenarioResult{
		sc("a.regresses", report.Fail, "step 3: accepted expired work"),
		sc("b.improves", report.Pass, ""),
		sc("c.warns-now", report.Warn, "step 2 (SHOULD): no receipt"),
		sc("d.was-skipped", report.Pass, ""),
		sc("f.appears", report.Fail, "new"),
		sc("g.same", report.Fail, "step 2: nothing from msg_bbb"), // another message id: the same
		xfail,
		strictFail,
		sc("l.fail-to-warn", report.Warn, "y"),
	}, report.RequirementResult{ID: "REQ-A", Level: "MUST", Outcome: report.Fail, Scenarios: []string{"a.regresses", "g.same"}},
		report.RequirementResult{ID: "REQ-B", Level: "SHOULD", Outcome: report.Warn},
		report.RequirementResult{ID: "REQ-NEW", Level: "MUST", Outcome: report.Skip},
		// A passive finding on the rule is new: a regression, whatever the scenarios did.
		report.RequirementResult{ID: "REQ-P", Level: "MUST", Outcome: report.Fail, Scenarios: []string{"g.same", "passive"}},
		// Its scenarios kept their outcomes: g.same stopped at another step.
		report.RequirementResult{ID: "REQ-S", Level: "SHOULD", Outcome: report.Warn, Scenarios: []string{"g.same", "j.known"}})
	cur.Scenarios[5].Duration = report.Millis(time.Second)

	d := Compare("old.json", old, "new.json", cur)
	var got []string
	for _, c := range d.Changes {
		got = append(got, c.Kind+" "+c.ID+" "+string(c.Old)+">"+string(c.New)+" "+string(c.Class)+" "+c.Message)
	}
	want := []string{
		"scenario a.regresses pass>fail regressed step 3: accepted expired work",
		"scenario b.improves fail>pass improved step 2: no receipt msg_111",
		"scenario c.warns-now pass>warn regressed step 2 (SHOULD): no receipt",
		"scenario d.was-skipped skip>pass unjudged ",
		"scenario e.vanishes warn> vanished step 4: old",
		"scenario f.appears >fail appeared new",
		"scenario l.fail-to-warn fail>warn improved y",
		"requirement REQ-A pass>fail regressed ",
		"requirement REQ-GONE pass> vanished ",
		"requirement REQ-NEW >skip appeared ",
		"requirement REQ-P pass>fail regressed ",
		"requirement REQ-S pass>warn shifted ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !d.Regressed() || d.Count(Regressed) != 4 || d.Count(Improved) != 2 || d.Count(Shifted) != 1 || d.Same[Scenario] != 3 || d.Same[Requirement] != 1 {
		t.Errorf("regressed %v, %d regressed, %d improved, same %v", d.Regressed(), d.Count(Regressed), d.Count(Improved), d.Same)
	}
	if d.Old.ImplementationVersion != "1.0" || d.New.ImplementationVersion != "1.1-dirty" || d.New.Counts["warn"] != 3 || d.New.Counts["fail"] != 4 {
		t.Errorf("sides %+v %+v", d.Old, d.New)
	}

	// A run compared with itself: nothing changed, nothing regressed.
	if same := Compare("a", cur, "b", cur); same.Regressed() || len(same.Changes) != 0 {
		t.Errorf("a run differs from itself: %+v", same.Changes)
	}
}

func TestClassify(t *testing.T) {
	P, W, F, S, E := report.Pass, report.Warn, report.Fail, report.Skip, report.Error
	for _, c := range []struct {
		old, cur report.Outcome
		want     Class
	}{
		{P, W, Regressed}, {P, F, Regressed}, {W, F, Regressed},
		{F, W, Improved}, {F, P, Improved}, {W, P, Improved},
		{"", F, Appeared}, {P, "", Vanished},
		{P, S, Unjudged}, {S, F, Unjudged}, {E, P, Unjudged}, {S, E, Unjudged},
		// Judged before, could not be played now: a class of its own.
		{P, E, Unplayable}, {W, E, Unplayable}, {F, E, Unplayable},
	} {
		t.Run(outcomeName(c.old)+"-to-"+outcomeName(c.cur), func(t *testing.T) {
			if got := classify(c.old, c.cur); got != c.want {
				t.Errorf("%s → %s: %s, want %s", c.old, c.cur, got, c.want)
			}
		})
	}
}

// A JSON report reads back; what is not one is a one-line usage error.
func TestParse(t *testing.T) {
	good := sampleReport("1.0", []*report.ScenarioResult{sc("a.one", report.Pass, "")})
	good.Duration = report.Millis(1500 * time.Microsecond)
	js, err := json.Marshal(good)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parse("good.json", js)
	if err != nil || rep.IUT.ImplementationVersion != "1.0" || rep.Duration != good.Duration || rep.Scenarios[0].ID != "a.one" {
		t.Fatalf("read back %+v (%v)", rep, err)
	}
	for _, c := range []struct{ name, data, want string }{
		{"empty", ``, "is not a JSON report of aghcheck run (--format json): EOF"},
		{"array", `[1,2]`, "is not a JSON report of aghcheck run"},
		{"no-scenarios", `{"tool":"aghcheck"}`, "no tool aghcheck and scenarios list"},
		{"other-tool", `{"tool":"other","scenarios":[]}`, "no tool aghcheck and scenarios list"},
		{"run-error", `{"tool":"aghcheck","scenarios":[],"error":"the IUT exited before greeting"}`, "x.json is a run that could not be carried out (the IUT exited before greeting): nothing to compare"},
		{"scenario-without-id", `{"tool":"aghcheck","scenarios":[{"outcome":"pass"}]}`, "x.json: scenario 1 has no id"},
		{"null-scenario", `{"tool":"aghcheck","scenarios":[null]}`, "scenario 1 has no id"},
		{"duration-string", `{"tool":"aghcheck","scenarios":[],"duration_ms":"1s"}`, "is not a JSON report"},
		{"html", "<html>\n</html>", "is not a JSON report"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.json", []byte(c.data))
			if !errors.Is(err, ErrNotReport) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: %v, want one line with %q", c.data, err, c.want)
			}
		})
	}
	if _, err := Load("no/such/file.json"); err == nil {
		t.Error("a missing file loaded")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"tool":"aghcheck","scenarios":[{"id":"a","outcome":"pass"}],"requirements":[{"id":"R","outcome":"fail"}]}`))
	f.Add([]byte(`{"tool":"aghcheck","scenarios":[{"id":"a","outcome":"expected-fail","baseline":{"actual":"fail"}}]}`))
	f.Add([]byte(`{"tool":"aghcheck","scenarios":[],"duration_ms":12.5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Parse("f.json", data)
		if err != nil {
			if !errors.Is(err, ErrNotReport) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q", err)
			}
			return
		}
		// A parsed report compares with itself and with an empty run
		// without panicking, and never differs from itself.
		if d := Compare("a", rep, "b", rep); len(d.Changes) != 0 {
			t.Errorf("differs from itself: %+v", d.Changes)
		}
		Compare("a", rep, "b", &report.Report{})
	})
}

// outcomeName names one side of a classified change: its outcome, or
// "absent" for a scenario that side does not have.
func outcomeName(o report.Outcome) string {
	if o == "" {
		return "absent"
	}
	return string(o)
}
