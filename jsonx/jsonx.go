// Package jsonx is aghcheck's strict JSON decoder: it finds what
// encoding/json forgives (duplicate member names, invalid UTF-8, numbers
// outside the I-JSON range, absurd nesting) and reports each as a finding.
package jsonx

import "github.com/aghcheck/aghcheck/rules"

// Decode parses exactly one JSON value from data. Objects decode to
// map[string]any, arrays to []any, numbers to json.Number, and strings,
// booleans and null to string, bool and nil.
//
// ok is false when data is not decodable at all (syntax, UTF-8, depth); the
// findings say why. ok is true with findings for problems that still leave a
// value (a duplicate member name: the last value wins, as in encoding/json).
func Decode(data []byte) (v any, findings []rules.Finding, ok bool) {
	panic("jsonx.Decode: not implemented yet") // filled in by the decoder work
}
