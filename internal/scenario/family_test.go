package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/suites"
	"gopkg.in/yaml.v3"
)

// receiverFile is the receiver family's template; the receiver.yaml of
// each group's folder plays its share.
const receiverFile = "receiver.family.yaml"

// familyJSON reads a family file of the embedded suites as the loader
// does: YAML, then JSON; a template is read as the family it is.
func familyJSON(t testing.TB, name string) []byte {
	t.Helper()
	data, err := fs.ReadFile(suites.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if tmpl, ok := doc["template"]; ok {
		doc = map[string]any{"family": tmpl}
	}
	js, err := json.Marshal(jsonx.FromYAML(doc))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func decodeFamily(t testing.TB, js []byte) *Family {
	t.Helper()
	var ff familyFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&ff); err != nil {
		t.Fatal(err)
	}
	return ff.Family
}

func receiverCases(t testing.TB) []Case {
	t.Helper()
	cases, probs := decodeFamily(t, familyJSON(t, receiverFile)).Cases()
	for _, p := range probs {
		t.Error(p)
	}
	return cases
}

// Every invalid fixture of the agh and trust corpora is one case: played
// unless every rule it breaks is a SHOULD or one a receiver may take
// (rules.Rule.Tolerable), which no receiver must refuse.
func TestReceiverFamilyCoversTheCorpora(t *testing.T) {
	cases := receiverCases(t)
	byFixture := map[string]Case{}
	for _, c := range cases {
		byFixture[c.Fixture] = c
	}
	played := 0
	for _, dir := range []string{"agh/invalid", "trust/invalid"} {
		files, _ := fs.Glob(fixtures.FS(), dir+"/*.json")
		if len(files) == 0 {
			t.Fatalf("no fixtures in %s", dir)
		}
		for _, file := range files {
			c, ok := byFixture[file]
			ids, _, _ := fixtures.Name(file)
			must := slices.ContainsFunc(ids, func(id string) bool {
				r, ok := catalogue.Lookup(id)
				return ok && r.Severity == rules.Error && r.Tolerable == ""
			})
			// Counted here, not in the subtest: running one fixture's
			// subtest alone must not fail the count.
			if ok && must && c.Skip == "" {
				played++
			}
			t.Run(file, func(t *testing.T) {
				if !ok {
					t.Errorf("%s: no case", file)
					return
				}
				switch {
				case must && c.Skip != "":
					t.Errorf("%s breaks a MUST but is not played: %s", c.ID, c.Skip)
				case !must && (c.Skip == "" || !strings.Contains(c.Skip, "SHOULD")):
					t.Errorf("%s breaks only SHOULDs, yet skip = %q", c.ID, c.Skip)
				}
			})
		}
	}
	if played < 120 {
		t.Errorf("%d cases played, want at least 120", played)
	}
}

// How single fixtures are placed and judged.
func TestReceiverFamilyCases(t *testing.T) {
	byID := map[string]Case{}
	for _, c := range receiverCases(t) {
		byID[c.ID] = c
	}
	for _, tc := range []struct {
		id, kind, reason, status string
		answered                 bool
		check                    func(t *testing.T, s Send)
	}{
		{"receiver.SAY-TEXT.blank", "say", "malformed", "rejected", true, func(t *testing.T, s Send) {
			want := map[string]any{"id": "{{id.open}}", "from": "{{peer.tester}}", "to": "{{iut}}", "work_id": "{{work.w}}", "thread_id": "{{thread.t}}", "ts": "{{now}}"}
			for k, v := range want {
				if s.Envelope[k] != v {
					t.Errorf("%s = %v, want %v", k, s.Envelope[k], v)
				}
			}
			if s.To != "iut" || s.Sign {
				t.Errorf("to %q sign %v", s.To, s.Sign)
			}
		}},
		// Two containers: no usable work context, so silence is right.
		{"receiver.ENV-CONTAINER-EXCLUSIVE.both", "say", "malformed", "rejected", false, func(t *testing.T, s Send) {
			if s.Envelope["thread_id"] != "thread_x" || s.Envelope["direct_id"] != "{{direct.tester}}" || s.Envelope["work_id"] != "{{work.w}}" {
				t.Errorf("envelope %v", s.Envelope)
			}
		}},
		// The broken member keeps its value; its copy of from follows the rewrite.
		{"receiver.ENV-DIRECT-ID-DERIVATION.self-room", "say", "malformed", "rejected", false, func(t *testing.T, s Send) {
			if s.Envelope["to"] != "{{peer.tester}}" || s.Envelope["from"] != "{{peer.tester}}" {
				t.Errorf("self room: from %v to %v", s.Envelope["from"], s.Envelope["to"])
			}
		}},
		{"receiver.ENV-WORK-ID-GRAMMAR.slash", "say", "malformed", "rejected", false, func(t *testing.T, s Send) {
			if s.Envelope["work_id"] != "work_a/b" {
				t.Errorf("work_id %v", s.Envelope["work_id"])
			}
		}},
		{"receiver.ENV-PROTOCOL.v1", "say", "unsupported_profile", "unsupported", true, nil},
		{"receiver.ENV-KIND.unknown", "shout", "unsupported_kind", "unsupported", false, nil},
		{"receiver.CAP-DIGEST.mismatch", "capability", "verification_failed", "rejected", true, func(t *testing.T, s Send) {
			if s.Envelope["to"] != "{{iut}}" || s.Envelope["work_id"] != "{{work.w}}" {
				t.Errorf("a capability is placed as directed work: %v", s.Envelope)
			}
		}},
		{"receiver.GREET-SUMMARY-TYPE.number", "greet", "malformed", "rejected", false, func(t *testing.T, s Send) {
			card := s.Envelope["body"].(map[string]any)["peer_card"].(map[string]any)
			if s.To != "broadcast" || s.Envelope["to"] != nil || card["peer_id"] != "{{peer.tester}}" {
				t.Errorf("greet: send to %q, to %v, card peer_id %v", s.To, s.Envelope["to"], card["peer_id"])
			}
		}},
		{"receiver.WHOIS-TYPE.ask", "whois", "malformed", "rejected", false, func(t *testing.T, s Send) {
			if s.Envelope["to"] != "{{iut}}" {
				t.Errorf("whois is directed: to %v", s.Envelope["to"])
			}
		}},
		{"receiver.INPUT-NOT-OBJECT.array", "", "malformed", "rejected", false, func(t *testing.T, s Send) {
			// The bytes as they are, but for the case's own identities
			// and a fresh ts: only the rule under test can refuse them.
			if s.Raw == nil || s.Envelope != nil || s.To != "iut" || !strings.HasPrefix(strings.TrimSpace(*s.Raw), "[") ||
				!strings.Contains(*s.Raw, `"id": "{{id.open}}"`) || !strings.Contains(*s.Raw, `"ts": {{now}}`) {
				t.Errorf("bytes: %+v", s)
			}
		}},
		{"receiver.TRUST-PROOF-ALG.alg-eddsa", "say", "verification_failed", "rejected", true, func(t *testing.T, s Send) {
			if !s.Sign || s.Tamper["proof"].(map[string]any)["alg"] != "EdDSA" || s.Envelope["kind"] != "say" {
				t.Errorf("signed opening, alg tampered: %+v", s)
			}
		}},
		{"receiver.TRUST-PROOF-STRIPPED.proof-absent", "say", "verification_failed", "rejected", true, func(t *testing.T, s Send) {
			if s.Sign || !slices.Contains(s.Drop, "proof") {
				t.Errorf("stripped proof: sign %v drop %v", s.Sign, s.Drop)
			}
		}},
		{"receiver.TRUST-SIG-VERIFY.nickname-changed", "say", "verification_failed", "rejected", true, func(t *testing.T, s Send) {
			if !s.Sign || s.Tamper["from"] != "renamed-{{peer.tester}}" {
				t.Errorf("override: %+v", s)
			}
		}},
		// A from the test peer does not own: refused in silence, so the
		// follow-up reuses the work to show any effect it had.
		{"receiver.TRUST-FINGERPRINT.fingerprint-of-other-key", "say", "verification_failed", "rejected", false, nil},
	} {
		t.Run(tc.id, func(t *testing.T) {
			c, ok := byID[tc.id]
			if !ok {
				t.Fatal("no such case")
			}
			if c.Skip != "" || c.Kind != tc.kind || c.Reason != tc.reason || c.Status != tc.status || c.Answered != tc.answered {
				t.Errorf("skip %q kind %q reason %q status %q answered %v, want kind %q reason %q status %q answered %v",
					c.Skip, c.Kind, c.Reason, c.Status, c.Answered, tc.kind, tc.reason, tc.status, tc.answered)
			}
			if tc.check != nil {
				tc.check(t, c.Send)
			}
		})
	}
}

// A case whose live message breaks exactly its one rule is refused in the
// class the catalogue gives that rule (its Reason).
func TestReceiverFamilyClassIsTheCatalogues(t *testing.T) {
	n := 0
	for _, c := range receiverCases(t) {
		if c.Skip != "" || len(c.Rules) != 1 || !slices.Equal(c.Breaks, c.Rules) {
			continue
		}
		n++
		t.Run(c.ID, func(t *testing.T) {
			r, _ := catalogue.Lookup(c.Rules[0])
			if c.Reason != r.Reason {
				t.Errorf("reason %q, the catalogue says %q", c.Reason, r.Reason)
			}
		})
	}
	if n < 100 {
		t.Errorf("only %d single-rule cases", n)
	}
}

// The class of a refusal is a SHOULD of the peer (DELIV-FAILURE-CLASSES),
// except for the rules whose own MUST names it: in every played case, the
// step that wants no refusal in another class checks the one or the other,
// at its level, and the case cites it.
func TestReceiverFamilyClassChecks(t *testing.T) {
	played := builtinByID(t)
	must := 0
	for _, c := range receiverCases(t) {
		sc := played[c.ID]
		if c.Skip != "" || sc == nil {
			continue
		}
		want, level := []string{"DELIV-FAILURE-CLASSES"}, "SHOULD"
		if c.Position.Survive == "" && slices.Contains(c.Rules, "CAP-DIGEST") {
			want, level = []string{"CAP-DIGEST"}, "MUST"
			must++
		}
		t.Run(c.ID, func(t *testing.T) {
			if c.Position.Survive != "" {
				// Played for survival: nothing shows a refusal's class.
				if !slices.Equal(sc.Requirements, []string{survives}) {
					t.Errorf("a survival case cites %v, want %s alone", sc.Requirements, survives)
				}
				return
			}
			if !slices.Equal(c.ClassChecks, want) || !slices.Contains(sc.Requirements, want[0]) {
				t.Errorf("class checks %v, requirements %v; want %v cited", c.ClassChecks, sc.Requirements, want)
			}
			found := false
			for i, g := range sc.Grading() {
				if slices.Equal(g.Checks, want) && sc.Steps[i].ExpectSilence != nil {
					found = true
					if g.Level != level {
						t.Errorf("step %d checks %v at %s, want %s", i+1, want, g.Level, level)
					}
				}
			}
			if !found {
				t.Errorf("no silence step checks %v", want)
			}
		})
	}
	if must == 0 {
		t.Error("no CAP-DIGEST case judges its class at MUST")
	}
}

// The generated cases as a listing people review: what each plays, the
// refusal it expects, and what the live message breaks.
func TestReceiverFamilyGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range receiverCases(t) {
		if c.Skip != "" {
			fmt.Fprintf(&b, "%s  not played: %s\n", c.ID, c.Skip)
			continue
		}
		kind, receipt := c.Kind, "silent"
		if kind == "" {
			kind = "bytes"
		}
		if c.Answered {
			receipt = "receipt " + c.Status
		}
		fmt.Fprintf(&b, "%s  %s to %s  %s  %s  breaks %s\n", c.ID, kind, c.Send.To, c.Reason, receipt, strings.Join(c.Breaks, ","))
	}
	golden.Check(t, "testdata/receiver-cases.golden", []byte(b.String()))
}

// withFixture is the embedded corpus plus one more fixture.
func withFixture(t testing.TB, name, body string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(fixtures.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fixtures.FS(), p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m[name] = &fstest.MapFile{Data: []byte(body)}
	return m
}

const tabSay = `{"protocol":"agh-network/v0","workspace_id":"ws_alpha","channel":"builders","id":"s9","kind":"say",
"surface":"thread","thread_id":"thread_release","from":"ops-coordinator.session-42","to":"patch-worker.session-19",
"work_id":"work_smoke-9","ts":1776366180,"body":{"text":"\t"},"proof":null}`

// A new fixture is a new live case: no Go code, no family change.
func TestNewFixtureIsANewCase(t *testing.T) {
	scs, probs := expandFamily("receiver.yaml", familyJSON(t, receiverFile), "receiver", withFixture(t, "agh/invalid/SAY-TEXT__tab.json", tabSay))
	for _, p := range probs {
		t.Error(p)
	}
	i := slices.IndexFunc(scs, func(sc *Scenario) bool { return sc.ID == "receiver.SAY-TEXT.tab" })
	if i < 0 {
		t.Fatalf("no case receiver.SAY-TEXT.tab among %d", len(scs))
	}
	sc := scs[i]
	if sc.Claim != "core-receiver" || sc.Level != "MUST" || !slices.Contains(sc.Requirements, "SAY-TEXT") || !slices.Contains(sc.Requirements, "DELIV-MALFORMED-REFUSED") || !slices.Contains(sc.Requirements, "DELIV-REFUSAL-RECEIPT") {
		t.Errorf("case %+v", sc)
	}
	var kinds []string
	for i, g := range sc.Grading() {
		kinds = append(kinds, sc.Steps[i].Kind()+"/"+g.Level)
	}
	// send, receipt (SHOULD), silence, wrong class (SHOULD), follow-up, served, nothing late.
	if want := []string{"send/", "expect/SHOULD", "expect_silence/MUST", "expect_silence/SHOULD", "send/", "expect/MUST", "expect_silence/MUST"}; !slices.Equal(kinds, want) {
		t.Errorf("steps %v, want %v", kinds, want)
	}
	if got := sc.Steps[1].Expect.Match["body"].(map[string]any)["reason_code"]; got != "malformed" {
		t.Errorf("expected reason %v", got)
	}
}

// A rule about the bytes (a repeated member name) is played as the
// fixture's bytes: re-encoding the decoded envelope would repair it.
func TestBytesFixtureIsPlayedAsBytes(t *testing.T) {
	dup := strings.Replace(tabSay, `"kind":"say",`, `"kind":"say","kind":"say",`, 1)
	f := decodeFamily(t, familyJSON(t, receiverFile))
	cases, probs := f.casesFrom(withFixture(t, "agh/invalid/INPUT-DUPLICATE-KEY__kind.json", dup))
	for _, p := range probs {
		t.Error(p)
	}
	i := slices.IndexFunc(cases, func(c Case) bool { return c.ID == "receiver.INPUT-DUPLICATE-KEY.kind" })
	if i < 0 {
		t.Fatal("no case")
	}
	c := cases[i]
	if c.Skip != "" || c.Send.Raw == nil || c.Send.Envelope != nil || c.Reason != "malformed" || c.Answered ||
		strings.Count(*c.Send.Raw, `"kind":"say"`) != 2 {
		t.Errorf("case %+v", c)
	}
}

// What the generator refuses to play, and why.
func TestFamilyProblems(t *testing.T) {
	base := familyJSON(t, receiverFile)
	edit := func(f func(m map[string]any)) []byte {
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(base))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		f(doc["family"].(map[string]any))
		js, _ := json.Marshal(doc)
		return js
	}
	fam := func(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }
	for _, tc := range []struct {
		name   string
		js     []byte
		corpus fs.FS
		want   string
	}{
		{"whole-document rule", edit(func(m map[string]any) { delete(fam(m, "cases"), "TRUST-JCS__number-out-of-range") }), nil,
			"TRUST-JCS fires on the whole document"},
		{"override of no fixture", edit(func(m map[string]any) { fam(m, "cases")["NOPE__x"] = map[string]any{"skip": "x"} }), nil,
			"NOPE__x names no fixture"},
		{"placement adds a rule", edit(func(m map[string]any) { fam(m, "rewrite")["ts"] = "soon" }), nil,
			"also breaks ENV-TS, which the fixture does not"},
		{"fixture breaks nothing", base, withFixture(t, "agh/invalid/SAY-TEXT__fine.json", strings.Replace(tabSay, `"\t"`, `"fine"`, 1)),
			"the fixture does not break SAY-TEXT"},
		{"no other position", edit(func(m map[string]any) { delete(fam(m, "positions"), "other") }), nil, `"other" is required`},
		{"two broken steps", edit(func(m map[string]any) {
			m["steps"] = append(m["steps"].([]any), map[string]any{"broken": map[string]any{}})
		}), nil,
			"exactly one {broken: {}} step, found 2"},
		{"unknown case variable", edit(func(m map[string]any) { m["title"] = "{{case.nope}}" }), nil, "unknown {{case.nope}}"},
		{"bad when", edit(func(m map[string]any) { m["steps"].([]any)[1].(map[string]any)["when"] = "sometimes" }), nil, "when sometimes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			corpus := tc.corpus
			if corpus == nil {
				corpus = fixtures.FS()
			}
			_, probs := expandFamily("f.yaml", tc.js, "receiver", corpus)
			var msgs []string
			for _, p := range probs {
				msgs = append(msgs, p.String())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
				t.Errorf("problems %q, want one containing %q", msgs, tc.want)
			}
		})
	}
}

// The embedded suites load the family like any file: its cases are
// scenarios with ids of the form receiver.RULE.what, each played once, by
// the receiver.yaml of its group's folder.
func TestEmbeddedSuitesHoldTheFamily(t *testing.T) {
	set := LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	n := 0
	folders := map[string]int{}
	for _, sc := range set.Scenarios {
		if strings.HasPrefix(sc.ID, "receiver.") {
			n++
			folders[sc.Suite]++
			if path.Base(sc.File) != "receiver.yaml" || sc.File != "embedded:"+sc.Suite+"/receiver.yaml" {
				t.Errorf("%s: suite %q file %q", sc.ID, sc.Suite, sc.File)
			}
		}
	}
	if played := len(receiverCasesPlayed(t)); n != played {
		t.Errorf("%d receiver scenarios loaded, %d cases played", n, played)
	}
	if len(folders) < 2 {
		t.Errorf("the receiver cases sit in %v: the template was not split by rules", folders)
	}
}

// rules narrows a family to the fixtures whose first rule matches; a file
// naming a template plays the template with its own rules, and says
// nothing else.
func TestFamilyTemplateAndRules(t *testing.T) {
	tmpl, err := fs.ReadFile(suites.FS(), receiverFile)
	if err != nil {
		t.Fatal(err)
	}
	tree := func(files map[string]string) fs.FS {
		m := fstest.MapFS{receiverFile: {Data: tmpl}}
		for name, body := range files {
			m[name] = &fstest.MapFile{Data: []byte(body)}
		}
		return m
	}
	set := LoadFS(tree(map[string]string{
		"a/receiver.yaml": "family: {template: receiver.family.yaml, rules: [SAY-*]}\n",
		"b/receiver.yaml": "family: {template: receiver.family.yaml, rules: [\"CAP-DIGEST\", \"TRUST-*\"]}\n",
	}), ".", "t:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	bySuite := map[string][]string{}
	for _, sc := range set.Scenarios {
		bySuite[sc.Suite] = append(bySuite[sc.Suite], sc.ID)
	}
	if len(bySuite) != 2 || len(bySuite["a"]) == 0 || len(bySuite["b"]) == 0 {
		t.Fatalf("suites %v", bySuite)
	}
	for _, id := range bySuite["a"] {
		if !strings.HasPrefix(id, "receiver.SAY-") {
			t.Errorf("a plays %s", id)
		}
	}
	for _, id := range bySuite["b"] {
		if !strings.HasPrefix(id, "receiver.CAP-DIGEST.") && !strings.HasPrefix(id, "receiver.TRUST-") {
			t.Errorf("b plays %s", id)
		}
	}

	for _, tc := range []struct{ name, file, want string }{
		{"more than rules", "family: {template: receiver.family.yaml, rules: [SAY-*], level: SHOULD}\n", "with a template only rules may be given"},
		{"no such template", "family: {template: nope.yaml}\n", "template nope.yaml"},
		{"outside the tree", "family: {template: ../receiver.family.yaml}\n", "from the root of the suite tree"},
		{"not a template", "family: {template: a/other.yaml}\n", "not a family template"},
		{"bad pattern", "family: {template: receiver.family.yaml, rules: [\"[\"]}\n", "rules: pattern"},
		{"rules match nothing", "family: {template: receiver.family.yaml, rules: [NOPE-*]}\n", "no fixture became a case"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := LoadFS(tree(map[string]string{"a/receiver.yaml": tc.file, "a/other.yaml": "scenarios: []\n"}), ".", "t:")
			if err := set.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Parse has no suite tree: a file naming a template says so.
	if _, probs := Parse("x.yaml", []byte("family: {template: receiver.family.yaml}\n"), "x"); len(probs) == 0 || !strings.Contains(probs[0].Message, "no suite tree") {
		t.Errorf("Parse: %v", probs)
	}
	// A broken template is reported where it lies.
	if _, probs := Parse("t.yaml", []byte("template: {id: receiver}\n"), "."); len(probs) == 0 || !strings.Contains(probs[0].String(), "t.yaml:1") {
		t.Errorf("broken template: %v", probs)
	}
}

func receiverCasesPlayed(t testing.TB) []Case {
	var out []Case
	for _, c := range receiverCases(t) {
		if c.Skip == "" {
			out = append(out, c)
		}
	}
	return out
}

func FuzzFamily(f *testing.F) {
	f.Add(familyJSON(f, receiverFile))
	f.Add([]byte(`{"family":{"id":"x","title":"t","level":"MUST","claim":"core-receiver","peer":"p","corpora":[{"dir":"agh/invalid","shape":"fixture"}],"positions":{"other":{"send":"iut"}},"steps":[{"broken":{}}]}}`))
	corpus := fstest.MapFS{"agh/invalid/SAY-TEXT__tab.json": &fstest.MapFile{Data: []byte(tabSay)}}
	f.Fuzz(func(t *testing.T, js []byte) {
		scs, probs := expandFamily("fuzz.json", js, "fuzz", corpus)
		if len(probs) == 0 {
			for _, sc := range scs {
				if sc.ID == "" || len(sc.Steps) == 0 {
					t.Fatalf("accepted an incomplete case: %+v", sc)
				}
			}
		}
	})
}

// A broken greet, whois response, receipt or trace for work the peer does
// not know changes nothing a correct peer shows: such a case is played for
// survival and cites no rule of the message, so no pass claims the rule
// was judged (a peer that validates none of these kinds earns nothing from
// them).
func TestUnobservableKindsPlayedForSurvival(t *testing.T) {
	played := builtinByID(t)
	n := 0
	for _, c := range receiverCases(t) {
		sc := played[c.ID]
		if c.Skip != "" || sc == nil {
			continue
		}
		response := false
		if c.Kind == "whois" {
			body, _ := c.Send.Envelope["body"].(map[string]any)
			response = body["type"] == "response"
		}
		if c.Kind != "greet" && c.Kind != "receipt" && c.Kind != "trace" && !response {
			continue
		}
		n++
		t.Run(c.ID, func(t *testing.T) {
			if !slices.Equal(sc.Requirements, []string{survives}) {
				t.Errorf("a %s: cites %v, want %s alone", c.Kind, sc.Requirements, survives)
			}
		})
	}
	if n == 0 {
		t.Fatal("no case of those kinds: the test sees nothing")
	}
}

// builtinByID is every built-in scenario, by id, as a run loads them.
func builtinByID(t *testing.T) map[string]*Scenario {
	t.Helper()
	set := LoadFS(suites.FS(), ".", "embedded:")
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	played := map[string]*Scenario{}
	for _, sc := range set.Scenarios {
		played[sc.ID] = sc
	}
	return played
}
