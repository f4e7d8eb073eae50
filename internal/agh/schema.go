package agh

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/schemas"
)

const (
	envelopeSchemaURL = "https://agh.dev/schemas/network/v0/envelope.schema.json"
	bodySchemaBase    = "https://aghcheck.dev/schemas/agh/v0/"
)

// aghSchemaFiles maps embedded file names to the $id each declares.
var aghSchemaFiles = map[string]string{
	"agh-envelope.schema.json":        envelopeSchemaURL,
	"agh-peer-card.schema.json":       bodySchemaBase + "peer-card.schema.json",
	"agh-capability.schema.json":      bodySchemaBase + "capability.schema.json",
	"agh-body-greet.schema.json":      bodySchemaBase + "body-greet.schema.json",
	"agh-body-whois.schema.json":      bodySchemaBase + "body-whois.schema.json",
	"agh-body-say.schema.json":        bodySchemaBase + "body-say.schema.json",
	"agh-body-capability.schema.json": bodySchemaBase + "body-capability.schema.json",
	"agh-body-receipt.schema.json":    bodySchemaBase + "body-receipt.schema.json",
	"agh-body-trace.schema.json":      bodySchemaBase + "body-trace.schema.json",
}

// compiledSchemas is the envelope schema (in the errata variant selected)
// and one body schema per kind.
type compiledSchemas struct {
	envelope *jsonschema.Schema
	body     map[string]*jsonschema.Schema
}

// schemaVariant is the part of Errata that changes the envelope schema.
type schemaVariant struct {
	nullAsAbsent, allowUnknown, refWorkID, refThreadID bool
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[schemaVariant]*lazySchemas{}
)

// lazySchemas are the schemas of one variant, compiled when first needed:
// only FullSchema runs the validator (the native rules subsume it), so a
// run without it never pays for the compiler.
type lazySchemas struct {
	variant schemaVariant
	once    sync.Once
	cs      *compiledSchemas
	err     error
}

// schemasFor returns the schemas of the variant e selects, compiled or not.
func schemasFor(e Errata) *lazySchemas {
	v := schemaVariant{e.NullAsAbsent, e.AllowUnknownFields, e.ReferenceWorkID, e.ReferenceThreadID}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	l := schemaCache[v]
	if l == nil {
		l = &lazySchemas{variant: v}
		schemaCache[v] = l
	}
	return l
}

// get compiles the schemas once and returns them. The schemas are embedded
// and every variant is compiled by the tests, so failing here is a broken
// build, not bad input.
func (l *lazySchemas) get() *compiledSchemas {
	l.once.Do(func() { l.cs, l.err = compileSchemas(l.variant) })
	if l.err != nil {
		panic("agh: the embedded schemas do not compile: " + l.err.Error())
	}
	return l.cs
}

// compileSchemas compiles the schemas of one variant.
func compileSchemas(v schemaVariant) (*compiledSchemas, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseRegexpEngine(regexpEngine)
	for file, url := range aghSchemaFiles {
		raw, err := schemas.Read(file)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", file, err)
		}
		if url == envelopeSchemaURL {
			if err := applyVariant(doc, v); err != nil {
				return nil, err
			}
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", file, err)
		}
	}
	cs := &compiledSchemas{body: map[string]*jsonschema.Schema{}}
	var err error
	if cs.envelope, err = c.Compile(envelopeSchemaURL); err != nil {
		return nil, fmt.Errorf("compile envelope schema: %w", err)
	}
	for _, k := range Kinds {
		if cs.body[k], err = c.Compile(bodySchemaBase + "body-" + k + ".schema.json"); err != nil {
			return nil, fmt.Errorf("compile %s body schema: %w", k, err)
		}
	}
	return cs, nil
}

// applyVariant rewrites the seed schema for the errata readings that relax
// or tighten it, so the schema stays enforced under every reading.
func applyVariant(doc any, v schemaVariant) error {
	root, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("envelope schema is not an object")
	}
	props, ok := root["properties"].(map[string]any)
	if !ok {
		return fmt.Errorf("envelope schema has no properties")
	}
	prop := func(name string) map[string]any {
		p, _ := props[name].(map[string]any)
		if p == nil {
			p = map[string]any{}
			props[name] = p
		}
		return p
	}
	if v.nullAsAbsent {
		for _, name := range nullableFields {
			p := prop(name)
			if t, ok := p["type"].(string); ok {
				p["type"] = []any{t, "null"}
			}
		}
	}
	if v.allowUnknown {
		delete(root, "additionalProperties")
	}
	if v.refWorkID {
		prop("work_id")["pattern"] = patWorkReference
	}
	if v.refThreadID {
		prop("thread_id")["pattern"] = patThreadReference
	}
	return nil
}

// nullableFields are the optional fields the seed types as non-null and the
// reference runtime reads null as absent (erratum 3).
var nullableFields = [...]string{"reply_to", "trace_id", "causation_id", "expires_at"}

// schemaFindings validates v against s and returns a finding for every
// schema error that no native finding already explains at the same place.
func schemaFindings(s *jsonschema.Schema, v any, prefix []string, native []rules.Finding) []rules.Finding {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []rules.Finding{{Rule: RuleSchema, Message: err.Error()}}
	}
	var out []rules.Finding
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := append(append([]string(nil), prefix...), e.InstanceLocation...)
		var ptrs []string
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				ptrs = append(ptrs, rules.Pointer(append(loc, m)...))
			}
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				ptrs = append(ptrs, rules.Pointer(append(loc, p)...))
			}
		default:
			ptrs = []string{rules.Pointer(loc...)}
		}
		for _, p := range ptrs {
			if covered(p, native) || covered(p, out) {
				continue
			}
			out = append(out, rules.Finding{Rule: RuleSchema, Pointer: p,
				Expected: "schema keyword " + strings.Join(e.ErrorKind.KeywordPath(), "/"),
				Message:  schemaMessage(e)})
		}
	}
	walk(ve)
	return out
}

func schemaMessage(e *jsonschema.ValidationError) string {
	// The library's message for this leaf; short enough for one line.
	msg := e.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.Contains(msg, "\n") {
		msg = strings.TrimSpace(msg[i+2:])
	}
	return msg
}

// covered reports whether a finding already explains pointer p: one at p,
// inside p (a precise native finding under the value the schema flagged),
// or at a value containing p.
func covered(p string, fs []rules.Finding) bool {
	for _, f := range fs {
		q := f.Pointer
		if q == p || (p != "" && strings.HasPrefix(q, p+"/")) || (q != "" && strings.HasPrefix(p, q+"/")) {
			return true
		}
	}
	return false
}
