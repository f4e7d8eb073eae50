package reporter

import (
	"reflect"
	"testing"
)

func TestGroupInOrder(t *testing.T) {
	words := []string{"bob", "ann", "bea", "cal", "amy"}
	keys, groups := groupInOrder(words, func(s string) byte { return s[0] })
	if want := []byte("bac"); !reflect.DeepEqual(keys, want) {
		t.Errorf("keys = %q, want %q (order of first appearance)", keys, want)
	}
	want := [][]string{{"bob", "bea"}, {"ann", "amy"}, {"cal"}}
	if !reflect.DeepEqual(groups, want) {
		t.Errorf("groups = %q, want %q", groups, want)
	}
	if k, g := groupInOrder(nil, func(s string) string { return s }); k != nil || g != nil {
		t.Errorf("empty input gave %v, %v", k, g)
	}
}
