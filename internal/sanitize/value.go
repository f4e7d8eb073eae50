package sanitize

import (
	"encoding/json"
	"reflect"
	"sync"
)

// Copy returns a deep copy of v with every string in it made safe by Text:
// struct fields, slice elements, map keys and values, and what interfaces
// hold. A string field tagged `sanitize:"lines"` (an IUT's stdout) keeps its
// line breaks (Lines), and a json.RawMessage is escaped as JSON. Writers
// take a result through Copy once, before they render any of it, so no
// format depends on remembering which of its fields came from the peer.
//
// Pointers listed in keep are shared, not copied (the rule catalogue:
// aghcheck's own text, compared by identity).
func Copy[T any](v T, keep ...reflect.Type) T {
	return copyWith(v, copier{text: Text, lines: Lines, raw: JSON, keep: keep})
}

// CopyRedacted returns a deep copy of v with every registered secret
// redacted from its strings, and nothing else changed: for a JSON output,
// whose encoder escapes what a string holds and whose readers want it back
// as it was (see JSONWriter for the characters it leaves raw).
func CopyRedacted[T any](v T, keep ...reflect.Type) T {
	return copyWith(v, copier{text: Redact, lines: Redact, raw: func(b []byte) []byte { return []byte(Redact(string(b))) }, keep: keep})
}

// SelfCopier is a type that makes the copy Copy and CopyRedacted would
// make of it itself, for a value written so often that the reflective walk
// shows (aghcheck validate hands its writer every document of the input):
// CleanCopy returns a deep copy with text applied to every string. Such a
// type holds no field tagged `sanitize:"lines"` and no json.RawMessage, and
// it shares only pointers to aghcheck's own data that writers keep (the
// rule catalogue). It may return v itself when v holds nothing text would
// change: the writers that Copy serves only read an item, and the producer
// of their items (validate.Run) reuses each once the writer returns, so no
// writer keeps one. Its package holds CleanCopy to Reflective in a test that
// fills every field, so that a field added later cannot be missed.
type SelfCopier[T any] interface {
	CleanCopy(text func(string) string) T
}

// Reflective is Copy made by walking v with reflect, whatever v's type
// implements: what a SelfCopier is held to.
func Reflective[T any](v T, keep ...reflect.Type) T {
	return reflective(v, copier{text: Text, lines: Lines, raw: JSON, keep: keep})
}

func copyWith[T any](v T, c copier) T {
	if s, ok := any(v).(SelfCopier[T]); ok {
		return s.CleanCopy(c.text)
	}
	return reflective(v, c)
}

func reflective[T any](v T, c copier) T {
	in := reflect.ValueOf(&v).Elem()
	p := planOf(in.Type())
	if p.plain {
		return v
	}
	out := reflect.New(in.Type()).Elem()
	c.copy(p, out, in, false)
	return out.Interface().(T)
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

type copier struct {
	keep        []reflect.Type
	text, lines func(string) string
	raw         func([]byte) []byte
}

// A plan is what copying a value of one type takes, worked out once per
// type: every writer copies each item it is given (validate: every
// document of the input), and asking reflect for a struct's fields and
// their tags on every copy cost more than the checking of a clean envelope.
type plan struct {
	kind reflect.Kind
	// plain: nothing in the type to sanitise or to copy deeper (numbers,
	// booleans, and arrays and structs of them): assignment copies it.
	plain     bool
	raw, text bool  // a json.RawMessage; another byte slice (escaped as text)
	elem, key *plan // pointer, slice, array and map element; map key
	fields    []field
}

// field is an exported struct field that is not plain.
type field struct {
	index int
	lines bool // tagged sanitize:"lines"
	plan  *plan
}

var plans sync.Map // reflect.Type → *plan

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	building := map[reflect.Type]*plan{}
	p := build(t, building)
	// Published only once complete: a plan under construction is seen by
	// its own cycle (a struct that points to its type), never by another
	// goroutine.
	for bt, bp := range building {
		plans.LoadOrStore(bt, bp)
	}
	return p
}

func build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p := building[t]; p != nil {
		return p // a cycle always passes a pointer, slice, map or interface: not plain
	}
	p := &plan{kind: t.Kind()}
	building[t] = p
	switch t.Kind() {
	case reflect.String, reflect.Interface:
	case reflect.Pointer:
		p.elem = build(t.Elem(), building)
	case reflect.Slice:
		p.raw = t == rawMessage
		p.text = !p.raw && t.Elem().Kind() == reflect.Uint8
		p.elem = build(t.Elem(), building)
	case reflect.Map:
		p.key, p.elem = build(t.Key(), building), build(t.Elem(), building)
	case reflect.Array:
		p.elem = build(t.Elem(), building)
		p.plain = p.elem.plain
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue // shared, as assignment leaves it
			}
			if fp := build(f.Type, building); !fp.plain {
				p.fields = append(p.fields, field{index: i, lines: f.Tag.Get("sanitize") == "lines", plan: fp})
			}
		}
		p.plain = len(p.fields) == 0
	default: // numbers, booleans; channels and functions are shared
		p.plain = true
	}
	return p
}

func (c copier) kept(t reflect.Type) bool {
	for _, k := range c.keep {
		if k == t {
			return true
		}
	}
	return false
}

// copy sets dst (settable, of src's type, planned by p) to a sanitised copy of src.
func (c copier) copy(p *plan, dst, src reflect.Value, lines bool) {
	if p.plain {
		dst.Set(src)
		return
	}
	switch p.kind {
	case reflect.String:
		if lines {
			dst.SetString(c.lines(src.String()))
		} else {
			dst.SetString(c.text(src.String()))
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if c.kept(src.Type()) {
			dst.Set(src)
			return
		}
		n := reflect.New(src.Type().Elem())
		c.copy(p.elem, n.Elem(), src.Elem(), lines)
		dst.Set(n)
	case reflect.Struct:
		dst.Set(src) // unexported fields and the plain ones
		for _, f := range p.fields {
			c.copy(f.plan, dst.Field(f.index), src.Field(f.index), f.lines)
		}
	case reflect.Slice:
		c.copySlice(p, dst, src, lines)
	case reflect.Array:
		for i := 0; i < src.Len(); i++ {
			c.copy(p.elem, dst.Index(i), src.Index(i), lines)
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			c.copy(p.key, k, it.Key(), false)
			v := reflect.New(src.Type().Elem()).Elem()
			c.copy(p.elem, v, it.Value(), lines)
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := src.Elem()
		v := reflect.New(e.Type()).Elem()
		c.copy(planOf(e.Type()), v, e, lines)
		dst.Set(v)
	}
}

func (c copier) copySlice(p *plan, dst, src reflect.Value, lines bool) {
	switch {
	case src.IsNil():
	case p.raw:
		dst.SetBytes(c.raw(src.Bytes()))
	case p.text:
		dst.SetBytes([]byte(c.text(string(src.Bytes()))))
	default:
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if p.elem.plain {
			reflect.Copy(s, src)
		} else {
			for i := 0; i < src.Len(); i++ {
				c.copy(p.elem, s.Index(i), src.Index(i), lines)
			}
		}
		dst.Set(s)
	}
}
