package jsonx

import (
	"encoding/json"
	"fmt"
)

// TypeName is the JSON type of a decoded value ("null", "string", "boolean",
// "number", "object", "array"), the word findings and patterns use.
// Anything Decode cannot produce is "unknown".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64, float32, int, int64:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "unknown"
}

// FromYAML makes values decoded by yaml.v3 into an `any` JSON's: a map
// with non-string keys becomes one keyed by their text, in place where it
// can be. Scenario files and the fuzzer's dictionary are YAML that is read
// as JSON.
func FromYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			t[k] = FromYAML(val)
		}
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[fmt.Sprint(k)] = FromYAML(val)
		}
		return out
	case []any:
		for i, val := range t {
			t[i] = FromYAML(val)
		}
	}
	return v
}
