package suites_test

import (
	"io/fs"
	"path"
	"slices"
	"testing"

	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// A scenario's place is named once, by its folder: every folder that holds
// a scenario file is a group of groups.yaml and every group a folder, and
// every shipped scenario's suite is its folder (no file moves itself with
// suite:), so a record never leaves a scenario out.
func TestEveryFolderIsAGroup(t *testing.T) {
	groups := map[string]string{} // folder → group id
	for _, g := range suites.Groups() {
		groups[g.Folder()] = g.ID
	}
	folders := map[string]bool{}
	err := fs.WalkDir(suites.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if dir := path.Dir(p); dir != "." {
			folders[dir] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range folders {
		if groups[dir] == "" {
			t.Errorf("folder %s is no group of groups.yaml", dir)
		}
	}
	for dir, id := range groups {
		if !folders[dir] {
			t.Errorf("group %s has no folder %s", id, dir)
		}
	}

	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	for _, sc := range set.Scenarios {
		dir := path.Dir(sc.File[len("embedded:"):])
		if sc.Suite != dir {
			t.Errorf("%s: suite %q, want its folder %s", sc.ID, sc.Suite, dir)
		}
		var in []string
		for _, g := range suites.Groups() {
			if g.Holds(sc.Suite) {
				in = append(in, g.ID)
				held[g.ID]++
			}
		}
		if len(in) != 1 {
			t.Errorf("%s (suite %s) is in groups %v, want exactly one", sc.ID, sc.Suite, in)
		}
	}
	for _, g := range suites.Groups() {
		if held[g.ID] == 0 {
			t.Errorf("group %s holds no scenario", g.ID)
		}
	}
	if len(set.Scenarios) == 0 || !slices.Contains(suites.Groups(), suites.Group{ID: "core.envelope"}) {
		t.Fatal("no scenarios or no core.envelope group: the test sees nothing")
	}
}
