package redkey

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// CardVersion is the only Agent Card version this package knows.
const CardVersion = "1.0"

var viaValues = []string{"task.blocked", "inbox", "exec.gate"}

// CardOptions configure the Agent Card profile.
type CardOptions struct {
	// Registry, when set, is where route_to and output_types must point.
	Registry *Registry
}

// Card is the "redkey-card" validate profile. It is safe for concurrent use.
type Card struct{ opts CardOptions }

// NewCard builds the Agent Card profile.
func NewCard(o CardOptions) *Card { return &Card{opts: o} }

func (cd *Card) Name() string { return cardProfile }

// Detect recognises the version member every card carries.
func (cd *Card) Detect(doc map[string]any) bool {
	_, ok := doc["card_version"]
	return ok
}

// Check returns every finding for one decoded Agent Card.
func (cd *Card) Check(raw []byte, v any) []rules.Finding {
	c := &checker{typeRule: RuleCardFieldType}
	doc, ok := v.(map[string]any)
	if !ok {
		c.add(RuleCardFieldType, "", "object", describe(v), "an Agent Card is a JSON object")
		return c.out
	}
	if ver, present := doc["card_version"]; !present {
		c.add(RuleCardRequired, "/card_version", `member "card_version"`, "absent", `missing member "card_version"; checked as version 1.0`)
	} else if s, _ := ver.(string); s != CardVersion {
		c.add(RuleCardVersion, "/card_version", quote(CardVersion), describe(ver),
			fmt.Sprintf("unknown Agent Card version %s: aghcheck knows version %s only, so the card is rejected unchecked", describe(ver), CardVersion))
		return c.out
	}
	req := RuleCardRequired

	if id, ok := c.member(doc, "", "identity", kObject, req); ok {
		for _, n := range []string{"slug", "name", "department", "reports_to", "model"} {
			c.member(id.(map[string]any), "/identity", n, kString, req)
		}
	}
	if s, ok := c.member(doc, "", "scope", kString, req); ok {
		if n := Sentences(s.(string)); n != 1 {
			c.add(RuleCardScope, "/scope", "1 sentence", fmt.Sprintf("%d sentences", n), "")
		}
	}
	c.member(doc, "", "capabilities", kStrings, req)
	c.member(doc, "", "values", kStrings, req)
	if l, ok := c.member(doc, "", "constraints", kStrings, req); ok {
		for i, it := range l.([]any) {
			if s := it.(string); !neverPhrased(s) {
				c.add(RuleCardConstraint, rules.Pointer("constraints", idx(i)), `"I never …"`, quote(s), "")
			}
		}
	}
	unchecked := 0 // slugs left unchecked for want of a registry
	if l, ok := c.member(doc, "", "escalation_rules", kList, req); ok {
		for i, it := range l.([]any) {
			ptr := rules.Pointer("escalation_rules", idx(i))
			r, isObj := it.(map[string]any)
			if !isObj {
				c.add(RuleCardFieldType, ptr, "object", describe(it), "")
				continue
			}
			c.member(r, ptr, "trigger", kString, req)
			if rt, ok := c.member(r, ptr, "route_to", kString, req); ok {
				switch {
				case cd.opts.Registry == nil:
					unchecked++
				case !cd.opts.Registry.routable(rt.(string)):
					c.add(RuleCardRouteTo, ptr+"/route_to", `a role slug, agent slug or "exec" from the registry`, quote(rt.(string)), "")
				}
			}
			if via, ok := c.member(r, ptr, "via", kString, req); ok {
				c.oneOf(RuleCardVia, ptr+"/via", via.(string), viaValues)
			}
		}
	}
	if l, ok := c.member(doc, "", "output_types", kStrings, req); ok {
		for i, it := range l.([]any) {
			switch s := it.(string); {
			case cd.opts.Registry == nil:
				unchecked++
			case !cd.opts.Registry.OutputContracts[s]:
				c.add(RuleCardOutputType, rules.Pointer("output_types", idx(i)), "an output contract slug from the registry", quote(s), "")
			}
		}
	}
	if unchecked > 0 {
		// A check the card calls for but this run cannot make is said,
		// never left to read as a pass.
		c.add(RuleCardRegistryUnchecked, "", "a registry of known slugs (--registry FILE)", "none",
			fmt.Sprintf("%s not checked: no registry (give --registry FILE)", slugs(unchecked)))
	}
	if s, ok := c.member(doc, "", "working_style", kString, req); ok {
		if n := Sentences(s.(string)); n < 1 || n > 3 {
			c.add(RuleCardWorkingStyle, "/working_style", "1 to 3 sentences", fmt.Sprintf("%d sentences", n), "")
		}
	}
	if vo, ok := c.member(doc, "", "voice", kObject, req); ok {
		voice := vo.(map[string]any)
		if s, ok := c.member(voice, "/voice", "description", kString, req); ok {
			if n := Sentences(s.(string)); n < 1 || n > 2 {
				c.add(RuleCardVoiceDescription, "/voice/description", "1 or 2 sentences", fmt.Sprintf("%d sentences", n), "")
			}
		}
		switch ex, present := voice["example"]; {
		case !present:
			c.add(req, "/voice/example", `member "example"`, "absent", `missing member "example"`)
		case !is(kString, ex):
			// A list here is exactly "more than one example".
			c.add(RuleCardVoiceExample, "/voice/example", "one example as a string", describe(ex), "")
		case strings.TrimSpace(ex.(string)) == "":
			c.add(RuleCardVoiceExample, "/voice/example", "one example", "a blank string", "")
		case strings.ContainsAny(strings.TrimSpace(ex.(string)), "\n\r"):
			c.add(RuleCardVoiceExample, "/voice/example", "one example on one line", "several lines", "each line reads as another example")
		}
	}
	return c.out
}

// neverPhrased reports whether a constraint reads "I never <something>".
func neverPhrased(s string) bool {
	rest, ok := strings.CutPrefix(s, "I never ")
	return ok && hasContent(rest)
}

// slugs counts slugs in words ("1 slug", "3 slugs").
func slugs(n int) string {
	if n == 1 {
		return "1 slug"
	}
	return fmt.Sprintf("%d slugs", n)
}
