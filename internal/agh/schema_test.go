package agh

import (
	"path/filepath"
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// variants are errata selections that change the compiled schema.
var variants = map[string]Errata{
	"default":   {},
	"reference": Reference(),
	"null":      {NullAsAbsent: true},
	"unknown":   {AllowUnknownFields: true},
	"work":      {ReferenceWorkID: true},
	"thread":    {ReferenceThreadID: true},
}

// assertSubsumed fails when the schema validator found something the native
// rules did not: the fast path (schema skipped on natively clean envelopes)
// is only sound while this never happens.
func assertSubsumed(t testing.TB, name string, c *Checker, raw []byte, v any) {
	t.Helper()
	full := c.CheckValue(raw, v).Findings
	for _, f := range full {
		if f.Rule == RuleSchema {
			t.Errorf("%s: schema error not covered by a native rule: %s", name, f)
		}
	}
	fast := *c
	fast.opts.FullSchema = false
	if got := fast.CheckValue(raw, v).Findings; len(got) != len(full) {
		t.Errorf("%s: fast path gives %d findings, full schema %d:%s\nvs%s", name, len(got), len(full), dump(got), dump(full))
	}
}

func TestSchemaSubsumed(t *testing.T) {
	for vname, e := range variants {
		t.Run(vname, func(t *testing.T) {
			c := mustChecker(t, Options{Errata: e, FullSchema: true})
			for _, dir := range []string{"seed", "valid", "invalid"} {
				for _, f := range fixtureFiles(t, dir) {
					if _, _, ok := jsonx.Decode(mustRead(t, f)); !ok {
						continue // a byte-level fault: no value for the schema to judge
					}
					name := dir + "/" + filepath.Base(f)
					t.Run(name, func(t *testing.T) {
						raw, v := readFixture(t, f)
						assertSubsumed(t, vname+"/"+name, c, raw, v)
					})
				}
			}
		})
	}
}

// The schema really is enforced: with FullSchema, a natively invalid
// envelope gets the schema's verdict too, and the mapping keeps pointers.
func TestSchemaFindingsPointers(t *testing.T) {
	c := mustChecker(t, Options{})
	env := decode(t, []byte(`{"protocol":"agh-network/v0","id":"x","workspace_id":"w","kind":"say","channel":"c",
		"from":"a","ts":1,"body":{"text":"hi"},"surface":"thread","thread_id":"t","extra":1}`)).(map[string]any)
	got := schemaFindings(c.schemas.get().envelope, env, nil, nil)
	if len(got) != 1 || got[0].Pointer != "/extra" || got[0].Rule != RuleSchema {
		t.Fatalf("schema findings %s", dump(got))
	}
	covered := schemaFindings(c.schemas.get().envelope, env, nil, []rules.Finding{{Rule: RuleUnknownField, Pointer: "/extra"}})
	if len(covered) != 0 {
		t.Errorf("covered error reported again: %s", dump(covered))
	}
	body := map[string]any{"type": "request", "peer_card": map[string]any{}}
	got = schemaFindings(c.schemas.get().body[KindWhois], body, bodyPrefix, nil)
	if len(got) == 0 {
		t.Error("whois request with a card passed the body schema")
	}
	for _, f := range got {
		if f.Pointer == "" || f.Pointer[:5] != "/body" {
			t.Errorf("body finding outside /body: %s", f)
		}
	}
}

func readFixture(t testing.TB, path string) ([]byte, any) {
	t.Helper()
	raw := mustRead(t, path)
	v, fs, ok := jsonx.Decode(raw)
	if !ok || len(fs) != 0 {
		t.Fatalf("%s: %v", path, fs)
	}
	return raw, v
}

// The schemas compile lazily, and a failure there panics: every variant
// must compile.
func TestEverySchemaVariantCompiles(t *testing.T) {
	for i := range 16 {
		v := schemaVariant{i&1 != 0, i&2 != 0, i&4 != 0, i&8 != 0}
		if _, err := compileSchemas(v); err != nil {
			t.Errorf("%+v: %v", v, err)
		}
	}
}

// The schema validator runs only under FullSchema; it must never change a
// report: the same findings and trust state, with or without it, on every
// fixture (byte-level faults included) and on every mutant of the clean ones.
func TestFullSchemaSameFindings(t *testing.T) {
	var docs [][]byte
	for _, dir := range []string{"seed", "valid", "invalid"} {
		for _, f := range fixtureFiles(t, dir) {
			docs = append(docs, mustRead(t, f))
		}
	}
	muts := mutants(t)
	if raceDetector || testing.Short() { // every 13th mutant: -race is slow, -short is make check-rule's
		for i := 0; i < len(muts); i += 13 {
			docs = append(docs, muts[i])
		}
	} else {
		docs = append(docs, muts...)
	}
	for _, vname := range []string{"default", "reference"} {
		t.Run(vname, func(t *testing.T) {
			o := Options{Errata: variants[vname], Now: 1776366100}
			def := mustChecker(t, o)
			o.FullSchema = true
			full := mustChecker(t, o)
			for _, raw := range docs {
				d, f := def.CheckBytes(raw), full.CheckBytes(raw)
				if dump(d.Findings) != dump(f.Findings) || d.Trust != f.Trust {
					t.Errorf("--full-schema changes the report of\n%s\ndefault (trust %q):%s\nfull schema (trust %q):%s",
						raw, d.Trust, dump(d.Findings), f.Trust, dump(f.Findings))
				}
			}
		})
	}
}
