package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// Placing a fixture: where in a live exchange a broken fixture is sent
// (its position), and how its members are set on the opening the case
// sends, with the test peers' ids aliased in.

// placed is a "fixture" shape case: the fixture itself, each identity the
// family rewrites replaced unless the fixture breaks it, other copies of
// those identities (a card's peer_id, a self-room's to) following them, and
// the members its kind's position sets.
func (f *Family) placed(fix map[string]any, broken []string, pos Position) (Send, error) {
	env := aliased(fix, f.aliases(fix, broken)).(map[string]any)
	for k, tmpl := range f.Rewrite {
		// A null stays null: it is no identity (a greet's to).
		if fix[k] != nil && !breaks(broken, k) {
			env[k] = tmpl
		}
	}
	if err := setMembers(env, pos.Set, broken, true); err != nil {
		return Send{}, err
	}
	return Send{To: pos.Send, Envelope: env, Drop: absentDefaults(env)}, nil
}

// opening is an "opening" shape case: the family's opening, signed when
// the corpus signs, with the members the fixture breaks applied after
// signing (a broken proof replaces the signature).
func (f *Family) opening(corpus Corpus, fix map[string]any, broken []string, over CaseOverride, pos Position) (Send, error) {
	env := aliased(f.Opening, nil).(map[string]any)
	alias := f.aliases(fix, broken)
	s := Send{To: pos.Send}
	sign := true
	tamper := map[string]any{}
	for _, ptr := range broken {
		v, has := Get(fix, ptr)
		v = aliased(v, alias)
		top, nested := strings.CutPrefix(ptr, "/")
		if i := strings.IndexByte(top, '/'); i >= 0 {
			top = top[:i]
		} else {
			nested = false
		}
		switch {
		case top == "proof" && !nested:
			// The fixture's own proof stands (or is missing): no signature.
			sign = false
			if has {
				env["proof"] = v
			} else {
				s.Drop = append(s.Drop, "proof")
			}
		case !nested && !has:
			s.Drop = append(s.Drop, top)
		default:
			// A member missing below the top level cannot be removed
			// after signing: null breaks the same rule.
			if err := setPointer(tamper, ptr, v); err != nil {
				return s, err
			}
		}
	}
	if over.Tamper != nil {
		tamper = over.Tamper
	}
	if err := setMembers(env, pos.Set, broken, false); err != nil {
		return s, err
	}
	s.Envelope, s.Sign = env, sign && corpus.Sign
	if len(tamper) > 0 {
		s.Tamper = tamper
	}
	return s, nil
}

// aliases maps the fixture's identity values (of the rewritten members it
// does not break) to their templates.
func (f *Family) aliases(fix map[string]any, broken []string) map[string]any {
	keys := make([]string, 0, len(f.Rewrite))
	for k := range f.Rewrite {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]any{}
	for _, k := range keys {
		if s, ok := fix[k].(string); ok && s != "" && !breaks(broken, k) {
			if _, dup := out[s]; !dup {
				out[s] = f.Rewrite[k]
			}
		}
	}
	return out
}

// aliased is a deep copy of v in which every string that is an alias key
// becomes its template.
func aliased(v any, alias map[string]any) any {
	out, _ := mapStrings(v, func(s string) (any, error) {
		if a, ok := alias[s]; ok {
			return a, nil
		}
		return s, nil
	}, nil)
	return out
}

// breaks reports whether a broken pointer is member k (a name, or a JSON
// pointer), inside it, or holds it.
func breaks(broken []string, k string) bool {
	if !strings.HasPrefix(k, "/") {
		k = "/" + k
	}
	for _, p := range broken {
		if p == k || strings.HasPrefix(p, k+"/") || strings.HasPrefix(k, p+"/") {
			return true
		}
	}
	return false
}

// setMembers applies a position's set: each member (a name, or a JSON
// pointer for one inside) the fixture does not break, replacing what is
// there or, unless replace, only where nothing is.
func setMembers(env, set map[string]any, broken []string, replace bool) error {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ptr := k
		if !strings.HasPrefix(ptr, "/") {
			ptr = rules.Pointer(k)
		}
		if breaks(broken, ptr) {
			continue
		}
		if _, has := Get(env, ptr); has && !replace {
			continue
		}
		if err := setPointer(env, ptr, set[k]); err != nil {
			return err
		}
	}
	return nil
}

func absentDefaults(env map[string]any) []string {
	var out []string
	for _, k := range defaultMembers {
		if _, has := env[k]; !has {
			out = append(out, k)
		}
	}
	return out
}

// setPointer sets v at an RFC 6901 pointer in m, creating objects on the way.
func setPointer(m map[string]any, ptr string, v any) error {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, tok := range toks {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		if i == len(toks)-1 {
			m[tok] = v
			return nil
		}
		next, ok := m[tok].(map[string]any)
		if !ok {
			if _, taken := m[tok]; taken {
				return fmt.Errorf("cannot set %s: %s is not an object", ptr, tok)
			}
			next = map[string]any{}
			m[tok] = next
		}
		m = next
	}
	return nil
}

// mapStrings returns a deep copy of v (objects, arrays) with f applied to
// every string value and, unless nil, key to every member name.
func mapStrings(v any, f func(string) (any, error), key func(string) (string, error)) (any, error) {
	switch t := v.(type) {
	case string:
		return f(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if key != nil {
				var err error
				if k, err = key(k); err != nil {
					return nil, err
				}
			}
			rv, err := mapStrings(val, f, key)
			if err != nil {
				return nil, err
			}
			out[k] = rv
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			rv, err := mapStrings(val, f, key)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return v, nil
}
