package validate

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// TestCleanCopyIsReflective holds the hand-written Document.CleanCopy to the
// sanitiser's reflective copy: every field of a document, its findings and
// their positions is filled (a hostile string in each string, made unique by
// its path), and both copies must be equal, sanitised and not sharing a
// slice with the original. A field added to Document or rules.Finding that
// CleanCopy does not sanitise fails here.
func TestCleanCopyIsReflective(t *testing.T) {
	ruleType := reflect.TypeOf((*rules.Rule)(nil))
	rule := &rules.Rule{ID: "ENV-X"}
	d := &Document{}
	fill(reflect.ValueOf(d).Elem(), "doc", ruleType, reflect.ValueOf(rule))
	if len(d.Findings) == 0 || len(d.At) == 0 || d.Source == "" {
		t.Fatalf("fill left fields empty: %+v", d)
	}
	for _, mode := range []struct {
		name string
		copy func(*Document, ...reflect.Type) *Document
	}{{"text", sanitize.Copy[*Document]}, {"redacted", sanitize.CopyRedacted[*Document]}} {
		t.Run(mode.name, func(t *testing.T) {
			got := mode.copy(d, ruleType)
			// With no secret registered, redacting leaves every string as it was.
			want := d
			if mode.name == "text" {
				want = sanitize.Reflective(d, ruleType)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("CleanCopy differs from the reflective copy:\n got %+v\nwant %+v", got, want)
			}
			if got == d || &got.Findings[0] == &d.Findings[0] || &got.At[0] == &d.At[0] {
				t.Fatal("CleanCopy shares the document or a slice with the original")
			}
			if got.Findings[0].Rule != rule {
				t.Fatal("CleanCopy copied the rule: writers compare rules by identity")
			}
		})
	}
	if got := sanitize.Copy(d, ruleType); got.Source == d.Source {
		t.Fatalf("the hostile source went through unchanged: %q", got.Source)
	}
	if (*Document)(nil).CleanCopy(sanitize.Text) != nil {
		t.Fatal("a nil document copied to non-nil")
	}
}

// fill sets every exported field under v: strings to sanitize's hostile
// sample and their path, numbers and booleans to non-zero values, slices to
// two filled elements; a pointer of type keep is set to keepTo.
func fill(v reflect.Value, path string, keep reflect.Type, keepTo reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("::error::\x1b[31m" + path + "\u202e\r\n")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(path)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(len(path)))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				fill(v.Field(i), path+"."+f.Name, keep, keepTo)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i), keep, keepTo)
		}
		v.Set(s)
	case reflect.Pointer:
		if v.Type() == keep {
			v.Set(keepTo)
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), path, keep, keepTo)
		v.Set(p)
	default:
		panic(fmt.Sprintf("fill: %s is a %s: teach fill and CleanCopy about it", path, v.Kind()))
	}
}
