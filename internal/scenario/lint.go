package scenario

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"gopkg.in/yaml.v3"
)

// Problems speak YAML: each carries the line and column of the node it is
// about, and schema errors are reduced to the one a person acts on.

// nodeAt is the YAML node at a JSON pointer's tokens, or the deepest one on
// the way that exists; key is the mapping key node of the last token (nil
// when the last token is an index or was not found).
func nodeAt(root *yaml.Node, tokens []string) (n, key *yaml.Node) {
	n = root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, tok := range tokens {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil {
			return nil, nil
		}
		key = nil
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					key, next = n.Content[i], n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n, nil
		}
		n = next
	}
	return n, key
}

// pointer splits a JSON pointer ("/scenarios/0/steps/1") into tokens.
func pointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return toks
}

// at sets the problem's position to that of node n.
func (p Problem) at(n *yaml.Node) Problem {
	if n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	return p
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxProblem turns a YAML decoder error into a problem at its line.
func syntaxProblem(name string, err error) Problem {
	msg := err.Error()
	p := Problem{File: name}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	p.Message = "not YAML: " + strings.TrimPrefix(msg, "yaml: ")
	return p
}

// schemaProblems reduces a schema validation error to problems a person
// can act on, each at its node: one per unknown key (with the nearest known
// key), and without the alternatives an unknown key or a oneOf explains.
// ids maps a scenario's index in the file to its id, where it has one.
func schemaProblems(name string, root *yaml.Node, ids map[string]string, err error) []Problem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{File: name, Message: err.Error()}}
	}
	type leaf struct {
		e      *jsonschema.ValidationError
		parent jsonschema.ErrorKind
	}
	var leaves []leaf
	var walk func(e *jsonschema.ValidationError, parent jsonschema.ErrorKind)
	walk = func(e *jsonschema.ValidationError, parent jsonschema.ErrorKind) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, leaf{e, parent})
			return
		}
		for _, c := range e.Causes {
			walk(c, e.ErrorKind)
		}
	}
	walk(ve, nil)

	var out []Problem
	// add reports msg at loc; an unknown key is reported at the key itself,
	// which names it, other problems also give the pointer (relative to
	// their scenario).
	add := func(loc []string, key *yaml.Node, msg string) {
		p := Problem{File: name, Message: msg}
		rel := loc
		if len(loc) >= 2 && loc[0] == "scenarios" {
			if id := ids[loc[1]]; id != "" {
				p.Scenario, rel = id, loc[2:]
			}
		}
		n, _ := nodeAt(root, loc)
		if key != nil {
			n = key
		} else if len(rel) > 0 || p.Scenario == "" {
			p.Message = "at " + jsonPointer(rel) + ": " + msg
		}
		out = append(out, p.at(n))
	}
	// Group by instance location, in the order first seen.
	var order []string
	groups := map[string][]leaf{}
	for _, l := range leaves {
		k := strings.Join(l.e.InstanceLocation, "/")
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], l)
	}
	for _, k := range order {
		g := groups[k]
		loc := g[0].e.InstanceLocation
		unknown := false
		for _, l := range g {
			ap, ok := l.e.ErrorKind.(*kind.AdditionalProperties)
			if !ok {
				continue
			}
			unknown = true
			what, known := objectName(loc), schemaKeys(l.e.SchemaURL)
			for _, prop := range ap.Properties {
				_, keyNode := nodeAt(root, append(slices.Clone(loc), prop))
				add(loc, keyNode, unknownKey(what, prop, known))
			}
		}
		if unknown {
			// Whatever else is wrong here (a oneOf that found no branch,
			// a required member) follows from the misspelt key.
			continue
		}
		var alternatives []string
		for _, l := range g {
			switch k := l.e.ErrorKind.(type) {
			case *kind.Required:
				switch l.parent.(type) {
				case *kind.OneOf, *kind.AnyOf:
					alternatives = append(alternatives, k.Missing...)
					continue
				}
				add(loc, nil, "missing "+quoteKeys(k.Missing, "and"))
			case *kind.OneOf:
				add(loc, nil, quoteKeys(branchKeys(l.e.SchemaURL, k.Subschemas), "and")+" exclude each other")
			default:
				add(loc, nil, leafMessage(l.e))
			}
		}
		if len(alternatives) > 0 {
			add(loc, nil, "needs one of "+quoteKeys(alternatives, "or"))
		}
	}
	// The validator's order follows map iteration; the file's is stable.
	slices.SortStableFunc(out, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return out
}

func jsonPointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	return "/" + strings.Join(loc, "/")
}

// leafMessage is the validator's own message for one error.
func leafMessage(e *jsonschema.ValidationError) string {
	u := (&jsonschema.ValidationError{ErrorKind: e.ErrorKind, SchemaURL: e.SchemaURL}).BasicOutput()
	if u.Error != nil {
		return u.Error.String()
	}
	return "does not match the scenario schema"
}

func unknownKey(what, prop string, known []string) string {
	msg := fmt.Sprintf("unknown %s key `%s`", what, prop)
	if s := nearest(prop, known); s != "" {
		return msg + fmt.Sprintf("; did you mean `%s`?", s)
	}
	if len(known) > 0 {
		return msg + " (known: " + strings.Join(known, ", ") + ")"
	}
	return msg
}

func quoteKeys(keys []string, conj string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "`" + k + "`"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

// schemaNode resolves an absolute schema location (…schema.json#/$defs/step)
// in the raw scenario schema.
func schemaNode(url string) map[string]any {
	_, frag, _ := strings.Cut(url, "#")
	toks := pointer(frag)
	var n any = schemaDoc
	for _, t := range toks {
		switch v := n.(type) {
		case map[string]any:
			n = v[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			n = v[i]
		default:
			return nil
		}
	}
	m, _ := n.(map[string]any)
	return m
}

// schemaKeys lists the keys the object at a schema location knows.
func schemaKeys(url string) []string {
	m := schemaNode(url)
	var known []string
	if props, ok := m["properties"].(map[string]any); ok {
		for k := range props {
			known = append(known, k)
		}
	}
	slices.Sort(known)
	return known
}

// objectName names the object at an instance location by the key that
// holds it, singular for a list element: step, expect, expect_silence,
// scenario, requires, peer; top-level for the file itself.
func objectName(loc []string) string {
	for i := len(loc) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(loc[i]); err == nil {
			continue
		}
		if i < len(loc)-1 {
			return strings.TrimSuffix(loc[i], "s")
		}
		return loc[i]
	}
	return "top-level"
}

// branchKeys lists the members the matched oneOf branches require (the
// step kinds given together).
func branchKeys(url string, branches []int) []string {
	m := schemaNode(url)
	alts, _ := m["oneOf"].([]any)
	var keys []string
	for _, b := range branches {
		if b < 0 || b >= len(alts) {
			continue
		}
		alt, _ := alts[b].(map[string]any)
		req, _ := alt["required"].([]any)
		for _, r := range req {
			keys = append(keys, fmt.Sprint(r))
		}
	}
	if len(keys) == 0 {
		for _, b := range branches {
			keys = append(keys, "alternative "+strconv.Itoa(b))
		}
	}
	return keys
}

// nearest is the known key closest to s in edit distance, if close enough
// to be a misspelling (two edits; one for keys shorter than four bytes).
func nearest(s string, known []string) string {
	limit := 2
	if len(s) < 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes: keys are
// ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
