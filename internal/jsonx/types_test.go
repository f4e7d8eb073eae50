package jsonx

import "testing"

func TestTypeNameOfDecodedValues(t *testing.T) {
	for in, want := range map[string]string{
		`null`: "null", `"x"`: "string", `true`: "boolean", `1.5e3`: "number",
		`{}`: "object", `[1]`: "array",
	} {
		t.Run(in, func(t *testing.T) {
			v, _, ok := Decode([]byte(in))
			if !ok {
				t.Fatalf("Decode(%s) failed", in)
			}
			if got := TypeName(v); got != want {
				t.Errorf("TypeName(%s) = %q, want %q", in, got, want)
			}
		})
	}
	if got := TypeName(struct{}{}); got != "unknown" {
		t.Errorf("TypeName(struct) = %q", got)
	}
}
