package jsonx

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Lenient reads what aghcheck's decoder gives up on, as Go's decoder
// does; what is no object stays nil.
func TestLenient(t *testing.T) {
	deep := `{"id":"m1","x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`
	for _, tc := range []struct {
		name, in string
		id       any // the id read, nil for no object
	}{
		{"nested past 128", deep, "m1"},
		{"not UTF-8", "{\"id\":\"m\xff1\"}", "m\uFFFD1"},
		{"a number kept", `{"id":"m1","n":1e400}`, "m1"},
		{"an array", `[1]`, nil},
		{"not JSON", `say hello`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := Lenient([]byte(tc.in))
			if tc.id == nil {
				if env != nil {
					t.Errorf("%v, want nil", env)
				}
				return
			}
			if env == nil || env["id"] != tc.id {
				t.Errorf("%v, want id %q", env, tc.id)
			}
		})
	}
	if n, ok := Lenient([]byte(`{"n":1e400}`))["n"].(json.Number); !ok || n != "1e400" {
		t.Errorf("the number is not kept as written: %#v", n)
	}
}

// Copy is equal to what it copies and shares none of its maps or slices.
func TestCopy(t *testing.T) {
	v, _, ok := Decode([]byte(`{"a":{"b":[1,"two",{"c":null}]},"d":"e"}`))
	if !ok {
		t.Fatal("decode")
	}
	c := Copy(v)
	if !reflect.DeepEqual(c, v) {
		t.Fatalf("copy %v differs from %v", c, v)
	}
	c.(map[string]any)["a"].(map[string]any)["b"].([]any)[2].(map[string]any)["c"] = "changed"
	if v.(map[string]any)["a"].(map[string]any)["b"].([]any)[2].(map[string]any)["c"] != nil {
		t.Error("changing the copy changed the original")
	}
}
