package scenario

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
	"gopkg.in/yaml.v3"
)

// A generator (aghcheck fuzz) makes messages that no fixture file holds:
// mutants of valid envelopes, written as send steps. This file places them
// in a family as the family places its fixtures, so that a generated case
// is judged by the same engine and played with the same steps as the
// family's own cases (and a mutant kept as a fixture becomes the same case
// of aghcheck run).

// Verdict is what a receiver must make of one live message: the engine's
// findings on the bytes the harness would publish (the trust algorithm
// included), the refusal they call for, and whether it is due as a receipt.
type Verdict struct {
	Raw    []byte
	Result agh.Result
	Breaks []string // the error-severity rules it breaks, sorted
	Reason string   // agh.DutyReason for a trust receiver ("" when no receiver must refuse it)
	// Strict is the reason a receiver that refuses everything it may
	// (agh.RefusalReason) gives; it differs from Reason when the message
	// also breaks a rule a receiver may tolerate.
	Strict   string
	Status   string // the receipt status of Reason
	Answered bool   // agh.Answerable: the refusal is due as a receipt
	Kind     string // the envelope's kind ("" for bytes that are not an object)
}

// standIn is a run that never happens, in which generated messages are
// composed to be judged: its own workspace, peer ids and clock. Every rule
// a family case or a mutant is built to break holds whatever the
// identities are (they come from templates, or stay literal when broken).
func standIn(peer string, sign bool, now time.Time) (*Context, *TestPeer) {
	tp := &TestPeer{Name: peer, ID: peer + ".judge"}
	if sign {
		tp.Key = judgeKey()
		tp.ID = trust.Handle(peer, tp.Key.Public().(ed25519.PublicKey))
	}
	return &Context{Workspace: "aghcheck-judge", Channel: "conformance", IUT: "iut.judge", Tag: "judge",
		Peers: map[string]*TestPeer{peer: tp}, Captures: map[string]any{}, Now: func() time.Time { return now }}, tp
}

// Render is the bytes a send step of test peer peer would publish, in a
// stand-in run at now (templates expanded, the envelope composed, signed
// when sign and tampered with as the step says).
func Render(s *Send, peer string, sign bool, now time.Time) ([]byte, error) {
	ctx, tp := standIn(peer, sign, now)
	switch {
	case s.RawBase64 != "":
		return base64.StdEncoding.DecodeString(s.RawBase64)
	case s.Raw != nil:
		txt, err := ctx.RenderString(*s.Raw)
		return []byte(txt), err
	}
	env, err := ctx.Compose(s, tp, "msg_judge")
	if err != nil {
		return nil, err
	}
	return json.Marshal(env)
}

// Judge renders s (see Render) and judges the bytes as a receiver must, at
// now: bytes played as they are (raw_base64) are judged without a clock,
// like the fixtures they usually are.
func Judge(s *Send, peer string, sign bool, now time.Time) (Verdict, error) {
	raw, err := Render(s, peer, sign, now)
	if err != nil {
		return Verdict{}, err
	}
	at := now.Unix()
	if s.RawBase64 != "" {
		at = 0
	}
	res := checkBytes(raw, at)
	v := Verdict{Raw: raw, Result: res, Breaks: sortedKeys(ruleIDs(res.Findings)),
		Reason: agh.DutyReason(res.Findings, true), Strict: agh.RefusalReason(res.Findings)}
	if res.Envelope != nil {
		v.Kind = agh.Str(res.Envelope, "kind")
	}
	if v.Reason != "" {
		v.Status = agh.RefusalStatus(v.Reason)
		v.Answered = res.Envelope != nil && agh.Answerable(res.Envelope, res.Findings)
	}
	return v, nil
}

// LoadFamily reads the family file or family template at path in fsys
// (the embedded suites).
func LoadFamily(fsys fs.FS, path string) (*Family, error) {
	raw, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	js, err := json.Marshal(jsonx.FromYAML(doc))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var ff familyFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ff); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ff.Family == nil {
		ff.Family = ff.Template
	}
	if ff.Family == nil {
		return nil, fmt.Errorf("%s: not a family file", path)
	}
	if probs := ff.Family.check(); len(probs) > 0 {
		return nil, fmt.Errorf("%s: family: %s", path, strings.Join(probs, "; "))
	}
	return ff.Family, nil
}

// Seed places a valid envelope (a fixture) where the family plays a
// message of its kind, its identities made templates: the send step a
// generator mutates.
func (f *Family) Seed(fix map[string]any) (Send, error) {
	return f.placed(fix, nil, f.placements(f.positionKey(fix))[0].pos)
}

// Corpus is the family's corpus whose messages are signed as sign says
// (the first of them), and whether there is one.
func (f *Family) CorpusFor(sign bool) (Corpus, bool) {
	for _, c := range f.Corpora {
		if c.Sign == sign {
			return c, true
		}
	}
	return Corpus{}, false
}

// Mutant is the family's case for a generated message: send, judged as v
// (see Judge), played as the family plays a fixture of corpus c with that
// verdict. id is the case's scenario id, what says what was done to it.
// A message no receiver must refuse (v.Reason empty) is no case of the
// family: Skip says so.
func (f *Family) Mutant(id, what string, c Corpus, send Send, v Verdict) Case {
	out := Case{ID: id, Fixture: "generated: " + what, Rules: v.Breaks, What: what, Corpus: c, Claim: c.Claim,
		Send: send, Reason: v.Reason, Status: v.Status, Answered: v.Answered, Kind: v.Kind, Breaks: v.Breaks}
	if out.Claim == "" {
		out.Claim = f.Claim
	}
	kind := v.Kind
	if _, ok := f.Positions[kind]; !ok || v.Result.Envelope == nil {
		kind = "other"
	}
	out.Position = f.Positions[kind]
	// The fuzzer's oracle decides what a receiver owes each mutant; a
	// survival position is the scripted family's way out.
	out.Position.Survive = ""
	if v.Reason == "" {
		out.Skip = "no receiver must refuse it"
		return out
	}
	out.Requirements = appendNew(nil, owed(v.Breaks)...)
	out.Requirements = appendNew(out.Requirements, f.Requirements...)
	out.Requirements = appendNew(out.Requirements, c.Classes[v.Reason]...)
	out.ClassChecks = f.classChecks(v.Breaks)
	out.Requirements = appendNew(out.Requirements, out.ClassChecks...)
	if v.Answered {
		out.Requirements = appendNew(out.Requirements, f.AnsweredRequirements...)
	}
	return out
}

// Scenario is case c as the scenario the family's expansion makes of it,
// checked as any scenario file is (see BuildSend).
func (f *Family) Scenario(c Case) (*Scenario, error) {
	if c.Skip != "" {
		return nil, fmt.Errorf("%s: %s", c.ID, c.Skip)
	}
	doc, err := f.scenario(c)
	if err != nil {
		return nil, err
	}
	return BuildSend(doc, f.brokenAt(c), c.Send)
}

// Reuse is what Scenario returns for case c, made from sc, the family's
// scenario for another case whose steps are those of c (the same verdict,
// placement and identities: the caller knows): sc renamed, with c's
// requirements and c's message in its broken step. It saves a generator
// the family's expansion and a check per case.
func (f *Family) Reuse(sc *Scenario, c Case) (*Scenario, error) {
	vars := c.vars(f)
	title, err := substitute(f.Title, vars)
	if err != nil {
		return nil, fmt.Errorf("title: %w", err)
	}
	out := *sc
	out.ID, out.Title, out.Requirements = c.ID, text(title), slices.Clone(c.Requirements)
	if f.Description != "" {
		d, err := substitute(f.Description, vars)
		if err != nil {
			return nil, fmt.Errorf("description: %w", err)
		}
		out.Description = text(d)
	}
	out.Steps = slices.Clone(sc.Steps)
	send := c.Send
	out.Steps[f.brokenAt(c)].Send = &send
	return &out, nil
}

// brokenAt is the index of the broken message's step in c's scenario.
func (f *Family) brokenAt(c Case) int {
	at := 0
	for _, st := range f.Steps {
		if w := st["when"]; (w == "answered" && !c.Answered) || (w == "silent" && c.Answered) {
			continue
		}
		if _, ok := st["broken"]; ok {
			break
		}
		at++
	}
	return at
}

// Build checks one scenario, given as the document a file would hold for
// it (as JSON would decode it), and returns it.
func Build(doc map[string]any) (*Scenario, error) {
	wrap := map[string]any{"scenarios": []any{doc}}
	js, err := json.Marshal(wrap)
	if err != nil {
		return nil, err
	}
	scs, probs := parseJSON("generated", js, "generated", nil, wrap)
	if len(probs) > 0 {
		msgs := make([]string, len(probs))
		for i, p := range probs {
			msgs[i] = p.Message
		}
		sort.Strings(msgs)
		return nil, fmt.Errorf("scenario %v: %s", doc["id"], strings.Join(msgs, "; "))
	}
	return scs[0], nil
}

// built holds, by what they share, the scenarios BuildSend checked.
var built struct {
	sync.Mutex
	m map[string]*Scenario
}

// builtMax bounds what built holds: past it, it starts again.
const builtMax = 4096

// BuildSend is Build for a document whose step at index at is the send s.
// A generator makes many scenarios that differ only in that send, their
// id, title, description and requirements: the first of each kind is
// checked in full (the schema, every template, the levels), the others
// are copies of it with their own send and names. A send that is not
// checked so is the generator's to make well-formed (one of envelope, raw
// or raw_base64; templates that render).
func BuildSend(doc map[string]any, at int, s Send) (*Scenario, error) {
	steps, _ := doc["steps"].([]any)
	if at < 0 || at >= len(steps) {
		return nil, fmt.Errorf("scenario %v: no step %d", doc["id"], at)
	}
	shape := make(map[string]any, len(doc))
	for k, v := range doc {
		switch k {
		case "id", "title", "description", "requirements":
		default:
			shape[k] = v
		}
	}
	shapeSteps := slices.Clone(steps)
	shapeSteps[at] = map[string]any{"send": map[string]any{"raw": ""}}
	shape["steps"] = shapeSteps
	kb, err := json.Marshal(shape)
	if err != nil {
		return nil, err
	}
	key := string(kb)
	built.Lock()
	tmpl := built.m[key]
	built.Unlock()
	if tmpl == nil {
		full := make(map[string]any, len(doc))
		for k, v := range doc {
			full[k] = v
		}
		fullSteps := slices.Clone(steps)
		fullSteps[at] = map[string]any{"send": Plain(&s)}
		full["steps"] = fullSteps
		sc, err := Build(full)
		if err != nil {
			return nil, err
		}
		built.Lock()
		if built.m == nil || len(built.m) >= builtMax {
			built.m = map[string]*Scenario{}
		}
		built.m[key] = sc
		built.Unlock()
		// The cache keeps its own: callers set a case's id and texts on
		// what they get, while others copy the template.
		out := *sc
		return &out, nil
	}
	sc := *tmpl
	sc.ID, _ = doc["id"].(string)
	sc.Title, _ = doc["title"].(string)
	sc.Description, _ = doc["description"].(string)
	sc.Requirements = nil
	switch rs := doc["requirements"].(type) {
	case []string:
		sc.Requirements = slices.Clone(rs)
	case []any:
		for _, r := range rs {
			sc.Requirements = append(sc.Requirements, fmt.Sprint(r))
		}
	}
	sc.Steps = slices.Clone(tmpl.Steps)
	send := s
	sc.Steps[at].Send = &send
	return &sc, nil
}

// Document is sc as the document a scenario file holds for it: what Build
// and the loader read back (YAML-ready: plain maps, lists and scalars).
func Document(sc *Scenario) map[string]any {
	doc, _ := Plain(sc).(map[string]any)
	if req, ok := doc["requires"].(map[string]any); ok && len(req) == 0 {
		delete(doc, "requires")
	}
	return doc
}

// Plain is v (a scenario, a step, a send...) as the plain maps, lists and
// scalars its JSON form decodes to, numbers as int64 or float64: what a
// YAML encoder writes as a scenario file holds it.
func Plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	out, _, _ := jsonx.Decode(b)
	return numbersPlain(out)
}

// numbersPlain turns json.Number values into int64 or float64, which a
// YAML encoder writes as numbers.
func numbersPlain(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			t[k] = numbersPlain(val)
		}
	case []any:
		for i, val := range t {
			t[i] = numbersPlain(val)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if fl, err := t.Float64(); err == nil {
			return fl
		}
		return t.String()
	}
	return v
}

// RulesOf is the distinct rules of error findings, sorted.
func RulesOf(fs []rules.Finding) []string { return sortedKeys(ruleIDs(fs)) }

// owed are the rules of ids a receiver must refuse a message for
// (agh.Owed; a trust corpus is played only at a peer that takes the
// profile): those it may tolerate are no requirement of a receiver's case.
func owed(ids []string) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool {
		r, ok := catalogue.Lookup(id)
		return ok && !agh.Owed(r, true)
	})
}
