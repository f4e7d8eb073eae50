package main

import (
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// The scenario counts README and docs state are the counts of the shipped
// suites: a new scenario must not leave a page saying the old number.
func TestDocScenarioCounts(t *testing.T) {
	scs, err := scenario.LoadSuites(suites.FS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A generated case comes from a family file (top-level key family).
	family := map[string]bool{}
	generated := 0
	for _, sc := range scs {
		file := strings.TrimPrefix(sc.File, "embedded:")
		isFamily, seen := family[file]
		if !seen {
			raw, err := fs.ReadFile(suites.FS(), file)
			if err != nil {
				t.Fatalf("%s: %v", sc.File, err)
			}
			var top map[string]any
			_ = yaml.Unmarshal(raw, &top)
			_, isFamily = top["family"]
			family[file] = isFamily
		}
		if isFamily {
			generated++
		}
	}
	total := len(scs)
	checks := []struct {
		name string
		file string
		re   *regexp.Regexp
		want []int
	}{
		{"README", "../../README.md", regexp.MustCompile(`(\d+) scenarios \((\d+) written by hand, (\d+) generated receiver cases\)`), []int{total, total - generated, generated}},
		{"harness-verdicts", "../../docs/harness.md", regexp.MustCompile(`same (\d+) verdicts`), []int{total}},
		{"harness-played", "../../docs/harness.md", regexp.MustCompile(`scenarios_played: (\d+)`), []int{total}},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			raw, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			ms := c.re.FindAllStringSubmatch(string(raw), -1)
			if len(ms) == 0 {
				t.Errorf("%s: no %q any more: update this test", c.file, c.re)
			}
			for _, m := range ms {
				for i, want := range c.want {
					if got, _ := strconv.Atoi(m[i+1]); got != want {
						t.Errorf("%s says %q: the suites have %d scenarios, %d of them generated receiver cases", c.file, m[0], total, generated)
						break
					}
				}
			}
		})
	}
}
