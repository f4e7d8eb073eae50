package main

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// suiteRow is one row of docs/scenarios.md's table of shipped suites: a
// folder of suites/ (a record group) or a family of generated cases
// (`receiver.*`), and the faults of aghcheck peer it says the row catches.
type suiteRow struct {
	line    int
	folder  string // core/envelope; "" for a family row
	prefix  string // receiver. for `receiver.*`
	catches []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// TestShippedSuitesTable: docs/scenarios.md's table of shipped suites has a
// row for every group of suites/groups.yaml and none for a folder that is
// not one, and every fault a row says it catches is a fault of aghcheck
// peer that harness/proven.yaml (the mutation matrix) shows failing a
// scenario of that row (an allowed variant, which must pass, excepted).
func TestShippedSuitesTable(t *testing.T) {
	const doc = "../../docs/scenarios.md"
	raw, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	rows := shippedSuiteRows(t, string(raw))
	folders := map[string]bool{}
	for _, r := range rows {
		if r.folder != "" {
			folders[r.folder] = true
		}
	}
	for _, g := range suites.Groups() {
		if !folders[g.Folder()] {
			t.Errorf("%s: the table of shipped suites has no row for the group %s (folder suites/%s)", doc, g.ID, g.Folder())
		}
		delete(folders, g.Folder())
	}
	for f := range folders {
		t.Errorf("%s: the table of shipped suites has a row for %s, which is no group of suites/groups.yaml", doc, f)
	}

	scs, err := scenario.LoadSuites(suites.FS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	proven := provenMatrix(t)
	faults := map[string]peer.Fault{}
	for _, f := range peer.Faults() {
		faults[f.Name] = f
	}
	// A pattern (`init-*`) names every fault it matches but those another
	// row names outright.
	rowOf := map[string]int{}
	for i, r := range rows {
		for _, name := range r.catches {
			rowOf[name] = i
		}
	}
	for i, r := range rows {
		for _, name := range r.catches {
			var named []peer.Fault
			for n, f := range faults {
				j, elsewhere := rowOf[n]
				if ok, _ := path.Match(name, n); ok && (n == name || !elsewhere || j == i) {
					named = append(named, f)
				}
			}
			if len(named) == 0 {
				t.Errorf("%s:%d: `%s` is no fault of aghcheck peer (aghcheck peer --list-faults)", doc, r.line, name)
			}
			for _, f := range named {
				if f.Group == peer.GroupAllowed {
					continue // an allowed variant passes every scenario
				}
				if !slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool {
					return r.holds(sc) && slices.Contains(proven[sc.ID], f.Name)
				}) {
					t.Errorf("%s:%d: the row says it catches %s, but harness/proven.yaml shows it failing no scenario of %s", doc, r.line, f.Name, r.name())
				}
			}
		}
	}
}

func (r suiteRow) holds(sc *scenario.Scenario) bool {
	if r.folder != "" {
		return sc.Suite == r.folder
	}
	return strings.HasPrefix(sc.ID, r.prefix)
}

func (r suiteRow) name() string {
	if r.folder != "" {
		return r.folder
	}
	return r.prefix + "*"
}

// shippedSuiteRows reads the table under "## Shipped suites".
func shippedSuiteRows(t *testing.T, doc string) []suiteRow {
	t.Helper()
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, "## Shipped suites")
	if start < 0 {
		t.Fatal("docs/scenarios.md has no section ## Shipped suites")
	}
	var rows []suiteRow
	inTable := false
	for i := start + 1; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		if !inTable || strings.HasPrefix(line, "| ---") {
			inTable = true // the header, then the separator
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 {
			t.Fatalf("docs/scenarios.md:%d: want 3 cells (suite, scenarios, catches), got %d", i+1, len(cells))
		}
		r := suiteRow{line: i + 1}
		first := strings.TrimSpace(cells[0])
		if m := backticked.FindStringSubmatch(first); m != nil && strings.HasPrefix(first, "`") {
			r.prefix = strings.TrimSuffix(m[1], "*")
		} else {
			r.folder, _, _ = strings.Cut(first, " ")
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			r.catches = append(r.catches, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("docs/scenarios.md: no rows under ## Shipped suites")
	}
	return rows
}

// provenMatrix is harness/proven.yaml: scenario id → the faults that fail it.
func provenMatrix(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("../../harness/proven.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]string
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatalf("harness/proven.yaml: %v", err)
	}
	return m
}
