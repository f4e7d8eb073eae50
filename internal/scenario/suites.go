package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotDir is a suite directory that is not one.
var ErrNotDir = errors.New("not a directory")

// LoadSuites loads the scenarios a run plays: those of builtin (the
// embedded suites; nil for none), labelled "embedded:", and every scenario
// file under each of dirs. A directory that is not one, a broken scenario
// file, or no scenario at all is an error.
func LoadSuites(builtin fs.FS, dirs []string) ([]*Scenario, error) {
	var set Set
	if builtin != nil {
		set = LoadFS(builtin, ".", "embedded:")
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: %w", d, ErrNotDir)
		}
		set.Merge(LoadFS(os.DirFS(d), ".", d+"/"))
	}
	if err := set.Err(); err != nil {
		return nil, err
	}
	if len(set.Scenarios) == 0 {
		return nil, errors.New("no scenarios to play")
	}
	return set.Scenarios, nil
}
