package sanitize

import (
	"encoding/json"
	"reflect"
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
	return copyWith(v, copier{text: Text, lines: Lines, raw: JSON}, keep)
}

// CopyRedacted returns a deep copy of v with every registered secret
// redacted from its strings, and nothing else changed: for a JSON output,
// whose encoder escapes what a string holds and whose readers want it back
// as it was (see JSONWriter for the characters it leaves raw).
func CopyRedacted[T any](v T, keep ...reflect.Type) T {
	return copyWith(v, copier{text: Redact, lines: Redact, raw: func(b []byte) []byte { return []byte(Redact(string(b))) }}, keep)
}

func copyWith[T any](v T, c copier, keep []reflect.Type) T {
	c.keep = map[reflect.Type]bool{}
	for _, t := range keep {
		c.keep[t] = true
	}
	in := reflect.ValueOf(&v).Elem()
	out := reflect.New(in.Type()).Elem()
	c.copy(out, in, false)
	return out.Interface().(T)
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

type copier struct {
	keep        map[reflect.Type]bool
	text, lines func(string) string
	raw         func([]byte) []byte
}

// copy sets dst (settable, of src's type) to a sanitised copy of src.
func (c copier) copy(dst, src reflect.Value, lines bool) {
	switch src.Kind() {
	case reflect.String:
		s := src.String()
		if lines {
			dst.SetString(c.lines(s))
		} else {
			dst.SetString(c.text(s))
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if c.keep[src.Type()] {
			dst.Set(src)
			return
		}
		p := reflect.New(src.Type().Elem())
		c.copy(p.Elem(), src.Elem(), lines)
		dst.Set(p)
	case reflect.Struct:
		dst.Set(src) // unexported fields and the kinds left alone
		t := src.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			c.copy(dst.Field(i), src.Field(i), f.Tag.Get("sanitize") == "lines")
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		if src.Type() == rawMessage {
			dst.SetBytes(c.raw(src.Bytes()))
			return
		}
		if src.Type().Elem().Kind() == reflect.Uint8 {
			dst.SetBytes([]byte(c.text(string(src.Bytes()))))
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			c.copy(s.Index(i), src.Index(i), lines)
		}
		dst.Set(s)
	case reflect.Array:
		for i := 0; i < src.Len(); i++ {
			c.copy(dst.Index(i), src.Index(i), lines)
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			c.copy(k, it.Key(), false)
			v := reflect.New(src.Type().Elem()).Elem()
			c.copy(v, it.Value(), lines)
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := src.Elem()
		v := reflect.New(e.Type()).Elem()
		c.copy(v, e, lines)
		dst.Set(v)
	default:
		dst.Set(src)
	}
}
