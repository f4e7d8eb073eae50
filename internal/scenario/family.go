package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"gopkg.in/yaml.v3"
)

// A family is one scenario template that fixture corpora expand into many
// cases: every invalid fixture (RULE-ID[+RULE-ID...]__what.json) of the
// corpora it names becomes one scenario with the stable id
// FAMILY.RULE-ID[+RULE-ID...].what, so a new rule with an invalid fixture is
// a new live case without Go code. The file says, as data, how a fixture is
// placed where acceptance shows (its identities rewritten, its kind's
// position, or the family's opening with the fixture's broken members) and
// which steps every case plays; the generator (case.go) only does what the
// file says and checks that each live message still breaks its rules.
type Family struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Level       string   `json:"level"`
	Claim       string   `json:"claim,omitempty"` // default for corpora without one
	Peer        string   `json:"peer"`            // the test peer that plays every case
	Timeout     Duration `json:"timeout,omitempty"`
	// Requirements every case cites besides the fixture's own rules.
	Requirements []string `json:"requirements,omitempty"`
	// AnsweredRequirements are cited only by the cases whose message
	// carries a usable work context: those that play the when: answered
	// steps checking them.
	AnsweredRequirements []string `json:"answered_requirements,omitempty"`
	// ClassChecks is what the step that wants no refusal in another
	// failure class checks ({{case.class_checks}}), which every case cites:
	// by rule id, for a rule whose own MUST names the reason_code of its
	// refusal; under "" for every other case.
	ClassChecks map[string][]string `json:"class_checks,omitempty"`
	Corpora     []Corpus            `json:"corpora"`
	// Rules, when given, narrows the corpora to the fixtures whose first
	// rule id matches one of these path.Match patterns ("ENV-*"): one
	// template is split into files placed in the folders of the groups
	// its cases belong to.
	Rules []string `json:"rules,omitempty"`
	// Rewrite gives the top-level members of a fixture that are identities
	// (ids, addresses, times) the template that isolates a case and
	// addresses it to the IUT; a member the fixture breaks keeps its value.
	Rewrite map[string]any `json:"rewrite"`
	// Opening is the valid envelope a corpus of shape "opening" starts
	// from before the fixture's broken members are applied.
	Opening map[string]any `json:"opening,omitempty"`
	// Positions place a message by its kind ("other": unknown kinds and
	// bytes that are not a JSON object).
	Positions map[string]Position `json:"positions"`
	// Accepted is what acceptance looks like where a position does not
	// say: the patterns of {{case.accepted}}.
	Accepted []map[string]any `json:"accepted"`
	// Cases adjusts single fixtures, by file name without .json.
	Overrides map[string]CaseOverride `json:"cases,omitempty"`
	// SurviveSteps are the steps of a case at a Survive position: the
	// broken message, then proof that the peer still serves.
	SurviveSteps []map[string]any `json:"survive_steps,omitempty"`
	// ValidSteps are the steps of a case under another reading of an
	// erratum (agh.ErrataNames) that makes its live message valid: the
	// message, then no refusal in a failure class and the work served. The
	// case plays them as its form for that reading (Scenario.Readings).
	ValidSteps []map[string]any `json:"valid_steps,omitempty"`
	// Steps every case plays. A step {broken: {}} is the broken message;
	// when: answered / silent keeps a step only when the message does /
	// does not carry a usable work context (agh.Answerable); strings may
	// use {{case.NAME}} (see caseVars).
	Steps []map[string]any `json:"steps"`
}

// Corpus is one directory of the embedded fixture corpus (package fixtures).
type Corpus struct {
	Dir   string `json:"dir"`
	Claim string `json:"claim,omitempty"`
	// Shape is "fixture" (the fixture itself, identities rewritten) or
	// "opening" (the family's opening, with the members the fixture breaks
	// applied after signing).
	Shape    string   `json:"shape"`
	Sign     bool     `json:"sign,omitempty"` // the test peer holds a key and signs
	Requires Requires `json:"requires,omitempty"`
	// Classes adds requirements by the reason_code a case's refusal carries.
	Classes map[string][]string `json:"classes,omitempty"`
}

// Position is where a message of one kind is played.
type Position struct {
	Send     string           `json:"send"`          // iut or broadcast
	Set      map[string]any   `json:"set,omitempty"` // members every such case carries, unless broken
	Accepted []map[string]any `json:"accepted,omitempty"`
	// Variants play the same fixture again elsewhere, as the case
	// FAMILY.RULES.what.NAME (e.g. a whois on broadcast too).
	Variants map[string]Position `json:"variants,omitempty"`
	// Survive, when set, says why nothing a correct peer does with a
	// message of this kind shows whether it took it (a greet it stores, a
	// receipt for work it does not know): its cases are played for
	// survival (the family's survive_steps, PEER-SURVIVES-INPUT alone), so
	// that no pass claims the rule was judged.
	Survive string `json:"survive,omitempty"`
}

// CaseOverride adjusts how one fixture is played.
type CaseOverride struct {
	// Broken lists the JSON pointers of the members the fixture breaks,
	// where its rule's findings do not point at them (a whole-document rule).
	Broken []string `json:"broken,omitempty"`
	// Tamper replaces the members an "opening" case applies after signing.
	Tamper map[string]any `json:"tamper,omitempty"`
	// Skip, when set, is why the fixture is not played.
	Skip string `json:"skip,omitempty"`
}

// survives is the requirement a survival case checks.
const survives = "PEER-SURVIVES-INPUT"

type familyFile struct {
	Suite  string  `json:"suite,omitempty"`
	Family *Family `json:"family,omitempty"`
	// Template is a family that no folder plays by itself: family files
	// name it (family: {template: FILE, rules: [...]}) and play its share.
	Template *Family `json:"template,omitempty"`
}

// isFamily reports whether a decoded file is a family rather than a list
// of scenarios.
func isFamily(doc any) bool {
	m, ok := doc.(map[string]any)
	return ok && m["family"] != nil
}

// isTemplate reports whether a decoded file is a family template: the
// loader checks it but plays nothing from it.
func isTemplate(doc any) bool {
	m, ok := doc.(map[string]any)
	return ok && m["template"] != nil && m["family"] == nil && m["scenarios"] == nil
}

// checkTemplate checks a family template as a family (its cases are
// expanded, and checked, where a family file names it).
func checkTemplate(name string, js []byte, root *yaml.Node) []Problem {
	var ff familyFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	n, _ := nodeAt(root, []string{"template"})
	if err := dec.Decode(&ff); err != nil {
		return []Problem{Problem{File: name, Message: "template: " + err.Error()}.at(n)}
	}
	var probs []Problem
	for _, msg := range ff.Template.check() {
		probs = append(probs, Problem{File: name, Message: "template: " + msg}.at(n))
	}
	return append(probs, overrideProblems(name, ff.Template, root, "template")...)
}

// withTemplate returns the family file js with the template it names, if
// any, in place: the template's family with the file's rules.
func withTemplate(js []byte, read readTemplate) ([]byte, error) {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("family: %w", err)
	}
	fam, _ := doc["family"].(map[string]any)
	ref, ok := fam["template"]
	if !ok {
		return js, nil
	}
	name, _ := ref.(string)
	for k := range fam {
		if k != "template" && k != "rules" {
			return nil, fmt.Errorf("family: %s: with a template only rules may be given; the template says the rest", k)
		}
	}
	if !fs.ValidPath(name) || path.Ext(name) == "" {
		return nil, fmt.Errorf("family: template %v: want a file's path from the root of the suite tree", ref)
	}
	if read == nil {
		return nil, fmt.Errorf("family: template %s: no suite tree to read it from", name)
	}
	data, err := read(name)
	if err != nil {
		return nil, fmt.Errorf("family: template %s: %w", name, err)
	}
	body, err := templateBody(name, data)
	if err != nil {
		return nil, err
	}
	merged := make(map[string]any, len(body)+1)
	for k, v := range body {
		merged[k] = v
	}
	if rules, ok := fam["rules"]; ok {
		merged["rules"] = rules
	}
	doc["family"] = merged
	return json.Marshal(doc)
}

// templateBody is a template file's family, parsed once per content: every
// group's family file names the same template. Nothing writes to it.
func templateBody(name string, data []byte) (map[string]any, error) {
	sum := sha256.Sum256(data)
	if v, ok := templates.Load(sum); ok {
		return v.(map[string]any), nil
	}
	var tdoc any
	if err := yaml.Unmarshal(data, &tdoc); err != nil {
		return nil, fmt.Errorf("family: template %s: %w", name, err)
	}
	tmpl, _ := jsonx.FromYAML(tdoc).(map[string]any)
	body, ok := tmpl["template"].(map[string]any)
	if !ok || !isTemplate(tmpl) {
		return nil, fmt.Errorf("family: template %s: not a family template (no top-level template key)", name)
	}
	v, _ := templates.LoadOrStore(sum, body)
	return v.(map[string]any), nil
}

var templates sync.Map // sha256 of a template file → its family

// parseFamily expands a family file into its cases and checks them like
// any scenario file.
// Problems are placed at the file's family key. The expansion is the same
// for the same file (the embedded corpus does not change), so a process
// that loads the suites again (every harness run, lint, list) expands each
// family once and hands out copies.
func parseFamily(name string, js []byte, suite string, root *yaml.Node, read readTemplate) ([]*Scenario, []Problem) {
	n, _ := nodeAt(root, []string{"family"})
	written := js
	js, err := withTemplate(js, read)
	if err != nil {
		return nil, []Problem{Problem{File: name, Message: err.Error()}.at(n)}
	}
	key := name + "\x00" + suite + "\x00" + string(js)
	v, ok := expanded.Load(key)
	if !ok {
		scs, probs := expandFamily(name, js, suite, fixtures.FS())
		for i := range probs {
			if probs[i].Line == 0 {
				probs[i] = probs[i].at(n)
			}
		}
		v, _ = expanded.LoadOrStore(key, expansion{scs, probs})
	}
	e := v.(expansion)
	// The overrides of the file's own cases (a template's are checked
	// where they are written: checkTemplate).
	var own familyFile
	_ = json.Unmarshal(written, &own)
	return copies(e.scs), append(append([]Problem(nil), e.probs...), overrideProblems(name, own.Family, root, "family")...)
}

func expandFamily(name string, js []byte, suite string, corpus fs.FS) ([]*Scenario, []Problem) {
	var ff familyFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ff); err != nil {
		return nil, []Problem{{File: name, Message: "family: " + err.Error()}}
	}
	if ff.Suite != "" {
		suite = ff.Suite
	}
	f := ff.Family
	var probs []Problem
	for _, msg := range f.check() {
		probs = append(probs, Problem{File: name, Message: "family: " + msg})
	}
	if len(probs) > 0 {
		return nil, probs
	}
	cases, cprobs := f.casesFrom(corpus)
	for _, p := range cprobs {
		probs = append(probs, Problem{File: name, Scenario: p.Scenario, Message: p.Message})
	}
	var docs []any
	for _, c := range cases {
		if c.Skip != "" {
			continue
		}
		sc, err := f.scenario(c)
		if err != nil {
			probs = append(probs, Problem{File: name, Scenario: c.ID, Message: err.Error()})
			continue
		}
		docs = append(docs, sc)
	}
	if len(docs) == 0 {
		return nil, append(probs, Problem{File: name, Message: "family: no fixture became a case"})
	}
	doc := map[string]any{"suite": suite, "scenarios": docs}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, append(probs, Problem{File: name, Message: "family: " + err.Error()})
	}
	scs, sprobs := parseJSON(name, out, suite, nil, doc)
	return scs, append(probs, sprobs...)
}

var familyID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,31}$`)

// check finds what is wrong with the family itself, before any fixture.
func (f *Family) check() []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if f == nil {
		return []string{"empty"}
	}
	if !familyID.MatchString(f.ID) {
		bad("id %q: want a short lowercase name such as receiver", f.ID)
	}
	if f.Title == "" {
		bad("title is required")
	}
	if !slices.Contains(Levels, f.Level) {
		bad("level %q: want MUST, SHOULD or MAY", f.Level)
	}
	if !PeerName(f.Peer) {
		bad("peer %q is not a usable test peer name", f.Peer)
	}
	if len(f.Corpora) == 0 {
		bad("no corpora")
	}
	for _, p := range f.Rules {
		if _, err := path.Match(p, ""); err != nil {
			bad("rules: pattern %q: %v", p, err)
		}
	}
	for _, c := range f.Corpora {
		claim := c.Claim
		if claim == "" {
			claim = f.Claim
		}
		if _, ok := Claims[claim]; !ok {
			bad("corpus %s: claim %q is not a claim", c.Dir, claim)
		}
		switch c.Shape {
		case "fixture":
		case "opening":
			if f.Opening == nil {
				bad("corpus %s has shape opening, but the family has no opening", c.Dir)
			}
		default:
			bad("corpus %s: shape %q: want fixture or opening", c.Dir, c.Shape)
		}
	}
	for kind, p := range f.Positions {
		if p.Survive != "" && len(f.SurviveSteps) == 0 {
			bad("position %s plays for survival, but the family has no survive_steps", kind)
		}
	}
	if _, ok := f.Positions["other"]; !ok {
		bad(`positions: "other" is required (unknown kinds, bytes that are not an object)`)
	}
	for kind, p := range f.Positions {
		if p.Send != "iut" && p.Send != "broadcast" {
			bad("position %s: send %q: want iut or broadcast", kind, p.Send)
		}
		for name, v := range p.Variants {
			if !familyID.MatchString(name) || len(v.Variants) > 0 || (v.Send != "iut" && v.Send != "broadcast") {
				bad("position %s: variant %q: want a short lowercase name, send iut or broadcast, no variants of its own", kind, name)
			}
		}
	}
	broken := 0
	for i, st := range f.Steps {
		if _, ok := st["broken"]; ok {
			broken++
		}
		if w, ok := st["when"]; ok && w != "answered" && w != "silent" {
			bad("step %d: when %v: want answered or silent", i+1, w)
		}
	}
	if broken != 1 {
		bad("steps: want exactly one {broken: {}} step, found %d", broken)
	}
	return out
}

// scenario turns one case into a scenario document (checked afterwards by
// the scenario schema and Scenario.check, like a hand-written one).
func (f *Family) scenario(c Case) (map[string]any, error) {
	vars := c.vars(f)
	var steps []any
	plan, requirements, title, desc := f.Steps, c.Requirements, f.Title, f.Description
	if c.Position.Survive != "" {
		plan, requirements = f.SurviveSteps, []string{survives}
		title = "{{case.rules}} ({{case.what}}): survived, not observable as a refusal"
		desc = "Fixture {{case.fixture}}, played at the IUT for survival: " + c.Position.Survive + "."
	}
	steps, err := c.steps(plan, vars)
	if err != nil {
		return nil, err
	}
	shown, err := substitute(title, vars)
	if err != nil {
		return nil, fmt.Errorf("title: %w", err)
	}
	sc := map[string]any{
		"id": c.ID, "title": shown, "level": f.Level, "claim": c.Claim,
		"requirements": requirements,
		"peers":        []any{map[string]any{"name": f.Peer, "key": c.Corpus.Sign}},
		"steps":        steps,
	}
	if desc != "" {
		if sc["description"], err = substitute(desc, vars); err != nil {
			return nil, fmt.Errorf("description: %w", err)
		}
	}
	if c.Corpus.Requires != (Requires{}) {
		sc["requires"] = c.Corpus.Requires
	}
	if f.Timeout > 0 {
		sc["timeout"] = f.Timeout
	}
	if len(c.ValidUnder) > 0 && len(f.ValidSteps) > 0 && c.Position.Survive == "" {
		valid, err := c.steps(f.ValidSteps, vars)
		if err != nil {
			return nil, fmt.Errorf("valid_steps: %w", err)
		}
		forms := map[string]any{}
		for _, name := range c.ValidUnder {
			t, err := substitute("{{case.rules}} ({{case.what}}): valid under the reading "+name+", worked on", vars)
			if err != nil {
				return nil, fmt.Errorf("title: %w", err)
			}
			d, err := substitute("Fixture {{case.fixture}}, played at the IUT: docs/errata.md's reading "+name+" makes it valid, so it is worked on and refused in no failure class.", vars)
			if err != nil {
				return nil, fmt.Errorf("description: %w", err)
			}
			// The rule whose reading is tested, at MUST: a receiver that
			// refuses the message as breaking it reads the rule otherwise.
			forms[name] = map[string]any{"title": t, "description": d, "requirements": owed(c.Rules), "level": "MUST", "steps": valid}
		}
		sc["readings"] = forms
	}
	return sc, nil
}

// steps are a plan's steps for this case: the when: answered / silent
// ones it keeps, the broken message in place of {broken: {}}, every
// template of the case's own substituted.
func (c Case) steps(plan []map[string]any, vars map[string]any) ([]any, error) {
	var steps []any
	for _, st := range plan {
		switch st["when"] {
		case "answered":
			if !c.Answered {
				continue
			}
		case "silent":
			if c.Answered {
				continue
			}
		}
		out := map[string]any{}
		for k, v := range st {
			switch k {
			case "when":
			case "broken":
				out["send"] = c.Send
			default:
				rv, err := substitute(v, vars)
				if err != nil {
					return nil, fmt.Errorf("step: %w", err)
				}
				out[k] = rv
			}
		}
		steps = append(steps, out)
	}
	return steps, nil
}

// vars are the {{case.NAME}} values of one case:
//
//	rules     the fixture's rule ids, joined with +
//	what      what the fixture shows (its name after __)
//	fixture   its corpus path
//	reason    the reason_code a refusal must carry
//	status    the receipt status that goes with it
//	accepted  the patterns that would show acceptance (a list)
//	from      the broken message's from, as a template: a refusal
//	          receipt is addressed to it
//	class_checks what the step judging the refusal's class checks (a
//	          list: the family's class_checks for the case's rules)
//	sign      whether the corpus signs (a signed test peer's follow-up
//	          must be signed too, or it is proof stripping)
//	work      the work id a follow-up uses: the broken message's own
//	          ({{work.w}}) when it was refused in silence, so that any effect
//	          it had on that work shows; a fresh one ({{work.follow}}) when a
//	          refusal receipt already reported on {{work.w}}
func (c Case) vars(f *Family) map[string]any {
	accepted := f.Accepted
	if len(c.Position.Accepted) > 0 {
		accepted = c.Position.Accepted
	}
	pats := make([]any, len(accepted))
	for i, p := range accepted {
		pats[i] = p
	}
	work := "{{work.w}}"
	if c.Answered {
		work = "{{work.follow}}"
	}
	return map[string]any{
		"rules": strings.Join(c.Rules, "+"), "what": c.What, "fixture": c.Fixture,
		"reason": c.Reason, "status": c.Status, "accepted": pats, "work": work, "sign": c.Corpus.Sign,
		"from": c.from(f), "class_checks": c.ClassChecks,
	}
}

// from is the template of the live message's from: what tampering sets
// last, else the envelope's, else the sending test peer's id.
func (c Case) from(f *Family) any {
	if v, ok := c.Send.Tamper["from"]; ok {
		return v
	}
	if v, ok := c.Send.Envelope["from"]; ok {
		return v
	}
	return "{{peer." + f.Peer + "}}"
}

var caseRef = regexp.MustCompile(`\{\{\s*case\.([a-z_]+)\s*\}\}`)

// substitute returns a copy of v with every {{case.NAME}} replaced; a
// string that is exactly one reference takes the value's own type, so
// "{{case.accepted}}" becomes a list of patterns.
func substitute(v any, vars map[string]any) (any, error) {
	return mapStrings(v, func(s string) (any, error) {
		var err error
		lookup := func(name string) any {
			val, ok := vars[name]
			if !ok && err == nil {
				err = fmt.Errorf("unknown {{case.%s}} (have %s)", name, varNames(vars))
			}
			return val
		}
		if m := caseRef.FindStringSubmatch(s); m != nil && m[0] == strings.TrimSpace(s) {
			val := lookup(m[1])
			return val, err
		}
		out := caseRef.ReplaceAllStringFunc(s, func(ref string) string {
			return text(lookup(caseRef.FindStringSubmatch(ref)[1]))
		})
		return out, err
	}, nil)
}

func varNames(vars map[string]any) string {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
