package suites

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Group is one fixture group of the self-certification record
// (groups.yaml): a folder of the suite tree and what passing it shows.
type Group struct {
	ID       string `yaml:"id"`
	Profile  string `yaml:"profile"`
	Optional bool   `yaml:"optional"`
}

// Folder is the group's folder in the suite tree: its id with "/" for ".".
func (g Group) Folder() string { return strings.ReplaceAll(g.ID, ".", "/") }

// Holds reports whether a scenario of suite (its folder) belongs to g.
func (g Group) Holds(suite string) bool { return suite == g.Folder() }

//go:embed groups.yaml
var groupsYAML []byte

// Groups is the table of groups.yaml, in its order. The file ships inside
// the binary, so a broken one is a programming error (its test fails).
var Groups = sync.OnceValue(func() []Group {
	gs, err := parseGroups(groupsYAML)
	if err != nil {
		panic(err)
	}
	return gs
})

func parseGroups(b []byte) ([]Group, error) {
	var f struct {
		Groups []Group `yaml:"groups"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("suites: groups.yaml: %w", err)
	}
	seen := map[string]bool{}
	for _, g := range f.Groups {
		if g.ID == "" || strings.Contains(g.ID, "/") || seen[g.ID] {
			return nil, fmt.Errorf("suites: groups.yaml: group %q: want a unique id, its folder's path with . for /", g.ID)
		}
		seen[g.ID] = true
	}
	return f.Groups, nil
}
