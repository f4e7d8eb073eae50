package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// cases makes the first n playable cases of seed, without an IUT.
func cases(t testing.TB, seed uint64, n int) []*Case {
	t.Helper()
	fam, seeds := familySeeds(t, true)
	dict, err := loadDictionary()
	if err != nil {
		t.Fatal(err)
	}
	g := newGenerator(seed, seeds, dict, fuzzBroker)
	o := &oracle{fam: fam, now: time.Now, trust: true}
	var out []*Case
	for i := 1; len(out) < n; i++ {
		c, _, err := o.build(g.draft(), i)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// sendOf is a case's message as the scenario file holds it.
func sendOf(t testing.TB, c *Case) string {
	b, err := json.Marshal(scenario.Plain(&c.Send))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSameSeedSameCases(t *testing.T) {
	a, b, other := cases(t, 7, 300), cases(t, 7, 300), cases(t, 8, 300)
	differ := 0
	for i := range a {
		if a[i].ID != b[i].ID || sendOf(t, a[i]) != sendOf(t, b[i]) || a[i].Input() != b[i].Input() {
			t.Fatalf("case %d differs between two runs of seed 7:\n%s %s\n%s %s", i, a[i].ID, sendOf(t, a[i]), b[i].ID, sendOf(t, b[i]))
		}
		if a[i].ID != other[i].ID {
			differ++
		}
	}
	if differ < len(a)/2 {
		t.Errorf("seeds 7 and 8 share %d of %d cases", len(a)-differ, len(a))
	}
}

// Every case is a scenario the loader takes as written (the shortcut of
// scenario.BuildSend checks only the first of each shape), and its shape
// follows the engine's verdict.
func TestCasesAreScenarioFiles(t *testing.T) {
	shapes := map[string]int{}
	for _, c := range cases(t, 3, 200) {
		shapes[c.Shape]++
		t.Run(c.ID, func(t *testing.T) {
			doc := scenario.Document(c.Scenario)
			data, err := yaml.Marshal(map[string]any{"scenarios": []any{doc}})
			if err != nil {
				t.Fatal(err)
			}
			scs, probs := scenario.Parse(c.ID+".yaml", data, "fuzz")
			if len(probs) > 0 || len(scs) != 1 {
				t.Fatalf("%s does not load: %v\n%s", c.What(), probs, data)
			}
			switch {
			case c.Shape == shapeRefuse && c.Verdict.Reason == "":
				t.Error("refused without a refusal class")
			case c.Shape == shapeAccept && len(c.Verdict.Breaks) > 0:
				t.Errorf("taken though it breaks %v", c.Verdict.Breaks)
			}
		})
	}
	for _, s := range []string{shapeRefuse, shapeAccept, shapeIgnore} {
		if shapes[s] == 0 {
			t.Errorf("no %s case among 200: %v", s, shapes)
		}
	}
}

// run fuzzes the reference peer with faults and fails the test when the
// fuzzer could not run.
func run(t *testing.T, cfg Config, faults ...string) *Report {
	t.Helper()
	hc := against(t, faults...)
	if cfg.Target.StepTimeout > 0 {
		hc.StepTimeout = cfg.Target.StepTimeout
	}
	hc.BackTimeout = 300 * time.Millisecond
	cfg.Target = hc
	if cfg.Parallel == 0 {
		cfg.Parallel = 64
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("fuzz %v: %v", faults, err)
	}
	return rep
}

func describe(rep *Report) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		b.WriteString("\n  " + f.Level + " " + f.Kind + " " + f.Rule + " (" + f.Input + "): " + f.Message)
	}
	return b.String()
}

// The correct reference peer gives no finding on a fixed seed and count:
// every verdict the oracle asks of it holds.
func TestCorrectPeerNoFinding(t *testing.T) {
	t.Parallel()
	rep := run(t, Config{Seed: 1, Cases: 250, Target: harness.Target{StepTimeout: 10 * time.Second}})
	if rep.Cases != 250 || rep.Errors != 0 || len(rep.Findings) > 0 || rep.Failed() {
		t.Fatalf("%d cases, %d errors, %d findings:%s", rep.Cases, rep.Errors, len(rep.Findings), describe(rep))
	}
}

// A faulty reference peer gives the finding of its fault within a bounded
// number of cases: the fuzzer proves itself on each kind. (Seeds are
// chosen to draw a case showing it early, so the test stays short: a
// change to the generator may move it, and the failure says so.)
func TestFaultyPeersFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault, level, kind, rule string
		seed                     uint64
		cases                    int
	}{
		{"overlook:ENV-TS", "MUST", KindAcceptedInvalid, "ENV-TS", 188, 20},
		{"one-failure-class", "SHOULD", KindWrongReason, requirements.DelivFailureClasses.ID, 1, 30},
		{"reject-unknown-ext", "MUST", KindNotTaken, requirements.ExtUnknownIgnored.ID, 103, 30},
		{"whois-no-reply-to", "MUST", KindInvalidOutput, "WHOIS-RESPONSE-REPLY-TO", 1, 100},
		{"broadcast-taken-as-addressed", "MUST", KindAcceptedMisrouted, requirements.NATSBroadcastNotAddressed.ID, 91, 20},
		// Signed seeds, played unmutated first, refused: the seed's own
		// finding, once.
		{"reject-verified", "MUST", KindNotTaken, requirements.TrustRxAccept.ID, 1, 20},
		// The same bytes published twice, taken twice.
		{"no-dedupe", "SHOULD", KindReplayed, requirements.DelivDedupe.ID, 21, 20},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			rep := run(t, Config{Seed: tc.seed, Cases: tc.cases, Target: harness.Target{StepTimeout: time.Second}}, tc.fault)
			if !slices.ContainsFunc(rep.Findings, func(f *Finding) bool { return f.Kind == tc.kind && f.Rule == tc.rule && f.Level == tc.level }) {
				t.Fatalf("no %s %s %s in %d cases:%s", tc.level, tc.kind, tc.rule, rep.Cases, describe(rep))
			}
			if rep.Failed() != (tc.level == "MUST") {
				t.Errorf("a %s finding, yet failed = %t", tc.level, rep.Failed())
			}
		})
	}
}

// What a receiver may take (a member given twice, a number past a
// double's range, a byte that is not UTF-8: the sender's MUSTs,
// rules.Rule.Tolerable) is played to see the peer survive it, and a peer
// that takes it (the allowed variant lenient-json) has no finding. (Seed
// 203 draws a repeated member first, seed 36 a huge number, seed 297 a
// byte that is not UTF-8.)
func TestToleratedInputIsNoFault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed  uint64
		input string
	}{{203, "INPUT-DUPLICATE-KEY"}, {36, "INPUT-NUMBER-RANGE"}, {297, "INPUT-UTF8"}} {
		t.Run(tc.input, func(t *testing.T) {
			t.Parallel()
			first := cases(t, tc.seed, 1)[0]
			if first.Shape != shapeSurvive || first.Input() != tc.input {
				t.Fatalf("seed %d draws %s (%s) first, played as %s: the generator moved, pick another seed", tc.seed, first.Input(), first.What(), first.Shape)
			}
			// The peer takes everything: its answers end each wait, and
			// a ceiling a loaded machine cannot outrun would invent findings.
			rep := run(t, Config{Seed: tc.seed, Cases: 10, Target: harness.Target{StepTimeout: 5 * time.Second}}, "lenient-json")
			if len(rep.Findings) > 0 || rep.Failed() {
				t.Fatalf("a peer that takes what a receiver may take has findings:%s", describe(rep))
			}
		})
	}
}

// A peer whose connection dies on a malformed whois query, or whose
// process crashes on deep nesting: the finding is a death pinned on the
// case that sent it, shrunk, and written as a scenario file that aghcheck
// run replays: it fails that peer and passes the correct one. (Seed 100
// draws such a whois third, seed 29 deep nesting first.)
func TestDeathFindingsReplay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault, kind, input string
		seed               uint64
	}{
		{"disconnect-on:whois-query-type", KindDisconnect, "WHOIS-QUERY-TYPE", 100},
		{"crash-on:deep-nesting", KindCrash, "INPUT-DEPTH", 29},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			rep := run(t, Config{Seed: tc.seed, Cases: 40, ReproDir: dir, Shrink: DefaultShrink, Target: harness.Target{StepTimeout: 2 * time.Second}}, tc.fault)
			i := slices.IndexFunc(rep.Findings, func(f *Finding) bool { return f.Kind == tc.kind })
			if i < 0 {
				t.Fatalf("no %s finding in %d cases:%s", tc.kind, rep.Cases, describe(rep))
			}
			f := rep.Findings[i]
			if f.Rule != requirements.PeerSurvives.ID || f.Level != "MUST" || !strings.Contains(f.Input, tc.input) ||
				!strings.HasPrefix(f.Case, "fuzz.") || filepath.Dir(f.Reproducer) != dir {
				t.Fatalf("finding %+v", f)
			}
			set := scenario.LoadFS(os.DirFS(dir), ".", dir+"/")
			if err := set.Err(); err != nil {
				t.Fatal(err)
			}
			i = slices.IndexFunc(set.Scenarios, func(sc *scenario.Scenario) bool { return sc.ID == f.Case })
			if i < 0 {
				t.Fatalf("%s: no scenario %s", f.Reproducer, f.Case)
			}
			replay := func(faults ...string) *report.ScenarioResult {
				tg := against(t, faults...)
				tg.BackTimeout = 300 * time.Millisecond
				plan, err := harness.Options{Target: tg, NoBuiltin: true, Suites: []string{dir},
					Run: "^" + regexp.QuoteMeta(f.Case) + "$"}.Plan()
				if err != nil {
					t.Fatal(err)
				}
				r, err := plan.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				r.Scenarios = slices.DeleteFunc(r.Scenarios, func(sc *report.ScenarioResult) bool { return sc.ID != f.Case })
				return r.Scenarios[0]
			}
			if got := replay(tc.fault); got.Outcome != report.Fail || !got.Killed {
				t.Errorf("replayed against the faulty peer: %s (%s), want fail, killed", got.Outcome, got.Message)
			}
			if got := replay(); got.Outcome != report.Pass {
				t.Errorf("replayed against the correct peer: %s (%s)", got.Outcome, got.Message)
			}
		})
	}
}

// A corpus keeps the interesting cases of one run and plays them first in
// the next.
func TestCorpusKeepsCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A ceiling a loaded machine cannot outrun would make work unserved
	// in one run and served in the next: the served answer ends the wait
	// at once, so a wide ceiling costs nothing.
	first := run(t, Config{Seed: 2, Cases: 80, CorpusDir: dir, Target: harness.Target{StepTimeout: 5 * time.Second}}, "overlook:SAY-TEXT")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if first.Corpus == nil || first.Corpus.Added == 0 || len(files) != first.Corpus.Added {
		t.Fatalf("corpus %+v, %d files", first.Corpus, len(files))
	}
	second := run(t, Config{Seed: 3, Cases: len(files), CorpusDir: dir, Target: harness.Target{StepTimeout: 5 * time.Second}}, "overlook:SAY-TEXT")
	if second.Corpus.Played != len(files) || second.Generated != 0 {
		t.Fatalf("second run: corpus %+v, %d generated", second.Corpus, second.Generated)
	}
	// What the first run found, the kept cases find again.
	for _, f := range first.Findings {
		if !slices.ContainsFunc(second.Findings, func(g *Finding) bool { return g.key == f.key }) {
			t.Errorf("kept cases do not find %s %s (%s) again", f.Kind, f.Rule, f.Input)
		}
	}
}

// A kept case whose bytes were changed keeps what they were changed from,
// so a later run minimizes it as it would a fresh one (the envelope first,
// then the bytes changed again). Seed 29 draws deep nesting first.
func TestCorpusKeepsBytesCasesShrinkable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := keepBytesCase(t, dir)
	again, err := openCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, seeds := familySeeds(t, true)
	ds := again.drafts(seeds)
	if len(ds) != 1 || ds[0].pre == nil || ds[0].bytesOp != c.draft.bytesOp || !reflect.DeepEqual(ds[0].pre.Envelope, c.draft.pre.Envelope) {
		t.Fatalf("the kept case comes back without what its bytes were changed from: %+v", ds)
	}
}

// A case whose bytes were changed waits for the answer under the id its
// text carries: the member id twice, the first removed, leaves the id the
// bytes mutation added (a correct peer answered it, and the case waited
// for the other).
func TestChangedBytesKeepTheirID(t *testing.T) {
	fam, seeds := familySeeds(t, false)
	i := slices.IndexFunc(seeds, func(s seed) bool { return s.name == "whois-request-directed" })
	if i < 0 {
		t.Fatal("no whois-request-directed seed")
	}
	d := &draft{seed: &seeds[i], send: seeds[i].send}
	d.send.Envelope = jsonx.Copy(seeds[i].send.Envelope).(map[string]any)
	delete(d.send.Envelope, "id")
	dup := slices.IndexFunc(bytesOps, func(op bytesOp) bool { return op.name == "duplicate-member" })
	if !d.applyBytes(dup) {
		t.Fatal("the bytes could not be changed")
	}
	o := &oracle{fam: fam, now: time.Now}
	c, why, err := o.build(d, 1)
	if err != nil || c == nil {
		t.Fatalf("not played (%s): %v", why, err)
	}
	last := c.Scenario.Steps[len(c.Scenario.Steps)-1]
	if last.Expect == nil || !strings.Contains(fmt.Sprint(last.Expect.Patterns()), "{{id.twice}}") {
		t.Fatalf("the case waits for %v, not an answer to {{id.twice}}", last.Expect)
	}
}

// familySeeds loads the receiver family and the seeds made from it (signed
// ones too when signed).
func familySeeds(t testing.TB, signed bool) (*scenario.Family, []seed) {
	t.Helper()
	fam, err := loadFamily()
	if err != nil {
		t.Fatal(err)
	}
	seeds, err := loadSeeds(fam, signed)
	if err != nil {
		t.Fatal(err)
	}
	return fam, seeds
}

// A peer that floods every batch is a flood finding (a batch's budget is
// its own), and what it published past the budget is judged as nothing
// else: no death, no finding of a case.
func TestFloodingPeerFound(t *testing.T) {
	t.Parallel()
	hc := against(t, "flood-bytes:256KiB")
	hc.FloodBytes = 2 << 20
	rep, err := Run(context.Background(), Config{Seed: 1, Cases: 20, Parallel: 64, Target: hc})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Findings, func(f *Finding) bool {
		return f.Kind == KindFlood && f.Rule == requirements.NATSFlood.ID && f.Level == "MUST" && strings.Contains(f.Message, "more than 2.0 MiB")
	}) || !rep.Failed() {
		t.Fatalf("no MUST flood finding naming the 2 MiB budget in %d cases:%s", rep.Cases, describe(rep))
	}
	for _, f := range rep.Findings {
		if f.Kind != KindFlood {
			t.Errorf("finding besides the flood: %s %s: %s", f.Kind, f.Rule, f.Message)
		}
	}
}
