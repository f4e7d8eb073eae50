package redkey

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Registry holds the slugs an Agent Card may point at. The file is YAML (so
// JSON works too) with three optional lists:
//
//	agents:           [quinn, mindy, vikram]      # agent slugs
//	roles:            [roles.ba, roles.pm]        # role slugs
//	output_contracts: [code_commit, output_ref_file]
//
// escalation_rules[].route_to must be an agent, a role or "exec";
// output_types items must be output contracts.
type Registry struct {
	Agents, Roles, OutputContracts map[string]bool
}

type registryFile struct {
	Agents          []string `yaml:"agents"`
	Roles           []string `yaml:"roles"`
	OutputContracts []string `yaml:"output_contracts"`
}

// LoadRegistry reads and parses a registry file.
func LoadRegistry(path string) (*Registry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("redkey: registry: %w", err)
	}
	r, err := ParseRegistry(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseRegistry parses registry YAML or JSON. Unknown keys are errors: a
// misspelt "output_contract" would otherwise silently make every slug unknown.
func ParseRegistry(data []byte) (*Registry, error) {
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	var f registryFile
	if err := d.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("redkey: registry is empty")
		}
		var te *yaml.TypeError
		if errors.As(err, &te) {
			// One line per problem from yaml; findings and errors here are one line.
			msg := strings.Join(te.Errors, "; ")
			msg = strings.ReplaceAll(msg, " in type redkey.registryFile", " (known keys: agents, roles, output_contracts)")
			return nil, fmt.Errorf("redkey: registry: %s", strings.TrimSpace(msg))
		}
		return nil, fmt.Errorf("redkey: registry: %w", err)
	}
	r := &Registry{}
	var err error
	if r.Agents, err = slugSet("agents", f.Agents); err != nil {
		return nil, err
	}
	if r.Roles, err = slugSet("roles", f.Roles); err != nil {
		return nil, err
	}
	if r.OutputContracts, err = slugSet("output_contracts", f.OutputContracts); err != nil {
		return nil, err
	}
	return r, nil
}

func slugSet(key string, list []string) (map[string]bool, error) {
	m := make(map[string]bool, len(list))
	for i, s := range list {
		if s == "" || strings.ContainsFunc(s, isSpace) {
			return nil, fmt.Errorf("redkey: registry %s[%d] %q is not a slug", key, i, s)
		}
		m[s] = true
	}
	return m, nil
}

// routable reports whether route_to names something escalations can reach.
func (r *Registry) routable(s string) bool { return s == "exec" || r.Agents[s] || r.Roles[s] }
