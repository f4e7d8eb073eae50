// Package owned reads the file that names the requirements whose verdict
// comes from an adapter's own code rather than from the implementation it
// wraps (aghcheck run --owned-by-adapter FILE). A runtime that is not a
// peer by itself is certified through an adapter that supplies what the
// runtime leaves to its host (a transport, subscriptions, when to greet);
// a verdict on such a requirement says something about the adapter, and a
// report must say so. The list is data kept beside the adapter
// (reference/compozy-agh.adapter.yaml): aghcheck knows no runtime.
package owned

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrMalformed marks a file that is not such a list: a usage error.
var ErrMalformed = errors.New("malformed adapter file")

// Requirement is one requirement whose verdict is the adapter's.
type Requirement struct {
	ID  string `yaml:"id" json:"id"`
	Why string `yaml:"why" json:"why"` // what in the adapter decides it
}

// List is a loaded file.
type List struct {
	File string
	// Adapter names the adapter, for reports ("reference/adapter").
	Adapter      string
	Requirements []Requirement
}

type file struct {
	Adapter      string         `yaml:"adapter"`
	Requirements *[]Requirement `yaml:"requirements"`
}

// Load reads and checks a file; known says whether a requirement id is in
// the catalogue (nil: not checked).
func Load(path string, known func(string) bool) (*List, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("adapter file: %w", err)
	}
	return Parse(path, data, known)
}

// Parse checks a file's contents; name is used in errors.
func Parse(name string, data []byte, known func(string) bool) (*List, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: %s", ErrMalformed, name, fmt.Sprintf(format, args...))
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, bad("empty file (want adapter: NAME and a requirements list)")
		}
		return nil, bad("%s", strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", "; "))
	}
	switch {
	case strings.TrimSpace(f.Adapter) == "":
		return nil, bad("no adapter: name the adapter whose code the requirements rest on")
	case f.Requirements == nil || len(*f.Requirements) == 0:
		return nil, bad("no requirements listed")
	}
	l := &List{File: name, Adapter: f.Adapter, Requirements: *f.Requirements}
	seen := map[string]bool{}
	for i, r := range l.Requirements {
		switch {
		case strings.TrimSpace(r.ID) == "":
			return nil, bad("requirement %d has no id", i+1)
		case seen[r.ID]:
			return nil, bad("%s is listed twice", r.ID)
		case known != nil && !known(r.ID):
			return nil, bad("%s is no requirement of the catalogue (aghcheck rules)", r.ID)
		case strings.TrimSpace(r.Why) == "":
			return nil, bad("%s has no why: say what in the adapter decides its verdict", r.ID)
		}
		seen[r.ID] = true
	}
	return l, nil
}

// Why is what the list says of id ("" when it is not the adapter's).
func (l *List) Why(id string) string {
	if l == nil {
		return ""
	}
	for _, r := range l.Requirements {
		if r.ID == id {
			return r.Why
		}
	}
	return ""
}
