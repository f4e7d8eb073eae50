package scenario

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// Case is one fixture of a family, placed where acceptance shows.
type Case struct {
	ID      string   // FAMILY.RULE-ID[+RULE-ID...].what
	Fixture string   // corpus path, e.g. agh/invalid/ENV-TS__string.json
	Rules   []string // the rules its name promises
	What    string
	Corpus  Corpus
	Claim   string
	// Requirements: the fixture's rules, the family's, the class's.
	Requirements []string
	// ClassChecks is what judges the class of its refusal (Family.ClassChecks).
	ClassChecks []string
	Send        Send // how the broken message is played
	// Reason is the reason_code a refusal of the live message carries
	// (agh.RefusalReason, the validation order), Status its receipt status.
	Reason, Status string
	// Answered: the live message carries a usable work context
	// (agh.Answerable), so its refusal is due as a receipt.
	Answered bool
	Kind     string // the live message's kind ("" for bytes that are not an object)
	// Position is where it is played (its kind's, or a variant of it).
	Position Position
	// Breaks is every rule the live message breaks (the fixture's rules
	// and any the placement could not avoid), sorted.
	Breaks []string
	// Skip, when set, is why the fixture is not played.
	Skip string
	// ValidUnder are the other readings of errata (agh.ErrataNames) under
	// which the live message is one no receiver must refuse: the case is
	// played as valid work under each (Family.ValidSteps).
	ValidUnder []string
}

// Cases derives one case per fixture of the family's corpora (in the
// embedded corpus, package fixtures), in corpus then file order; problems
// name fixtures the family cannot play as it says.
func (f *Family) Cases() ([]Case, []Problem) { return f.casesFrom(fixtures.FS()) }

func (f *Family) casesFrom(fsys fs.FS) ([]Case, []Problem) {
	var (
		out   []Case
		probs []Problem
		used  = map[string]bool{}
	)
	for _, corpus := range f.Corpora {
		files, err := fs.Glob(fsys, path.Join(corpus.Dir, "*.json"))
		if err == nil && len(files) == 0 {
			err = fmt.Errorf("no fixtures in the embedded corpus")
		}
		if err != nil {
			probs = append(probs, Problem{Message: fmt.Sprintf("corpus %s: %v", corpus.Dir, err)})
			continue
		}
		for _, file := range files {
			base := strings.TrimSuffix(path.Base(file), ".json")
			used[base] = true
			if !f.plays(file) {
				continue
			}
			cs, err := f.derive(fsys, corpus, file)
			if err != nil {
				probs = append(probs, Problem{Scenario: cs[len(cs)-1].ID, Message: fmt.Sprintf("%s: %v", file, err)})
				continue
			}
			out = append(out, cs...)
		}
	}
	names := make([]string, 0, len(f.Overrides))
	for name := range f.Overrides {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !used[name] {
			probs = append(probs, Problem{Message: fmt.Sprintf("cases: %s names no fixture of the corpora", name)})
		}
	}
	return out, probs
}

// plays reports whether the family's rules take the fixture file: its
// first rule id matches one of them (every fixture, without rules).
func (f *Family) plays(file string) bool {
	if len(f.Rules) == 0 {
		return true
	}
	ids, _, ok := fixtures.Name(file)
	if !ok {
		return false
	}
	for _, p := range f.Rules {
		if m, _ := path.Match(p, ids[0]); m {
			return true
		}
	}
	return false
}

// derive places one fixture (once per placement: its kind's position and
// that position's variants) and checks the live message each becomes.
func (f *Family) derive(fsys fs.FS, corpus Corpus, file string) ([]Case, error) {
	ids, what, ok := fixtures.Name(file)
	base := Case{Fixture: file, Rules: ids, What: what, Corpus: corpus, Claim: corpus.Claim}
	if base.Claim == "" {
		base.Claim = f.Claim
	}
	if !ok {
		base.Skip = "not named RULE-ID__what.json: it promises no rule"
		return []Case{base}, nil
	}
	base.ID = f.ID + "." + strings.Join(ids, "+") + "." + what
	over := f.Overrides[strings.TrimSuffix(path.Base(file), ".json")]
	if over.Skip != "" {
		base.Skip = over.Skip
		return []Case{base}, nil
	}
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return []Case{base}, err
	}
	v, _, _ := jsonx.Decode(raw)
	fix, isObject := v.(map[string]any)
	if bytesRule(ids) {
		// Re-encoding would repair it (a repeated member name, say): the
		// bytes are played as they are.
		isObject = false
	}
	var broken []string
	kind := "other"
	switch {
	case isObject && corpus.Shape == "opening":
		kind = agh.Str(f.Opening, "kind")
	case isObject:
		kind = f.positionKey(fix)
	}
	if isObject {
		if broken = over.Broken; len(broken) == 0 {
			if broken, err = brokenPointers(fix, ids); err != nil {
				return []Case{base}, err
			}
		}
	}
	var out []Case
	for _, pl := range f.placements(kind) {
		c := base
		if pl.name != "" {
			c.ID += "." + pl.name
		}
		c.Position = pl.pos
		switch {
		case !isObject:
			c.Send = Send{To: pl.pos.Send, RawBase64: base64.StdEncoding.EncodeToString(raw)}
			if t, ok := f.templatedRaw(raw); ok {
				// The bytes carry the case's own identities and a fresh ts,
				// so that only the rule under test can cause a refusal.
				c.Send = Send{To: pl.pos.Send, Raw: &t}
			}
		case corpus.Shape == "opening":
			c.Send, err = f.opening(corpus, fix, broken, over, pl.pos)
		default:
			c.Send, err = f.placed(fix, broken, pl.pos)
		}
		if err == nil {
			err = f.judge(&c, raw)
		}
		if err != nil {
			return append(out, c), err
		}
		out = append(out, c)
	}
	return out, nil
}

// bytesRule reports whether a rule among ids is about the bytes
// themselves (profile input) rather than the envelope they decode to.
func bytesRule(ids []string) bool {
	return slices.ContainsFunc(ids, func(id string) bool {
		r, ok := catalogue.Lookup(id)
		return ok && r.Profile == rules.InputSyntax.Profile
	})
}

// positionKey is the position a fixture of this kind is placed at: its
// kind, or kind/type where the family places the types of a kind apart
// (whois/response: an answer nobody asked for).
func (f *Family) positionKey(fix map[string]any) string {
	kind := agh.Str(fix, "kind")
	if body, ok := fix["body"].(map[string]any); ok {
		if t, ok := body["type"].(string); ok {
			if _, placed := f.Positions[kind+"/"+t]; placed {
				return kind + "/" + t
			}
		}
	}
	return kind
}

type placement struct {
	name string // "" for the position itself, else the variant's name
	pos  Position
}

// placements are where a message of this kind is played: its position,
// then each variant (by name) with the position's acceptance unless it
// says its own.
func (f *Family) placements(kind string) []placement {
	pos, ok := f.Positions[kind]
	if !ok {
		pos = f.Positions["other"]
	}
	out := []placement{{"", pos}}
	names := make([]string, 0, len(pos.Variants))
	for name := range pos.Variants {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := pos.Variants[name]
		if len(v.Accepted) == 0 {
			v.Accepted = pos.Accepted
		}
		if v.Survive == "" {
			v.Survive = pos.Survive
		}
		v.Variants = nil
		out = append(out, placement{name, v})
	}
	return out
}

// ruleIDs are the distinct rules of error findings.
func ruleIDs(fs []rules.Finding) map[string]bool {
	out := map[string]bool{}
	for _, fd := range fs {
		if fd.Rule.Severity == rules.Error {
			out[fd.Rule.ID] = true
		}
	}
	return out
}

// brokenPointers are where the fixture breaks the rules its name promises,
// read from the engine's findings (and the trust algorithm's, which the
// engine folds into ENV-PROOF-TYPE for a non-object proof).
func brokenPointers(fix map[string]any, ids []string) ([]string, error) {
	var out []string
	for _, fd := range findingsOf(fix, 0) {
		if !slices.Contains(ids, fd.Rule.ID) || slices.Contains(out, fd.Pointer) {
			continue
		}
		if fd.Pointer == "" {
			return nil, fmt.Errorf("%s fires on the whole document: name the broken members in the family's cases (broken: [pointers])", fd.Rule.ID)
		}
		out = append(out, fd.Pointer)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the fixture does not break %s", strings.Join(ids, "+"))
	}
	sort.Strings(out)
	return out, nil
}

// findingsOf runs the engine (freshness at now, when not zero) and the
// trust algorithm over an envelope.
func findingsOf(env map[string]any, now int64) []rules.Finding {
	b, err := json.Marshal(env)
	if err != nil {
		return nil
	}
	return checkBytes(b, now).Findings
}

func checkBytes(raw []byte, now int64) agh.Result {
	return checkUnder(raw, now, agh.Errata{})
}

// checkUnder is checkBytes under a reading of the errata.
func checkUnder(raw []byte, now int64, errata agh.Errata) agh.Result {
	ck, err := agh.NewChecker(agh.Options{Now: now, Errata: errata})
	if err != nil {
		return agh.Result{}
	}
	res := ck.CheckBytes(raw)
	// The engine folds in the trust algorithm's findings on an object
	// proof; on any other proof it reports ENV-PROOF-TYPE alone.
	if _, object := res.Envelope["proof"].(map[string]any); res.Envelope != nil && res.Envelope["proof"] != nil && !object {
		_, tfs := trust.Evaluate(res.Envelope)
		for _, fd := range tfs {
			if !slices.ContainsFunc(res.Findings, func(x rules.Finding) bool { return x.Rule == fd.Rule }) {
				res.Findings = append(res.Findings, fd)
			}
		}
	}
	return res
}

// defaultMembers are the members Compose fills when a step does not.
var defaultMembers = []string{"protocol", "id", "workspace_id", "channel", "from", "ts", "proof", "to"}

// judgeKey signs generated cases while they are judged; the live run signs
// with a fresh key per scenario. Made when first needed: deriving it builds
// the curve's base-point table, a millisecond of every aghcheck start-up
// (validate included) that only the family's judging needs.
var judgeKey = sync.OnceValue(func() ed25519.PrivateKey {
	s := sha256.Sum256([]byte("aghcheck family judge"))
	return ed25519.NewKeyFromSeed(s[:])
})

// judge composes the live message as the harness will (in a stand-in run)
// and checks it: it must still break every rule the fixture promises; the
// engine's verdict on it gives the refusal class and whether a receipt is
// due. A fixture no receiver must refuse (SHOULD rules only) is skipped.
func (f *Family) judge(c *Case, raw []byte) error {
	now := time.Now()
	ctx, tp := standIn(f.Peer, c.Corpus.Sign, now)
	live := raw
	switch {
	case c.Send.Raw != nil:
		txt, err := ctx.RenderString(*c.Send.Raw)
		if err != nil {
			return err
		}
		live = []byte(txt)
	case c.Send.RawBase64 == "":
		env, err := ctx.Compose(&c.Send, tp, "msg_judge")
		if err != nil {
			return err
		}
		if live, err = json.Marshal(env); err != nil {
			return err
		}
	}
	at := now.Unix()
	if c.Send.RawBase64 != "" {
		// Bytes played as they are keep the fixture's times: judged as
		// the fixture is, without a clock (their first fault refuses them).
		at = 0
	}
	res := checkBytes(live, at)
	fired := ruleIDs(res.Findings)
	for _, fd := range res.Findings {
		if fd.Rule.Severity != rules.Error && slices.Contains(c.Rules, fd.Rule.ID) {
			fired[fd.Rule.ID] = true // a SHOULD fixture: judged below
		}
	}
	for _, id := range c.Rules {
		if !fired[id] {
			return fmt.Errorf("played as the family says, the message no longer breaks %s (it breaks %v): adjust the family's rewrite or its cases", id, sortedKeys(fired))
		}
	}
	own := ruleIDs(checkBytes(raw, 0).Findings)
	for id := range fired {
		if !own[id] && !slices.Contains(c.Rules, id) {
			return fmt.Errorf("played as the family says, the message also breaks %s, which the fixture does not: adjust the family's rewrite, positions or cases", id)
		}
	}
	c.Breaks = sortedKeys(fired)
	if res.Envelope != nil {
		c.Kind = agh.Str(res.Envelope, "kind")
	}
	// What every receiver owes it (a trust corpus is played only at a
	// peer that takes the trust profile).
	c.Reason = agh.DutyReason(res.Findings, true)
	if c.Reason == "" {
		c.Skip = "no receiver must refuse it: " + strings.Join(c.Rules, "+") + " is a SHOULD, or a receiver may take it"
		return nil
	}
	c.Status = agh.RefusalStatus(c.Reason)
	for _, info := range agh.ErrataNames() {
		var e agh.Errata
		if err := e.Set(info.Name); err != nil {
			return err
		}
		if agh.DutyReason(checkUnder(live, at, e).Findings, true) == "" {
			c.ValidUnder = append(c.ValidUnder, info.Name)
		}
	}
	c.Answered = res.Envelope != nil && agh.Answerable(res.Envelope, res.Findings)
	c.Requirements = appendNew(nil, owed(c.Rules)...)
	c.Requirements = appendNew(c.Requirements, f.Requirements...)
	c.Requirements = appendNew(c.Requirements, c.Corpus.Classes[c.Reason]...)
	c.ClassChecks = f.classChecks(c.Rules)
	c.Requirements = appendNew(c.Requirements, c.ClassChecks...)
	if c.Answered {
		c.Requirements = appendNew(c.Requirements, f.AnsweredRequirements...)
	}
	return nil
}

// classChecks is what judges the refusal class of a case breaking ids.
func (f *Family) classChecks(ids []string) []string {
	for _, id := range ids {
		if cc, ok := f.ClassChecks[id]; ok {
			return cc
		}
	}
	return f.ClassChecks[""]
}

func appendNew(list []string, ids ...string) []string {
	for _, id := range ids {
		if !slices.Contains(list, id) {
			list = append(list, id)
		}
	}
	return list
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rawMember finds a top-level-looking member "name": value in JSON text
// (the value a string, a number or a literal).
var rawMember = regexp.MustCompile(`"([a-z_]+)"(\s*:\s*)("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|null|true|false)`)

// templatedRaw is a bytes fixture as a templated raw send: every identity
// the family rewrites ("id": ..., "ts": ...) replaced by the case's own
// template, and each byte that is not UTF-8 written {{byte.HH}}, so the
// bytes stay as broken as the fixture's. ok is false when the bytes carry
// no such member (nothing to make the case's own) or already hold a
// template.
func (f *Family) templatedRaw(raw []byte) (string, bool) {
	if bytes.Contains(raw, []byte("{{")) {
		return "", false
	}
	var text strings.Builder
	for len(raw) > 0 {
		r, n := utf8.DecodeRune(raw)
		if r == utf8.RuneError && n <= 1 {
			fmt.Fprintf(&text, "{{byte.%02x}}", raw[0])
			raw = raw[1:]
			continue
		}
		text.Write(raw[:n])
		raw = raw[n:]
	}
	replaced := false
	out := rawMember.ReplaceAllStringFunc(text.String(), func(m string) string {
		sm := rawMember.FindStringSubmatch(m)
		tmpl, ok := f.Rewrite[sm[1]].(string)
		if !ok || sm[3] == "null" {
			return m
		}
		replaced = true
		v := strconv.Quote(tmpl)
		if !strings.HasPrefix(sm[3], `"`) {
			v = tmpl // a number stays a number: {{now}}
		}
		return `"` + sm[1] + `"` + sm[2] + v
	})
	return out, replaced
}
