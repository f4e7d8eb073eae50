package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEmbeddedSchemas(t *testing.T) {
	names := Names()
	want := []string{"agh-envelope.schema.json", "agh-peer-card.schema.json", "agh-capability.schema.json",
		"agh-body-greet.schema.json", "agh-body-whois.schema.json", "agh-body-say.schema.json",
		"agh-body-capability.schema.json", "agh-body-receipt.schema.json", "agh-body-trace.schema.json"}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, n := range want {
		if !have[n] {
			t.Errorf("%s is not embedded (have %v)", n, names)
		}
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			b, err := Read(n)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Error(err)
				return
			}
			if strings.HasPrefix(n, "agh-") && (doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["$id"] == nil) {
				t.Error("needs draft 2020-12 $schema and an $id")
			}
		})
	}
	if _, err := Read("nope.json"); err == nil {
		t.Error("missing schema read without error")
	}
}
