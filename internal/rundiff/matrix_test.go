package rundiff

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aghcheck/aghcheck/internal/report"
)

// Rows are the scenarios that differ between columns that ran, a change
// marked against the last column before it that ran; a column that did
// not run is skipped over, not counted as a change.
func TestNewMatrix(t *testing.T) {
	P, F, W := report.Pass, report.Fail, report.Warn
	old := sampleReport("v0.0.4-0-gaaaaaaaa", []*report.ScenarioResult{sc("a.same", P, ""), sc("b.fixed", F, "x"), sc("c.back-and-forth", P, "")})
	broken := &report.Report{Tool: "aghcheck", Error: "the adapter does not build against v0.0.5", IUT: report.IUTInfo{ImplementationVersion: "v0.0.5-0-gbbbbbbbb"}}
	cur := sampleReport("v0.0.5-3-gcccccccc", []*report.ScenarioResult{sc("a.same", P, ""), sc("b.fixed", P, ""), sc("c.back-and-forth", W, ""), sc("d.new", F, "")})
	dirty := sampleReport("v0.0.5-3-gcccccccc-dirty", []*report.ScenarioResult{sc("a.same", P, ""), sc("b.fixed", P, ""), sc("c.back-and-forth", P, ""), sc("d.new", F, "")})
	m := NewMatrix([]string{"v0.0.4", "v0.0.5", "main", "tree"}, []*report.Report{old, broken, cur, dirty})
	if m.Same != 1 || len(m.Rows) != 3 {
		t.Fatalf("same %d, rows %+v", m.Same, m.Rows)
	}
	want := []Row{
		{ID: "b.fixed", Level: "MUST", Outcomes: []report.Outcome{F, "", P, P}, Changed: []bool{false, false, true, false}},
		{ID: "c.back-and-forth", Level: "MUST", Outcomes: []report.Outcome{P, "", W, P}, Changed: []bool{false, false, true, true}},
		{ID: "d.new", Level: "MUST", Outcomes: []report.Outcome{"", "", F, F}, Changed: []bool{false, false, true, false}},
	}
	for i, r := range m.Rows {
		if r.ID != want[i].ID || !slices.Equal(r.Outcomes, want[i].Outcomes) || !slices.Equal(r.Changed, want[i].Changed) {
			t.Errorf("row %d: %+v, want %+v", i, r, want[i])
		}
	}
	if c := m.Columns[1]; c.NotRun != broken.Error || c.Version != "v0.0.5-0-gbbbbbbbb" || c.Counts != nil {
		t.Errorf("the column that did not run: %+v", c)
	}
	if c := m.Columns[2]; c.Label != "main" || c.Counts["pass"] != 2 || c.Counts["warn"] != 1 || c.Counts["fail"] != 1 {
		t.Errorf("main: %+v", c)
	}
}

// A column's report may be of a run that could not be carried out; its
// label is its file name.
func TestLoadColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v0.0.3.json")
	if err := os.WriteFile(path, []byte(`{"tool":"aghcheck","scenarios":[],"error":"the adapter does not build"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	label, rep, err := LoadColumn(path)
	if err != nil || label != "v0.0.3" || rep.Error != "the adapter does not build" {
		t.Errorf("%q %+v %v", label, rep, err)
	}
	if _, err := Load(path); err == nil {
		t.Error("diff took a run that could not be carried out")
	}
	if _, _, err := LoadColumn(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing file loaded")
	}
}
