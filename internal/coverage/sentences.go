package coverage

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// The sentence inventory: every MUST and SHOULD sentence of the protocol
// pages, each with the rules or scenarios that fail (a MUST) or warn (a
// SHOULD) when only that sentence is broken, or why no run can see it.
// The clause inventory maps rules; this maps the pages' sentences onto
// them, so a sentence no rule stands for shows as a gap. The sentences
// themselves, as extracted from the pages, are testdata: a test holds
// sentences.yaml to quoting each of them exactly once.

//go:embed sentences.yaml
var sentencesYAML []byte

// sentencePage is one protocol page whose sentences the inventory covers.
type sentencePage struct {
	Name   string // as the docs cite it
	Slug   string // testdata/sentences/SLUG.txt
	Source string // the page's MDX file among the protocol pages
}

// sentencePages are the protocol pages in reading order.
var sentencePages = []sentencePage{
	{"Envelope", "envelope", "envelope.mdx"},
	{"Message Kinds", "message-kinds", "message-kinds.mdx"},
	{"Work Lifecycle", "work-lifecycle", "interactions.mdx"},
	{"Delivery Guarantees", "delivery", "delivery.mdx"},
	{"NATS Transport Binding", "nats", "nats.mdx"},
	{"Peer Discovery", "peer-discovery", "peer-discovery.mdx"},
	{"Capability Discovery", "capability-discovery", "capability-discovery.mdx"},
	{"Signature Verification", "signature-verification", "verification.mdx"},
	{"Ed25519 + JCS", "ed25519-jcs", "ed25519-jcs.mdx"},
	{"Conformance Levels", "conformance", "conformance.mdx"},
}

// pageSentence is one normative sentence of a page.
type pageSentence struct {
	Section string
	Text    string
}

// SentenceStatus is how a sentence is judged.
type SentenceStatus string

const (
	SentenceJudged       SentenceStatus = "judged"        // a rule or scenario fails or warns
	SentenceUnobservable SentenceStatus = "not judgeable" // no run can see it broken
	SentenceBindsNoPeer  SentenceStatus = "binds no peer" // the runner, a deployment, ...
)

// Sentence is one entry of the sentence inventory.
type Sentence struct {
	Page   string
	Quote  string
	Level  string // MUST or SHOULD
	By     []string
	Why    string
	Graded string
	// Reason is why no run can see it (Status unobservable: its own, or
	// that of the unjudgeable clauses it maps to) or whom it binds.
	Reason string
	Status SentenceStatus
	// Rules are the clauses By names; Scenarios the scenario ids it names
	// directly.
	Rules     []*Entry
	Scenarios []string
}

type sentenceFile struct {
	Reasons map[string]string `yaml:"reasons"`
	Pages   []struct {
		Page      string `yaml:"page"`
		Sentences []struct {
			Q            string   `yaml:"q"`
			L            string   `yaml:"l"`
			By           []string `yaml:"by"`
			Why          string   `yaml:"why"`
			Graded       string   `yaml:"graded"`
			Unobservable string   `yaml:"unobservable"`
			Binds        string   `yaml:"binds"`
		} `yaml:"sentences"`
	} `yaml:"pages"`
}

// Sentences is the sentence inventory, page by page in reading order.
type Sentences []Sentence

// BuildSentences reads sentences.yaml and resolves it against the clause
// inventory t and the embedded suites.
func BuildSentences(t Table) (Sentences, error) {
	set := scenario.LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		return nil, fmt.Errorf("coverage: embedded suites: %w", err)
	}
	levels := map[string]string{}
	for _, sc := range set.Scenarios {
		levels[sc.ID] = sc.Level
	}
	return parseSentences(sentencesYAML, t, levels)
}

// parseSentences is BuildSentences on given data: the clauses t and the
// level of every scenario id.
func parseSentences(data []byte, t Table, scenarios map[string]string) (Sentences, error) {
	var f sentenceFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("coverage: sentences.yaml: %w", err)
	}
	byID := map[string]*Entry{}
	for i := range t {
		byID[t[i].Rule.ID] = &t[i]
	}
	var out Sentences
	var bad []string
	used := map[string]bool{}
	reason := func(s string) (string, error) {
		name, ok := strings.CutPrefix(s, "@")
		if !ok {
			return s, nil
		}
		used[name] = true
		if r := f.Reasons[name]; strings.TrimSpace(r) != "" {
			return r, nil
		}
		return "", fmt.Errorf("no reason %q", name)
	}
	for _, p := range f.Pages {
		for _, e := range p.Sentences {
			s := Sentence{Page: p.Page, Quote: e.Q, Level: e.L, By: e.By, Why: e.Why, Graded: e.Graded}
			where := fmt.Sprintf("%s %q", p.Page, e.Q)
			fail := func(format string, a ...any) { bad = append(bad, where+": "+fmt.Sprintf(format, a...)) }
			if strings.TrimSpace(e.Q) == "" {
				fail("no quote")
			}
			if e.L != "MUST" && e.L != "SHOULD" {
				fail("level %q (MUST or SHOULD)", e.L)
			}
			given := 0
			for _, v := range []string{e.Unobservable, e.Binds} {
				if v != "" {
					given++
				}
			}
			if len(e.By) > 0 {
				given++
			}
			if given != 1 {
				fail("give exactly one of by, unobservable, binds")
				continue
			}
			var err error
			switch {
			case e.Unobservable != "":
				s.Status = SentenceUnobservable
				s.Reason, err = reason(e.Unobservable)
			case e.Binds != "":
				s.Status = SentenceBindsNoPeer
				s.Reason, err = reason(e.Binds)
			default:
				err = s.resolve(byID, scenarios)
			}
			if err != nil {
				fail("%v", err)
				continue
			}
			if err := s.checkGrade(scenarios); err != nil {
				fail("%v", err)
			}
			out = append(out, s)
		}
	}
	for name := range f.Reasons {
		if !used[name] {
			bad = append(bad, "reason "+name+": used by no sentence")
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("coverage: sentences.yaml: %s", strings.Join(bad, "; "))
	}
	return out, nil
}

// resolve looks up what By names: each a clause of the inventory or an
// embedded scenario. A sentence is judged when one of them judges (a
// scenario, or a clause fixtures, scenarios or passive judging check);
// when all are clauses nothing outside the peer can judge, it takes their
// reasons; a clause nothing judges yet leaves it open, an error.
func (s *Sentence) resolve(byID map[string]*Entry, scenarios map[string]string) error {
	var unknown, reasons []string
	judged := false
	for _, id := range s.By {
		if e := byID[id]; e != nil {
			s.Rules = append(s.Rules, e)
			switch e.Status() {
			case Unjudgeable:
				reasons = append(reasons, id+": "+e.Reason)
			case Open:
			default:
				judged = true
			}
			continue
		}
		if _, ok := scenarios[id]; ok {
			s.Scenarios = append(s.Scenarios, id)
			judged = true
			continue
		}
		unknown = append(unknown, id)
	}
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("%s: neither a clause of the inventory nor an embedded scenario", strings.Join(unknown, ", "))
	case judged:
		s.Status = SentenceJudged
	case len(reasons) > 0:
		s.Status, s.Reason = SentenceUnobservable, strings.Join(reasons, " ")
	default:
		return fmt.Errorf("nothing judges %s yet: add a scenario or fixture, or say why none can", strings.Join(s.By, ", "))
	}
	return nil
}

// checkGrade holds a judged MUST sentence to something that fails at MUST,
// or to a word on why it is graded lower; graded says nothing otherwise.
func (s *Sentence) checkGrade(scenarios map[string]string) error {
	if s.Status != SentenceJudged {
		if s.Graded != "" {
			return fmt.Errorf("graded, yet judged by nothing")
		}
		return nil
	}
	must := false
	for _, e := range s.Rules {
		must = must || e.Rule.Severity == rules.Error && e.Status() != Unjudgeable
	}
	for _, id := range s.Scenarios {
		must = must || scenarios[id] == "MUST"
	}
	switch {
	case s.Level == "MUST" && !must && strings.TrimSpace(s.Graded) == "":
		return fmt.Errorf("a MUST judged at SHOULD only: say why (graded), or name what fails at MUST")
	case s.Graded != "" && (s.Level != "MUST" || must):
		return fmt.Errorf("graded, yet a %s judged at its level", s.Level)
	}
	return nil
}

// Counts is how many sentences have each status.
func (ss Sentences) Counts() map[SentenceStatus]int {
	n := map[SentenceStatus]int{}
	for _, s := range ss {
		n[s.Status]++
	}
	return n
}

// Summary counts the sentences by status.
func (ss Sentences) Summary() string {
	n := ss.Counts()
	return fmt.Sprintf("%d sentences: %d judged, %d not judgeable, %d binding no peer", len(ss), n[SentenceJudged], n[SentenceUnobservable], n[SentenceBindsNoPeer])
}

// judgedBy says in one cell what judges a sentence, or why nothing can.
func (s Sentence) judgedBy() string {
	switch s.Status {
	case SentenceUnobservable:
		if len(s.Rules) > 0 {
			return "not judgeable: " + s.Reason
		}
		return "not observable: " + s.Reason
	case SentenceBindsNoPeer:
		return "binds no peer: " + s.Reason
	}
	var parts []string
	for _, e := range s.Rules {
		parts = append(parts, "`"+e.Rule.ID+"` ("+e.briefly()+")")
	}
	for _, id := range s.Scenarios {
		parts = append(parts, "`"+id+"`")
	}
	out := strings.Join(parts, ", ")
	if s.Why != "" {
		out += ": " + s.Why
	}
	if s.Graded != "" {
		out += "; graded SHOULD: " + s.Graded
	}
	return out
}

// briefly is an entry's evidence in a few words: its first scenario, its
// fixtures, or how else it is judged.
func (e Entry) briefly() string {
	var parts []string
	if n := len(e.Scenarios); n > 0 {
		s := e.Scenarios[0]
		if n > 1 {
			s += fmt.Sprintf(" +%d", n-1)
		}
		parts = append(parts, s)
	}
	if n := len(e.Fixtures); n > 0 {
		parts = append(parts, plural(n, "fixture"))
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; ")
	}
	switch {
	case len(e.Through) > 0:
		return "through " + strings.Join(e.throughIDs(), ", ")
	case e.Passive:
		return "passive"
	}
	return string(e.Status())
}

func (ss Sentences) markdown(b *strings.Builder) {
	b.WriteString(`
## Sentences

Every MUST and SHOULD sentence (MUST NOT, SHOULD NOT, REQUIRED and
RECOMMENDED included) of the protocol pages, each with what fails (a MUST)
or warns (a SHOULD) when only that sentence is broken: the clauses above
that stand for it, with their first scenario and fixtures, or scenarios by
id. A sentence nothing outside the peer can see broken says why; one that
binds someone else (the test runner, a deployment, a transport profile's
authors) says whom. Written by hand in coverage/sentences.yaml; a test holds
it to quoting each sentence of the pages exactly once.

`)
	fmt.Fprintf(b, "%s.\n", ss.Summary())
	page := ""
	for _, s := range ss {
		if s.Page != page {
			page = s.Page
			fmt.Fprintf(b, "\n### %s\n\n| Sentence | Level | Judged by |\n| --- | --- | --- |\n", page)
		}
		quote := s.Quote
		if _, after, ok := strings.Cut(quote, " | "); ok {
			quote = after
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", cell(`"`+quote+`"`), s.Level, cell(s.judgedBy()))
	}
}
