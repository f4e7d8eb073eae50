package jsonx

import "encoding/json"

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
