// Package schematest holds tests to the JSON Schemas aghcheck publishes for
// what it writes (schemas/run-report.schema.json,
// schemas/conformance-record.schema.json): a test hands it a document it
// wrote, and a document the schema does not describe fails the test.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/schemas"
)

// The published schemas of aghcheck's own output.
const (
	RunReport = "run-report.schema.json"
	Record    = "conformance-record.schema.json"
)

var (
	mu       sync.Mutex
	compiled = map[string]*jsonschema.Schema{}
)

func schema(name string) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[name]; ok {
		return s, nil
	}
	raw, err := schemas.Read(name)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(name, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	compiled[name] = s
	return s, nil
}

// Check validates doc, JSON text or (yaml true) YAML, against the schema
// name.
func Check(name string, doc []byte, yamlText bool) error {
	s, err := schema(name)
	if err != nil {
		return err
	}
	var v any
	if yamlText {
		var y any
		if err := yaml.Unmarshal(doc, &y); err != nil {
			return fmt.Errorf("not YAML: %w", err)
		}
		if doc, err = json.Marshal(y); err != nil {
			return err
		}
	}
	if v, err = jsonschema.UnmarshalJSON(bytes.NewReader(doc)); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("a document aghcheck wrote is not valid against schemas/%s:\n%w", name, err)
	}
	return nil
}

// JSON fails t unless doc, JSON text, is valid against the schema name.
func JSON(t testing.TB, name string, doc []byte) {
	t.Helper()
	if err := Check(name, doc, false); err != nil {
		t.Errorf("%v", err)
	}
}

// YAML is JSON for a document written as YAML (a .yaml record).
func YAML(t testing.TB, name string, doc []byte) {
	t.Helper()
	if err := Check(name, doc, true); err != nil {
		t.Errorf("%v", err)
	}
}
