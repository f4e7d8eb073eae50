package coverage

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/fixturetest"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// maxOpen ratchets the clauses nothing judges yet: it may only go down. A
// new clause arrives with a fixture, a scenario or a reason it cannot be
// judged, never as one more gap.
const maxOpen = 1

func TestEveryClauseHasAStatus(t *testing.T) {
	tb, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, e := range tb {
		in[e.Rule.ID] = true
		switch e.Status() {
		case Both, Offline, Live, Passive, Unjudgeable, Open:
		default:
			t.Errorf("%s: status %q", e.Rule.ID, e.Status())
		}
		if e.Page == "" {
			t.Errorf("%s: no page", e.Rule.ID)
		}
	}
	for _, r := range catalogue.All() {
		if InScope(r) && !in[r.ID] {
			t.Errorf("clause %s missing from the inventory", r.ID)
		}
	}
	var open []string
	for _, e := range tb {
		if e.Status() == Open {
			open = append(open, e.Rule.ID)
		}
	}
	t.Logf("%s; open: %s", tb.Summary(), strings.Join(open, ", "))
	if len(open) > maxOpen {
		t.Errorf("%d open clauses (at most %d): give each new clause a fixture, a scenario or a reason in inventory.yaml", len(open), maxOpen)
	}
}

// Every clause shows the sentence its level comes from (rules.Rule.Basis),
// and that sentence speaks at the level graded: a MUST's holds a MUST,
// MUST NOT or REQUIRED (or a prohibition read as one), a SHOULD's a SHOULD,
// a MAY's a MAY. A clause whose level is changed without its basis fails
// here.
func TestEveryClauseSaysWhereItsLevelComesFrom(t *testing.T) {
	tb, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	keywords := map[rules.Severity][]string{
		rules.Error:   {"MUST", "REQUIRED"},
		rules.Warning: {"SHOULD"},
		rules.Note:    {"MAY"},
	}
	for _, e := range tb {
		r := e.Rule
		if strings.TrimSpace(r.Basis) == "" {
			t.Errorf("%s: no Basis: say which sentence of the pages gives it its level %s", r.ID, r.Severity.Level())
			continue
		}
		if !slices.ContainsFunc(keywords[r.Severity], func(k string) bool { return strings.Contains(r.Basis, k) }) {
			t.Errorf("%s is a %s, but its basis names no %v: %s", r.ID, r.Severity.Level(), keywords[r.Severity], r.Basis)
		}
	}
}

// The hand-written data stays honest: a reason only for a clause of the
// inventory that nothing judges.
func TestReasonsChecked(t *testing.T) {
	tb := Table{
		{Rule: &rules.Rule{ID: "A"}, Scenarios: []string{"s"}},
		{Rule: &rules.Rule{ID: "B"}},
	}
	for _, tc := range []struct {
		name    string
		reasons map[string]string
		want    string
	}{
		{"judged", map[string]string{"A": "cannot see it"}, "A: judged"},
		{"not-a-clause", map[string]string{"C": "x"}, "C: not a clause"},
		{"empty-reason", map[string]string{"B": " "}, "B: empty reason"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkReasons(tb, tc.reasons)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: %v, want %q", tc.reasons, err, tc.want)
			}
		})
	}
	if err := checkReasons(tb, map[string]string{"B": "inside the peer"}); err != nil {
		t.Error(err)
	}
}

// Offline status is what the engine raises, not what a file name claims.
func TestOfflineNeedsTheEngine(t *testing.T) {
	tb, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tb {
		for _, f := range e.Fixtures {
			if !strings.Contains(f, e.Rule.ID) {
				t.Errorf("%s: fixture %s not named for it", e.Rule.ID, f)
			}
		}
	}
}

// A fixture of fixtures/agh/context breaks exactly the rules its name
// promises in its directory's context, and none of them without it: the
// context, not the envelope alone, is what it shows.
func TestContextFixtures(t *testing.T) {
	ctxs, err := fixtures.Contexts()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := agh.NewChecker(agh.Options{FullSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	err = fs.WalkDir(fixtures.FS(), fixtures.ContextDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".json" {
			return err
		}
		dir := path.Base(path.Dir(p))
		ctx, ok := ctxs[dir]
		if !ok {
			t.Errorf("%s: directory %s has no context in contexts.yaml", p, dir)
			return nil
		}
		seen[dir]++
		t.Run(strings.TrimPrefix(p, fixtures.ContextDir+"/"), func(t *testing.T) {
			o, err := ContextOptions(ctx)
			if err != nil {
				t.Fatalf("context %s: %v", dir, err)
			}
			c, err := agh.NewChecker(o)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := fs.ReadFile(fixtures.FS(), p)
			if err != nil {
				t.Fatal(err)
			}
			fixturetest.Exactly(t, p, c.CheckBytes(raw).Findings)
			want, _ := fixturetest.Want(p)
			for _, id := range fixturetest.IDs(plain.CheckBytes(raw).Findings) {
				if slices.Contains(want, id) {
					t.Errorf("%s raised without the context too: the fixture belongs in agh/invalid", id)
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range ctxs {
		if seen[dir] == 0 {
			t.Errorf("context %s has no fixture", dir)
		}
	}
}

// What is written by hand about judged clauses stays honest: through only
// judged clauses, never for a clause with a check or a reason of its own,
// and always saying how.
func TestJudgedOtherwiseChecked(t *testing.T) {
	table := func() Table {
		return Table{
			{Rule: &rules.Rule{ID: "A"}, Scenarios: []string{"s"}},
			{Rule: &rules.Rule{ID: "B"}},
			{Rule: &rules.Rule{ID: "C"}, Fixtures: []string{"f"}},
			{Rule: &rules.Rule{ID: "D"}},
		}
	}
	type th = struct {
		Rules []string `yaml:"rules"`
		Why   string   `yaml:"why"`
	}
	for _, tc := range []struct {
		name string
		inv  inventory
		want string
	}{
		{"through-for-judged", inventory{Through: map[string]th{"A": {[]string{"C"}, "x"}}}, "A: judged"},
		{"through-unjudged", inventory{Through: map[string]th{"B": {[]string{"D"}, "x"}}}, "B: through D, which no fixture or scenario judges"},
		{"no-word-on-how", inventory{Through: map[string]th{"B": {[]string{"C"}, " "}}}, "B: no word on how"},
		{"through-for-unknown", inventory{Through: map[string]th{"Z": {[]string{"C"}, "x"}}}, "Z: not a clause"},
		{"passive-for-judged", inventory{Passive: map[string]string{"C": "x"}}, "C: judged"},
		{"through-and-passive", inventory{Passive: map[string]string{"B": "x"}, Through: map[string]th{"B": {[]string{"C"}, "x"}}}, "B: listed under through and passive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := table().judgedOtherwise(&tc.inv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want %q", tc.inv, err, tc.want)
			}
		})
	}
	tb := table()
	inv := inventory{Through: map[string]th{"B": {[]string{"A", "C"}, "both implement it"}}, Passive: map[string]string{"D": "every run"}}
	if err := tb.judgedOtherwise(&inv); err != nil {
		t.Fatal(err)
	}
	if tb[1].Status() != Both || tb[3].Status() != Passive {
		t.Errorf("statuses %s, %s: want both (through a live and an offline clause), passive", tb[1].Status(), tb[3].Status())
	}
	if got := tb[1].evidence(); got != "through A, C: both implement it" {
		t.Errorf("evidence %q", got)
	}
}

// A MAY clause is held offline only by valid fixtures the engine accepts;
// a MUST or SHOULD needs invalid fixtures instead.
func TestAcceptedChecked(t *testing.T) {
	table := func() Table {
		return Table{
			{Rule: &rules.Rule{ID: "M", Severity: rules.Note}},
			{Rule: &rules.Rule{ID: "S", Severity: rules.Warning}},
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string][]string
		want  string
	}{
		{"invalid-fixture-for-may", map[string][]string{"M": {"agh/invalid/ENV-ID__empty.json"}}, "M: agh/invalid/ENV-ID__empty.json is not accepted"},
		{"valid-fixture-for-should", map[string][]string{"S": {"agh/valid/greet-full.json"}}, "S: a SHOULD is judged by invalid fixtures"},
		{"missing-fixture", map[string][]string{"M": {"agh/valid/no-such.json"}}, "M: open agh/valid/no-such.json"},
		{"not-a-clause", map[string][]string{"X": {"agh/valid/greet-full.json"}}, "X: not a clause"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := table().accept(tc.files, fixtures.FS())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: %v, want %q", tc.files, err, tc.want)
			}
		})
	}
	tb := table()
	if err := tb.accept(map[string][]string{"M": {"agh/valid/greet-full.json"}}, fixtures.FS()); err != nil {
		t.Fatal(err)
	}
	if tb[0].Status() != Offline {
		t.Errorf("status %s, want offline", tb[0].Status())
	}
}
