package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/fixtures"
)

// readmeCommand is the command line an invalid fixture directory's README
// gives for judging one of its files; readmeAlias a rule its README says
// is reported under another id.
var (
	readmeCommand = regexp.MustCompile("(?m)^aghcheck validate (.*) (fixtures/\\S+)/<file>$")
	readmeAlias   = regexp.MustCompile("`([A-Z0-9-]+)` is reported as `([A-Z0-9-]+)`")
)

// TestInvalidFixturesFailAsDocumented: every file under an invalid fixture
// directory fails, with the rules its name promises, under the command its
// directory's README gives (so the README can be followed word for word).
func TestInvalidFixturesFailAsDocumented(t *testing.T) {
	readmes, _ := filepath.Glob("../../fixtures/*/invalid/README.md")
	more, _ := filepath.Glob("../../fixtures/*/*/invalid/README.md")
	readmes = append(readmes, more...)
	if len(readmes) < 5 {
		t.Fatalf("found %d invalid-fixture READMEs, want one per invalid directory", len(readmes))
	}
	for _, readme := range readmes {
		t.Run(strings.TrimPrefix(filepath.Dir(readme), "../../fixtures/"), func(t *testing.T) {
			raw, err := os.ReadFile(readme)
			if err != nil {
				t.Fatal(err)
			}
			m := readmeCommand.FindStringSubmatch(string(raw))
			if m == nil {
				t.Errorf("%s: no line `aghcheck validate OPTIONS fixtures/.../<file>`", readme)
				return
			}
			alias := map[string]string{}
			for _, a := range readmeAlias.FindAllStringSubmatch(string(raw), -1) {
				alias[a[1]] = a[2]
			}
			dir := filepath.Dir(readme)
			if want := filepath.Join("../..", m[2]); filepath.Clean(want) != filepath.Clean(dir) {
				t.Errorf("%s: the command names %s, not its own directory", readme, m[2])
			}
			// Paths in the options are relative to the repository root.
			var opts []string
			for _, o := range strings.Fields(m[1]) {
				if strings.HasPrefix(o, "fixtures/") {
					o = "../../" + o
				}
				opts = append(opts, o)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if len(files) == 0 {
				t.Errorf("%s: no fixtures beside it", readme)
			}
			for _, file := range files {
				t.Run(filepath.Base(file), func(t *testing.T) {
					args := append(append([]string{"validate", "--format", "json"}, opts...), file)
					code, out, stderr := runCLI(t, "", args...)
					if code != exitInvalid {
						t.Errorf("%s: exit %d, want %d (invalid); stderr %q", file, code, exitInvalid, stderr)
						return
					}
					var rep struct {
						Documents []struct {
							Findings []struct {
								Rule     string `json:"rule"`
								Severity string `json:"severity"`
							} `json:"findings"`
						} `json:"documents"`
					}
					if err := json.Unmarshal([]byte(out), &rep); err != nil {
						t.Fatalf("%s: %v", file, err)
					}
					var errs []string
					for _, d := range rep.Documents {
						for _, f := range d.Findings {
							if f.Severity == "error" {
								errs = append(errs, f.Rule)
							}
						}
					}
					ids, _, _ := fixtures.Name(file)
					for _, id := range ids {
						if a, ok := alias[id]; ok {
							id = a
						}
						if !slices.Contains(errs, id) {
							t.Errorf("%s: fails with %v, not with %s its name promises", file, errs, id)
						}
					}
				})
			}
		})
	}
}
