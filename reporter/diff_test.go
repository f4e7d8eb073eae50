package reporter

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rundiff"
)

// diffFixture compares the run fixture (old) with a later run of a dirty
// tree: lifecycle regressed, nats was fixed, the warning is gone with its
// scenario, a new scenario fails and trust was played this time.
func diffFixture() *rundiff.Diff {
	old := runFixture()
	cur := runFixture()
	cur.IUT.ImplementationVersion = "v0.0.5-3-g8cb155af-dirty"
	cur.Started = cur.Started.Add(time.Hour)
	cur.Scenarios[0].Outcome, cur.Scenarios[0].Message = report.Fail, "step 3 (expect_silence): expected silence for 300ms, but the IUT sent receipt(accepted) | piped"
	cur.Scenarios[1].Outcome, cur.Scenarios[1].Message = report.Pass, ""
	cur.Scenarios[3].Outcome, cur.Scenarios[3].Message = report.Pass, ""
	cur.Scenarios = append(cur.Scenarios[:2], cur.Scenarios[3],
		&report.ScenarioResult{ID: "delivery.expired-refused", Level: "MUST", Outcome: report.Fail, Message: "step 3 (expect_silence): the IUT sent receipt(accepted)"})
	old.Requirements = []report.RequirementResult{
		{ID: "FRESH-EXPIRED", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"lifecycle.work-completes"}},
		{ID: "NATS-PUBLISH-SUBJECT", Level: "MUST", Outcome: report.Fail, Scenarios: []string{"nats.directed-replies-on-peer-subject"}}}
	cur.Requirements = []report.RequirementResult{
		{ID: "FRESH-EXPIRED", Level: "MUST", Outcome: report.Fail, Scenarios: []string{"lifecycle.work-completes", "delivery.expired-refused"}},
		{ID: "NATS-PUBLISH-SUBJECT", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"nats.directed-replies-on-peer-subject"}}}
	return rundiff.Compare("main.json", old, "branch.json", cur)
}

func writeDiff(t *testing.T, format string, d *rundiff.Diff) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := Diff.New(format, &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDiffGolden(t *testing.T) {
	d := diffFixture()
	text := writeDiff(t, "text", d)
	golden.Check(t, filepath.Join("testdata", "diff_text.golden"), text)
	md := writeDiff(t, "markdown", d)
	golden.Check(t, filepath.Join("testdata", "diff_markdown.golden"), md)
	if !bytes.Equal(writeDiff(t, "md", d), md) {
		t.Error("md is not markdown")
	}
	js := writeDiff(t, "json", d)
	golden.Check(t, filepath.Join("testdata", "diff_json.golden"), js)

	var doc struct {
		Regressed bool             `json:"regressed"`
		Changes   []rundiff.Change `json:"changes"`
		New       rundiff.Side     `json:"new"`
	}
	if err := json.Unmarshal(js, &doc); err != nil || !doc.Regressed || len(doc.Changes) != len(d.Changes) || doc.New.ImplementationVersion != "v0.0.5-3-g8cb155af-dirty" {
		t.Errorf("json: %+v (%v)", doc, err)
	}
	for _, want := range []string{"\nREGRESSED  2 regressed, 2 improved, 1 appeared, 1 vanished, 1 not judged in one run, 0 judged at other steps;", "v0.0.5-3-g8cb155af-dirty"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text lacks %q", want)
		}
	}
	// A table cell keeps its row: the message's pipe is escaped.
	if !strings.Contains(string(md), `receipt(accepted) \| piped |`) {
		t.Errorf("markdown does not escape a pipe:\n%s", md)
	}
	same := rundiff.Compare("a.json", runFixture(), "b.json", runFixture())
	if out := string(writeDiff(t, "text", same)); !strings.Contains(out, "\nNO REGRESSION  0 regressed, 0 improved, 0 appeared, 0 vanished, 0 not judged in one run, 0 judged at other steps; 4 scenarios and 0 requirements unchanged\n") {
		t.Errorf("a run against itself:\n%s", out)
	}
	if out := string(writeDiff(t, "markdown", same)); !strings.HasPrefix(out, "### aghcheck diff: no regression\n") {
		t.Errorf("markdown of no change:\n%s", out)
	}
}

// A scenario judged before that the new run could not play (pass → error)
// is not "no regression": it has a class and a heading of its own, and it
// fails the gate unless errors are allowed.
func TestDiffPassToError(t *testing.T) {
	old, cur := runFixture(), runFixture()
	if old.Scenarios[0].Outcome != report.Pass {
		t.Fatalf("fixture: scenario 0 is %s, want pass", old.Scenarios[0].Outcome)
	}
	cur.Scenarios[0].Outcome, cur.Scenarios[0].Message = report.Error, "the run's stream was deleted"
	d := rundiff.Compare("old.json", old, "new.json", cur)
	if d.Count(rundiff.Unplayable) != 1 || d.Regressed() || !d.Fails(false) || d.Fails(true) {
		t.Fatalf("pass → error: %d unplayable, regressed %v, fails %v, fails allowing errors %v",
			d.Count(rundiff.Unplayable), d.Regressed(), d.Fails(false), d.Fails(true))
	}
	text := string(writeDiff(t, "text", d))
	if !strings.Contains(text, "\nNOT PLAYED  0 regressed, 0 improved, 0 appeared, 0 vanished, 1 could not be played,") ||
		strings.Contains(text, "NO REGRESSION") || !strings.Contains(text, "Judged before, could not be played now (error)") {
		t.Errorf("text:\n%s", text)
	}
	md := string(writeDiff(t, "markdown", d))
	if !strings.HasPrefix(md, "### aghcheck diff: 1 could not be played (judged before)\n") || strings.Contains(md, "no regression") {
		t.Errorf("markdown:\n%s", md)
	}
	var doc struct {
		Regressed  bool `json:"regressed"`
		Unplayable int  `json:"unplayable"`
	}
	if err := json.Unmarshal(writeDiff(t, "json", d), &doc); err != nil || doc.Regressed || doc.Unplayable != 1 {
		t.Errorf("json: %+v (%v)", doc, err)
	}
	// skip → error and error → pass judge nothing either way: unjudged.
	if c := rundiff.Compare("a", cur, "b", old); c.Count(rundiff.Unplayable) != 0 || c.Count(rundiff.Unjudged) != 1 {
		t.Errorf("error → pass: %+v", c.Changes)
	}
}

// The matrix of three versions, the first of which could not be run.
func TestMatrixGolden(t *testing.T) {
	notRun := &report.Report{Tool: "aghcheck", Error: "the adapter does not build against it", IUT: report.IUTInfo{ImplementationVersion: "v0.0.3-0-g11111111"}}
	old, cur := runFixture(), runFixture()
	old.IUT.ImplementationVersion, cur.IUT.ImplementationVersion = "v0.0.5-0-gcd4b1551", "v0.0.5-3-g8cb155af"
	cur.Scenarios[1].Outcome = report.Pass
	m := rundiff.NewMatrix([]string{"v0.0.3", "v0.0.5", "main"}, []*report.Report{notRun, old, cur})
	for _, format := range []string{"text", "markdown", "json"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			w, err := Matrix.New(format, &b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Finish(m); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "matrix_"+format+".golden"), b.Bytes())
			if format == "markdown" && !strings.Contains(b.String(), "| `nats.directed-replies-on-peer-subject` | MUST | — | fail | **pass** |") {
				t.Errorf("markdown lacks the changed row:\n%s", b.String())
			}
		})
	}
}
