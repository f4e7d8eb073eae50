package agh

import (
	"bytes"
	"os"
	"testing"
)

func TestCheckBytes(t *testing.T) {
	c := mustChecker(t, Options{})
	raw, err := os.ReadFile("../../fixtures/agh/valid/say-work-correlated.json")
	if err != nil {
		t.Fatal(err)
	}
	if res := c.CheckBytes(raw); len(res.Findings) != 0 || res.Envelope == nil || res.Trust != "unverified" {
		t.Errorf("valid envelope: %+v", res)
	}
	for name, tc := range map[string]struct {
		raw  []byte
		want string
	}{
		"syntax":     {[]byte(`{"protocol":`), "INPUT-JSON-SYNTAX"},
		"duplicate":  {bytes.Replace(raw, []byte(`"id": "s4",`), []byte(`"id": "s4", "id": "s5",`), 1), "INPUT-DUPLICATE-KEY"},
		"not object": {[]byte(`[1]`), "INPUT-NOT-OBJECT"},
		"too large":  {append(bytes.TrimSuffix(bytes.TrimSpace(raw), []byte("}")), []byte(`, "ext": {"acme.pad": "`+string(bytes.Repeat([]byte("x"), MaxEnvelopeSize))+`"}}`)...), "INPUT-SIZE"},
	} {
		t.Run(name, func(t *testing.T) {
			res := c.CheckBytes(tc.raw)
			found := false
			for _, f := range res.Findings {
				found = found || f.Rule.ID == tc.want
			}
			if !found {
				t.Errorf("no %s in%s", tc.want, dump(res.Findings))
			}
			if RefusalReason(res.Findings) != "malformed" {
				t.Errorf("refusal %q", RefusalReason(res.Findings))
			}
		})
	}
}
