package scenario_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// TestRenderRoundTrip: the definition `aghcheck show` prints is a scenario
// file's worth: read back as one, every shipped scenario (generated cases
// included) loads without a problem and is the same scenario.
func TestRenderRoundTrip(t *testing.T) {
	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	for _, sc := range set.Scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			y, err := sc.YAML()
			if err != nil {
				t.Fatalf("%s: %v", sc.ID, err)
			}
			file := "scenarios:\n  - " + strings.ReplaceAll(strings.TrimSuffix(string(y), "\n"), "\n", "\n    ") + "\n"
			back, probs := scenario.Parse("shown.yaml", []byte(file), sc.Suite)
			if len(probs) > 0 || len(back) != 1 {
				t.Errorf("%s: the shown definition does not load: %v\n%s", sc.ID, probs, file)
				return
			}
			want, _ := sc.JSON()
			got, _ := back[0].JSON()
			if !bytes.Equal(got, want) && !huge(want) {
				t.Errorf("%s: the shown definition loads as another scenario:\n%s\nwant\n%s", sc.ID, got, want)
			}
		})
	}
}

// huge reports whether a definition holds a number beyond float64 (a
// fixture's deliberate 1e400), which YAML cannot carry as a number: such a
// scenario is shown exactly only with --format json.
func huge(def []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(def))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(x), 64)
			return err != nil || math.IsInf(f, 0)
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// NeedsCapture finds the captures a step refers to in any of its members,
// however the expression is spaced, and no capture that only shares a
// prefix with one it names.
func TestNeedsCapture(t *testing.T) {
	step := func(j string) *scenario.Step {
		var st scenario.Step
		if err := json.Unmarshal([]byte(j), &st); err != nil {
			t.Fatal(err)
		}
		return &st
	}
	missing := map[string]int{"cont": 5, "w": 2}
	for _, tc := range []struct {
		name, step, want string
	}{
		{"silence pattern", `{"expect_silence": {"on": "any", "any_of": [{"kind": "say", "id": {"$ne": "{{capture.cont}}"}}]}}`, "cont"},
		{"spaced", `{"send": {"to": "iut", "envelope": {"kind": "say", "work_id": "{{ capture.w }}"}}}`, "w"},
		{"in a longer string", `{"send": {"to": "iut", "envelope": {"kind": "say", "body": {"text": "work {{capture.w}} please"}}}}`, "w"},
		{"a capture not missing", `{"send": {"to": "iut", "envelope": {"kind": "say", "thread_id": "{{capture.t}}"}}}`, ""},
		{"a longer name", `{"send": {"to": "iut", "envelope": {"kind": "say", "thread_id": "{{capture.wx}}"}}}`, ""},
		{"no template", `{"send": {"to": "iut", "envelope": {"kind": "say"}}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scenario.NeedsCapture(step(tc.step), missing); got != tc.want {
				t.Errorf("NeedsCapture = %q, want %q", got, tc.want)
			}
		})
	}
	if got := scenario.NeedsCapture(step(`{"send": {"to": "iut", "envelope": {"work_id": "{{capture.w}}"}}}`), nil); got != "" {
		t.Errorf("nothing missing: NeedsCapture = %q, want none", got)
	}
}
