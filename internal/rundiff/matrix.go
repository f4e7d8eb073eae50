package rundiff

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/report"
)

// Matrix sets runs of one implementation side by side, one column per
// version (scenario × version): the scenarios whose outcome is not the
// same in every column that ran, and each column's counts.
type Matrix struct {
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
	// Same counts the scenarios with one outcome in every column that ran.
	Same int `json:"same"`
}

// Column is one run of a matrix.
type Column struct {
	Label   string `json:"label"`   // what was asked for: a tag, a branch
	Version string `json:"version"` // the implementation version the run names
	// NotRun says why the column has no outcomes: the run could not be
	// carried out (for a runtime version, often: the adapter does not build
	// against it).
	NotRun string         `json:"not_run,omitempty"`
	Counts map[string]int `json:"counts,omitempty"`
}

// Row is one scenario across the columns.
type Row struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Outcomes are per column: the scenario's own outcome, "" where the
	// column did not run or lacks the scenario.
	Outcomes []report.Outcome `json:"outcomes"`
	// Changed marks the cells whose outcome differs from the last column
	// before them that ran.
	Changed []bool `json:"changed"`
}

// LoadColumn reads one column's JSON report; unlike Load, a run that could
// not be carried out is a column too (its NotRun says why). The label is
// the file's name without .json.
func LoadColumn(path string) (string, *report.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	rep, err := parseAny(path, data)
	return strings.TrimSuffix(filepath.Base(path), ".json"), rep, err
}

// NewMatrix builds the matrix of reps, one column each, labelled by labels.
func NewMatrix(labels []string, reps []*report.Report) *Matrix {
	m := &Matrix{Columns: make([]Column, len(reps)), Rows: []Row{}}
	byID := map[string]*Row{}
	var ids []string
	for c, rep := range reps {
		col := &m.Columns[c]
		col.Label, col.Version = labels[c], cmp.Or(rep.IUT.ImplementationVersion, report.Unknown)
		if rep.Error != "" {
			col.NotRun = rep.Error
			continue
		}
		col.Counts = side("", rep).Counts
		for _, sc := range rep.Scenarios {
			r := byID[sc.ID]
			if r == nil {
				r = &Row{ID: sc.ID, Level: sc.Level, Outcomes: make([]report.Outcome, len(reps)), Changed: make([]bool, len(reps))}
				byID[sc.ID] = r
				ids = append(ids, sc.ID)
			}
			r.Outcomes[c] = sc.Actual()
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		r := byID[id]
		prev, differs := -1, false
		for c := range reps {
			if m.Columns[c].NotRun != "" {
				continue
			}
			if prev >= 0 && r.Outcomes[c] != r.Outcomes[prev] {
				r.Changed[c], differs = true, true
			}
			prev = c
		}
		if differs {
			m.Rows = append(m.Rows, *r)
		} else {
			m.Same++
		}
	}
	return m
}
