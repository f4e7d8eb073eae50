package coverage

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/rules"
)

// readPageSentences reads testdata/sentences/SLUG.txt: the page's
// sentences as extracted, "section | sentence" a line.
func readPageSentences(t *testing.T, slug string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sentences", slug+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var mustWord = regexp.MustCompile(`\b(MUST|REQUIRED|SHALL)\b`)

// Every sentence of every page is in the inventory, quoted by exactly one
// entry at its own level, and nothing else is: a page's count of entries
// is its count of sentences, so no sentence can be dropped (or a quote
// left behind when a page changes) without this failing.
func TestEverySentenceIsInTheInventory(t *testing.T) {
	tb, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	ss, err := BuildSentences(tb)
	if err != nil {
		t.Fatal(err)
	}
	byPage := map[string][]Sentence{}
	var order []string
	for _, s := range ss {
		if len(byPage[s.Page]) == 0 {
			order = append(order, s.Page)
		}
		byPage[s.Page] = append(byPage[s.Page], s)
	}
	var want []string
	for _, p := range sentencePages {
		want = append(want, p.Name)
	}
	if strings.Join(order, ", ") != strings.Join(want, ", ") {
		t.Errorf("pages %v, want %v in that order", order, want)
	}
	for _, p := range sentencePages {
		lines := readPageSentences(t, p.Slug)
		entries := byPage[p.Name]
		if len(entries) != len(lines) {
			t.Errorf("%s: %d entries for %d sentences", p.Name, len(entries), len(lines))
		}
		quoted := make([]int, len(lines))
		for _, e := range entries {
			var hits []int
			for i, l := range lines {
				if strings.Contains(l, e.Quote) {
					hits = append(hits, i)
				}
			}
			if len(hits) != 1 {
				t.Errorf("%s: quote %q found in %d sentences, want 1", p.Name, e.Quote, len(hits))
				continue
			}
			quoted[hits[0]]++
			_, text, _ := strings.Cut(lines[hits[0]], " | ")
			level := "SHOULD"
			if mustWord.MatchString(text) {
				level = "MUST"
			}
			if e.Level != level {
				t.Errorf("%s: %q is a %s, the inventory says %s", p.Name, text, level, e.Level)
			}
		}
		for i, n := range quoted {
			if n != 1 {
				t.Errorf("%s: sentence quoted %d times, want once: %s", p.Name, n, lines[i])
			}
		}
	}
	t.Log(ss.Summary())
}

// What the inventory says is checked: an id that is neither a clause nor
// a scenario, a MUST with nothing behind it and no reason, a MUST judged
// at SHOULD only without a word on why, a sentence nothing judges yet.
func TestSentencesChecked(t *testing.T) {
	tb := Table{
		{Rule: &rules.Rule{ID: "M", Severity: rules.Error}, Scenarios: []string{"s.m"}},
		{Rule: &rules.Rule{ID: "S", Severity: rules.Warning}, Scenarios: []string{"s.s"}},
		{Rule: &rules.Rule{ID: "U", Severity: rules.Error}, Reason: "inside the peer"},
		{Rule: &rules.Rule{ID: "O", Severity: rules.Error}},
	}
	scn := map[string]string{"s.m": "MUST", "s.s": "SHOULD"}
	doc := func(entry string) []byte {
		return []byte("reasons: {inside: \"no message shows it\"}\npages:\n  - page: P\n    sentences:\n      - " + entry + "\n      - {q: x, l: MUST, unobservable: \"@inside\"}\n")
	}
	for _, tc := range []struct {
		name, entry, want string
	}{
		{"unknown-id", `{q: a, l: MUST, by: [NO-SUCH]}`, "NO-SUCH: neither a clause"},
		{"must-with-nothing", `{q: a, l: MUST}`, "give exactly one of by, unobservable, binds"},
		{"must-at-should", `{q: a, l: MUST, by: [S]}`, "a MUST judged at SHOULD only"},
		{"open-clause", `{q: a, l: MUST, by: [O]}`, "nothing judges O yet"},
		{"graded-needlessly", `{q: a, l: MUST, by: [M], graded: x}`, "graded, yet a MUST judged at its level"},
		{"two-answers", `{q: a, l: MUST, by: [M], binds: x}`, "give exactly one"},
		{"unknown-reason", `{q: a, l: SHOULD, unobservable: "@nope"}`, `no reason "nope"`},
		{"bad-level", `{q: a, l: MAY, by: [M]}`, `level "MAY"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSentences(doc(tc.entry), tb, scn)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.entry, err, tc.want)
			}
		})
	}
	ss, err := parseSentences(doc(`{q: a, l: MUST, by: [S, s.m]}`), tb, scn)
	if err != nil {
		t.Fatal(err)
	}
	if ss[0].Status != SentenceJudged || ss[1].Status != SentenceUnobservable || ss[1].Reason != "no message shows it" {
		t.Errorf("statuses %+v", ss)
	}
	ss, err = parseSentences(doc(`{q: a, l: MUST, by: [U]}`), tb, scn)
	if err != nil || ss[0].Status != SentenceUnobservable || !strings.Contains(ss[0].Reason, "inside the peer") {
		t.Errorf("through an unjudgeable clause: %v, %+v", err, ss)
	}
	if _, err := parseSentences([]byte("reasons: {spare: x}\npages: []\n"), tb, scn); err == nil || !strings.Contains(err.Error(), "spare: used by no sentence") {
		t.Errorf("an unused reason: %v", err)
	}
}
