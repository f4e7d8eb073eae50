package peer

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// FaultEmit prefixes a send-side rule id: the peer breaks that rule in
// what it sends, as emit.yaml says (one data entry per rule, no code).
const FaultEmit = "emit:"

//go:embed emit.yaml
var emitYAML []byte

// EmitPatch is how an emit:RULE-ID fault corrupts the peer's traffic.
type EmitPatch struct {
	Kind   string         `yaml:"kind"`
	Where  map[string]any `yaml:"where"`
	Set    map[string]any `yaml:"set"`
	Delete []string       `yaml:"delete"`
	Bytes  struct {
		Prefix       string `yaml:"prefix"`
		Suffix       string `yaml:"suffix"`
		SuffixOctets []byte `yaml:"suffix_octets"`
	} `yaml:"bytes"`
	// Also lists the other rules the patched envelope unavoidably breaks.
	Also []string `yaml:"also"`
	// OverlookUnobservable, when set, is why a receiver overlooking the
	// rule shows nothing a test peer could see: its overlook fault is
	// not worth playing.
	OverlookUnobservable string `yaml:"overlook_unobservable"`
}

// emitPatches is emit.yaml, parsed once. The file ships inside the
// binary, so a broken one is a programming error (TestEmitPatches fails).
var emitPatches = sync.OnceValue(func() map[string]EmitPatch {
	var m map[string]EmitPatch
	if err := yaml.Unmarshal(emitYAML, &m); err != nil {
		panic(fmt.Errorf("internal/peer/emit.yaml: %w", err))
	}
	return m
})

// EmitRules lists the rules an emit fault can break, sorted.
func EmitRules() []string {
	m := emitPatches()
	out := make([]string, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Emit returns the patch of emit:RULE-ID.
func Emit(id string) (EmitPatch, bool) {
	p, ok := emitPatches()[id]
	return p, ok
}

// applies reports whether the patch corrupts env.
func (e EmitPatch) applies(env map[string]any) bool {
	if env["kind"] != e.Kind {
		return false
	}
	for ptr, want := range e.Where {
		if got, ok := getPointer(env, ptr); !ok || !reflect.DeepEqual(got, want) {
			return false
		}
	}
	return true
}

// Patch corrupts env in place.
func (e EmitPatch) Patch(env map[string]any) {
	for _, ptr := range e.Delete {
		parent, last := walkPointer(env, ptr, false)
		delete(parent, last)
	}
	keys := make([]string, 0, len(e.Set))
	for k := range e.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a parent before what goes inside it
	for _, ptr := range keys {
		if parent, last := walkPointer(env, ptr, true); parent != nil {
			parent[last] = e.Set[ptr]
		}
	}
}

// Encode is the payload of a patched envelope.
func (e EmitPatch) Encode(env map[string]any) ([]byte, error) {
	data, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	b := e.Bytes
	if b.Prefix == "" && b.Suffix == "" && len(b.SuffixOctets) == 0 {
		return data, nil
	}
	out := append([]byte(b.Prefix), data...)
	out = append(out, b.Suffix...)
	return append(out, b.SuffixOctets...), nil
}

// emitting is the patch of the emit fault that corrupts env, if any.
func (p *peer) emitting(env map[string]any) (EmitPatch, bool) {
	for name := range p.faults {
		if id, ok := strings.CutPrefix(name, FaultEmit); ok {
			if e, ok := Emit(id); ok && e.applies(env) {
				return e, true
			}
		}
	}
	return EmitPatch{}, false
}

// unescapeToken decodes an RFC 6901 reference token.
var unescapeToken = strings.NewReplacer("~1", "/", "~0", "~")

// walkPointer finds the object holding an RFC 6901 pointer's last token
// (creating objects on the way when create is set); nil when it is not
// there.
func walkPointer(m map[string]any, ptr string, create bool) (map[string]any, string) {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, tok := range toks {
		toks[i] = unescapeToken.Replace(tok)
	}
	for _, tok := range toks[:len(toks)-1] {
		next, ok := m[tok].(map[string]any)
		if !ok {
			if !create {
				return nil, ""
			}
			next = map[string]any{}
			m[tok] = next
		}
		m = next
	}
	return m, toks[len(toks)-1]
}

func getPointer(m map[string]any, ptr string) (any, bool) {
	parent, last := walkPointer(m, ptr, false)
	if parent == nil {
		return nil, false
	}
	v, ok := parent[last]
	return v, ok
}
