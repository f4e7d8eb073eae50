package main

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// A generated region of a Markdown page is written between
//
//	<!-- generated: NAME (make regen) -->TEXT<!-- /generated -->
//
// on one line (a figure in a sentence) or on lines of their own (a table, a
// block): TEXT is what docGenerators[NAME] makes from the code and data, so
// a count, a list or a table in prose follows them and is never edited by
// hand. make regen (go test ./cmd/aghcheck -run TestGeneratedDocs -update)
// rewrites every region; without -update a region that differs fails.
const (
	regionOpen  = "<!-- generated: "
	regionClose = "<!-- /generated -->"
)

// docGenerators make the text of each kind of region. A block region's
// text ends with a newline; an inline one has none.
var docGenerators = map[string]func(t *testing.T) string{
	"scenario-counts": scenarioCounts,
	"record-example":  recordExample,
	"faults":          faultTable,
	"invalid-should":  invalidShould,
}

// TestGeneratedDocs: every generated region of every Markdown page holds
// what its generator makes now, and every generator has a region.
func TestGeneratedDocs(t *testing.T) {
	used := map[string]bool{}
	for _, file := range markdownFiles(t) {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, names, err := fillRegions(string(raw), func(name string) (string, error) {
			gen, ok := docGenerators[name]
			if !ok {
				return "", fmt.Errorf("no generator %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(docGenerators)), ", "))
			}
			return gen(t), nil
		})
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for _, n := range names {
			used[n] = true
		}
		if got == string(raw) {
			continue
		}
		if golden.Updating() {
			if err := golden.Write(file, []byte(got)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: a generated region (%s) is out of date with the code and data; %s", file, strings.Join(names, ", "), golden.Command(t))
	}
	for name := range docGenerators {
		if !used[name] {
			t.Errorf("no page has a region %q: a generator nothing shows", name)
		}
	}
}

// fillRegions returns doc with each generated region's text replaced by
// gen(NAME), and the names of the regions in order.
func fillRegions(doc string, gen func(name string) (string, error)) (string, []string, error) {
	var (
		b     strings.Builder
		names []string
	)
	for {
		i := strings.Index(doc, regionOpen)
		if i < 0 {
			b.WriteString(doc)
			return b.String(), names, nil
		}
		if i > 0 && doc[i-1] == '`' {
			// A marker quoted in code (a page telling how regions are
			// written) is no region.
			b.WriteString(doc[:i+len(regionOpen)])
			doc = doc[i+len(regionOpen):]
			continue
		}
		end := strings.Index(doc[i:], "-->")
		if end < 0 {
			return "", nil, fmt.Errorf("an unclosed %q comment", regionOpen)
		}
		head := doc[i : i+end+len("-->")]
		name, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(head, "-->"), regionOpen)), " ")
		rest := doc[i+len(head):]
		j := strings.Index(rest, regionClose)
		if k := strings.Index(rest, regionOpen); j < 0 || (k >= 0 && k < j) {
			return "", nil, fmt.Errorf("region %q has no %s before the next region or the end", name, regionClose)
		}
		text, err := gen(name)
		if err != nil {
			return "", nil, err
		}
		if strings.HasPrefix(rest, "\n") {
			text = "\n" + text // a block: the markers stand on lines of their own
		} else if strings.Contains(text, "\n") {
			return "", nil, fmt.Errorf("region %q makes lines: put its markers on lines of their own", name)
		}
		names = append(names, name)
		b.WriteString(doc[:i] + head + text + regionClose)
		doc = rest[j+len(regionClose):]
	}
}

// markdownFiles are the repository's Markdown pages (not the Node
// example's dependencies, not test data).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && p != "../..")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found %d Markdown pages under the repository: not its root?", len(out))
	}
	return out
}

// builtinScenarios are the shipped suites, and how many of them a family
// file generates (a file whose top-level key is family).
func builtinScenarios(t *testing.T) (all []*scenario.Scenario, generated int) {
	t.Helper()
	scs, err := scenario.LoadSuites(suites.FS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	family := map[string]bool{}
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
	return scs, generated
}

// scenarioCounts: "N scenarios (H written by hand, G generated receiver cases)".
func scenarioCounts(t *testing.T) string {
	scs, generated := builtinScenarios(t)
	return fmt.Sprintf("%d scenarios (%d written by hand, %d generated receiver cases)", len(scs), len(scs)-generated, generated)
}

// recordExample is the self-certification record of a run that passed
// every scenario of the shipped suites (docs/harness.md).
func recordExample(t *testing.T) string {
	scs, _ := builtinScenarios(t)
	var profiles, passed, optional []string
	for _, g := range suites.Groups() {
		if g.Profile != "" {
			profiles = append(profiles, g.Profile)
		}
		if g.Optional {
			optional = append(optional, g.ID)
		} else {
			passed = append(passed, g.ID)
		}
	}
	list := func(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }
	first, inFirst := suites.Groups()[0], 0
	for _, sc := range scs {
		if first.Holds(sc.Suite) {
			inFirst++
		}
	}
	return "```yaml\n" +
		"implementation: my-runtime\n" +
		"version: 0.4.0\n" +
		"claim: Full Peer\n" +
		"protocol: agh-network/v0\n" +
		"profiles: " + list(profiles) + "\n" +
		"fixture_suite: aghcheck@v0.3.0 sha256:…   # aghcheck's version and the digest of the scenarios played\n" +
		fmt.Sprintf("scenarios_played: %d\n", len(scs)) +
		"passed: " + list(passed) + "\n" +
		"optional: " + list(optional) + "\n" +
		"deviations: []                            # the --baseline entries this run confirmed: id, outcome, reason\n" +
		"groups:                                   # every group played: what it played, passed, and did not play\n" +
		fmt.Sprintf("  - {id: %s, played: %d, passed: %d, not_played: 0}\n", first.ID, inFirst, inFirst) +
		"  - …\n" +
		"date: \"2026-04-16T12:00:00Z\"              # when the run started (UTC)\n" +
		"report_sha256: …                          # SHA-256 of the run's JSON report (--format json)\n" +
		"```\n"
}

// faultTable is docs/peer.md's list of the faults of aghcheck peer, as
// --list-faults gives them.
func faultTable(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| fault | group | breaks | behaviour |\n| --- | --- | --- | --- |\n")
	for _, f := range peer.Faults() {
		breaks := make([]string, len(f.Requirements))
		for i, id := range f.Requirements {
			breaks[i] = "`" + id + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.Name, f.Group, strings.Join(breaks, ", "), strings.ReplaceAll(f.Description, "|", `\|`))
	}
	return b.String()
}

// invalidShould: "N files break a SHOULD only (`RULE`, `RULE` (2 files),
// ...)": the fixtures of fixtures/agh/invalid that pass validate without
// --strict (every rule their name promises is a SHOULD).
func invalidShould(t *testing.T) string {
	files, err := fs.Glob(fixtures.FS(), "agh/invalid/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures under agh/invalid: %v", err)
	}
	count := map[string]int{}
	n := 0
	for _, f := range files {
		ids, _, ok := fixtures.Name(path.Base(f))
		if !ok {
			continue
		}
		should := true
		for _, id := range ids {
			r, ok := catalogue.Lookup(id)
			should = should && ok && r.Severity == rules.Warning
		}
		if should {
			n++
			count[strings.Join(ids, "+")]++
		}
	}
	names := slices.Sorted(maps.Keys(count))
	for i, id := range names {
		names[i] = "`" + id + "`"
		if count[id] > 1 {
			names[i] += fmt.Sprintf(" (%d files)", count[id])
		}
	}
	return fmt.Sprintf("%d files break a SHOULD only (%s)", n, strings.Join(names, ", "))
}
