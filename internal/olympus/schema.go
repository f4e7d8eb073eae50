package olympus

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/schemas"
)

// SchemaFile is the embedded schema (package schemas) this profile enforces.
const SchemaFile = "olympus-envelope.schema.json"

// compiled is built once per process: compiling is far dearer than validating.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	raw, err := schemas.Read(SchemaFile)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("olympus: schema %s: %w", SchemaFile, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // 2020-12 only annotates format by default; the issue asks for date-time to be asserted
	if err := c.AddResource(SchemaFile, doc); err != nil {
		return nil, fmt.Errorf("olympus: schema %s: %w", SchemaFile, err)
	}
	s, err := c.Compile(SchemaFile)
	if err != nil {
		return nil, fmt.Errorf("olympus: schema %s: %w", SchemaFile, err)
	}
	return s, nil
})

// byLocation maps a schema keyword location (a JSON pointer into the schema)
// to its rule. Keywords not listed fall back by keyword name in schemaRule.
var byLocation = map[string]*rules.Rule{
	"/properties/envelope/properties/version/const":                 RuleVersion,
	"/properties/envelope/properties/message_id/pattern":            RuleMessageID,
	"/properties/envelope/properties/timestamp/format":              RuleTimestamp,
	"/properties/envelope/properties/source_agent/enum":             RuleSourceAgent,
	"/properties/envelope/properties/target_agent/enum":             RuleTargetAgent,
	"/properties/envelope/properties/correlation_id/pattern":        RuleCorrelationID,
	"/properties/protocol_message/properties/message_type/enum":     RuleMessageType,
	"/properties/context_attachments/items/properties/type/enum":    RuleAttachmentType,
	"/properties/context_attachments/items/properties/hash/pattern": RuleAttachmentHashFormat,
}

// schemaRule names the rule behind one schema keyword location.
func schemaRule(loc string) *rules.Rule {
	if r, ok := byLocation[loc]; ok {
		return r
	}
	switch loc[strings.LastIndexByte(loc, '/')+1:] {
	case "type":
		return RuleType
	case "required":
		return RuleRequired
	case "additionalProperties":
		return RuleUnknownMember
	}
	return RuleSchema
}

// schemaFindings validates v and turns every leaf schema error into a finding.
func schemaFindings(v any) ([]rules.Finding, error) {
	s, err := compiled()
	if err != nil {
		return nil, err
	}
	err = s.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, fmt.Errorf("olympus: schema validation: %w", err)
	}
	var leaves []*jsonschema.ValidationError
	collectLeaves(ve, &leaves)

	// A wrong type makes every other complaint about the same value noise
	// ("1" is not in the enum because it is not even a string).
	typed := map[string]bool{}
	for _, l := range leaves {
		if _, ok := l.ErrorKind.(*kind.Type); ok {
			typed[rules.Pointer(l.InstanceLocation...)] = true
		}
	}
	var out []rules.Finding
	for _, l := range leaves {
		ptr := rules.Pointer(l.InstanceLocation...)
		if _, isType := l.ErrorKind.(*kind.Type); !isType && typed[ptr] {
			continue
		}
		out = append(out, leafFindings(l, ptr)...)
	}
	return out, nil
}

func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// keywordLocation is the schema-relative pointer of the failing keyword. Our
// schema has no $ref, so the fragment of SchemaURL is the path to the subschema.
func keywordLocation(e *jsonschema.ValidationError) string {
	frag := ""
	if i := strings.IndexByte(e.SchemaURL, '#'); i >= 0 {
		frag = e.SchemaURL[i+1:]
	}
	return frag + rules.Pointer(e.ErrorKind.KeywordPath()...)
}

func leafFindings(e *jsonschema.ValidationError, ptr string) []rules.Finding {
	r := schemaRule(keywordLocation(e))
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]rules.Finding, 0, len(k.Missing))
		for _, m := range k.Missing {
			out = append(out, rules.Finding{Rule: r, Pointer: ptr + rules.Pointer(m),
				Expected: "member " + quote(m), Found: "absent", Message: "missing required member " + quote(m)})
		}
		return out
	case *kind.AdditionalProperties:
		props := append([]string(nil), k.Properties...)
		sort.Strings(props)
		out := make([]rules.Finding, 0, len(props))
		for _, p := range props {
			out = append(out, rules.Finding{Rule: r, Pointer: ptr + rules.Pointer(p),
				Expected: "no member " + quote(p), Found: "member " + quote(p), Message: "member " + quote(p) + " is not defined by the schema"})
		}
		return out
	case *kind.Type:
		return []rules.Finding{{Rule: r, Pointer: ptr, Expected: strings.Join(k.Want, " or "), Found: k.Got}}
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		return []rules.Finding{{Rule: r, Pointer: ptr, Expected: "one of " + strings.Join(want, ", "), Found: quoteAny(k.Got)}}
	case *kind.Const:
		return []rules.Finding{{Rule: r, Pointer: ptr, Expected: quoteAny(k.Want), Found: quoteAny(k.Got)}}
	case *kind.Pattern:
		return []rules.Finding{{Rule: r, Pointer: ptr, Expected: "a match of " + k.Want, Found: quote(k.Got)}}
	case *kind.Format:
		f := rules.Finding{Rule: r, Pointer: ptr, Expected: k.Want, Found: quoteAny(k.Got)}
		if k.Err != nil {
			f.Message = k.Err.Error()
		}
		return []rules.Finding{f}
	}
	return []rules.Finding{{Rule: r, Pointer: ptr, Message: e.Error()}}
}

func quote(s string) string { return strconv.Quote(rules.Clip(s, 80, "…")) }

func quoteAny(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	return quote(fmt.Sprint(v))
}
