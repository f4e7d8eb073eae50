package suites

import (
	"bytes"
	_ "embed"
	"fmt"
	"path"
	"slices"
	"sync"

	"gopkg.in/yaml.v3"
)

// Group is one fixture group of the self-certification record
// (groups.yaml): which scenarios it holds and what passing it shows.
type Group struct {
	ID       string   `yaml:"id"`
	Suites   []string `yaml:"suites"`
	IDs      []string `yaml:"ids"`
	Profile  string   `yaml:"profile"`
	Optional bool     `yaml:"optional"`
}

// Holds reports whether the scenario id of suite belongs to g.
func (g Group) Holds(suite, id string) bool {
	if slices.Contains(g.Suites, suite) {
		return true
	}
	for _, p := range g.IDs {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

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
	for _, g := range f.Groups {
		for _, p := range g.IDs {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("suites: groups.yaml: group %s: pattern %q: %w", g.ID, p, err)
			}
		}
	}
	return f.Groups, nil
}
