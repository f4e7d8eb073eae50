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
