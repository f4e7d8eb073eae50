package harness

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// mutant is one faulty reference peer and the requirements it breaks.
type mutant struct {
	fault peer.Fault
	// caught lists what judged the break: requirement outcomes and
	// passive findings of the fault's requirements.
	caught []string
	// failing are the scenarios it failed (or warned), played against it.
	failing []string
	err     string
	// derived marks an overlook fault made for a requirement no listed
	// fault breaks; the listed faults must all be caught.
	derived bool
	// load is how the stability check plays it (stability_test.go); the
	// zero value is the plain run.
	load load
}

// mutants is every listed fault plus, for each live requirement (one a
// scenario cites) that no listed fault breaks, a derived fault made from
// data: emit:RULE-ID where internal/peer/emit.yaml corrupts the peer's traffic for
// that rule, else the overlook fault of the rule (with the rules its
// receiver case cannot help breaking too): at least one deliberate fault
// per live requirement.
func mutants(t *testing.T, live map[string][]*scenario.Scenario) []*mutant {
	t.Helper()
	var out []*mutant
	// broken: rules a hand-written fault breaks; sent: those one breaks
	// in what the peer sends (any group but receiver), which spares the
	// rule its emit fault.
	broken, sent := map[string]bool{}, map[string]bool{}
	for _, f := range peer.Faults() {
		if f.Name == peer.FaultOverlook+"RULE-ID" || f.Name == peer.FaultEmit+"RULE-ID" || f.Name == peer.FaultReading+"NAME" {
			continue // the templates; their instances follow
		}
		if f.Group == peer.GroupLiveness || f.Group == peer.GroupAllowed || f.Group == peer.GroupHostile {
			// A slow, dying or deaf peer breaks no protocol rule: the
			// harness's liveness reporting judges it, not a scenario. An
			// allowed variant breaks none either: it must pass. A
			// hostile fault changes nothing alone: it is played beside
			// the fault it would hide (TestHelperRefusesInThePeersPlace,
			// cmd/aghcheck/testdata/script/run_helper.txtar).
			if len(f.Requirements) > 0 {
				t.Errorf("%s fault %s names requirements %v: it would escape the mutation test", f.Group, f.Name, f.Requirements)
			}
			continue
		}
		if len(f.Requirements) == 0 {
			t.Errorf("fault %s names no requirement it breaks", f.Name)
		}
		for _, id := range f.Requirements {
			if _, ok := catalogue.Lookup(id); !ok {
				t.Errorf("fault %s breaks unknown rule %s", f.Name, id)
			}
			broken[id] = true
			sent[id] = sent[id] || f.Group != "receiver"
		}
		out = append(out, &mutant{fault: f})
	}
	ids := make([]string, 0, len(live))
	for id := range live {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	companions := caseCompanions(t)
	for _, id := range ids {
		emit, sends := peer.Emit(id)
		if sent[id] || (broken[id] && !sends) {
			continue
		}
		if sends {
			out = append(out, &mutant{derived: true, fault: peer.Fault{Name: peer.FaultEmit + id, Group: "sender",
				Description: "breaks " + id + " in what it sends", Requirements: []string{id}}})
		}
		receives := slices.ContainsFunc(live[id], func(sc *scenario.Scenario) bool { return strings.HasPrefix(sc.ID, "receiver.") })
		if broken[id] || (sends && (emit.OverlookUnobservable != "" || !receives)) {
			continue
		}
		f := peer.Fault{Name: peer.FaultOverlook + strings.Join(companions[id], "+"), Group: "receiver",
			Description: "overlooks " + id, Requirements: []string{id}}
		if len(companions[id]) == 0 {
			f.Name = peer.FaultOverlook + id
		}
		out = append(out, &mutant{fault: f, derived: true})
	}
	// A rule no scenario cites that passive judging applies to what the
	// IUT sends (ENV-TS-SECONDS) is proven by its emit fault too: the
	// passive verdict must name it.
	for _, id := range peer.EmitRules() {
		if _, cited := live[id]; !cited && !sent[id] {
			out = append(out, &mutant{derived: true, fault: peer.Fault{Name: peer.FaultEmit + id, Group: "sender",
				Description: "breaks " + id + " in what it sends", Requirements: []string{id}}})
		}
	}
	return out
}

// caseCompanions maps a rule to every rule the live message of its
// receiver case breaks, itself included, where no case breaks it alone
// (a nickname the from grammar refuses too, say): a peer that overlooks
// the rule alone would still refuse that message for the other, so its
// overlook fault overlooks them all. A rule some case breaks alone maps
// to nothing.
func caseCompanions(t *testing.T) map[string][]string {
	t.Helper()
	fam, err := scenario.LoadFamily(suites.FS(), "receiver.family.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases, probs := fam.Cases()
	if len(probs) > 0 {
		t.Fatalf("receiver family: %v", probs)
	}
	out := map[string][]string{}
	alone := map[string]bool{}
	for _, c := range cases {
		if c.Skip != "" {
			continue
		}
		for _, id := range c.Rules {
			switch {
			case len(c.Breaks) == 1:
				alone[id] = true
			case out[id] == nil || len(c.Breaks) < len(out[id]):
				out[id] = c.Breaks
			}
		}
	}
	for id := range alone {
		delete(out, id)
	}
	return out
}

// liveRequirements maps each requirement a scenario cites, but a MAY, to
// the scenarios citing it.
func liveRequirements(all []*scenario.Scenario) map[string][]*scenario.Scenario {
	live := map[string][]*scenario.Scenario{}
	for _, sc := range all {
		for _, id := range sc.Requirements {
			if r, ok := catalogue.Lookup(id); ok && r.Severity == rules.Note {
				continue // a MAY permits: a peer that does not offer it breaks nothing
			}
			live[id] = append(live[id], sc)
		}
	}
	return live
}

// sanity is played against every mutant besides the scenarios citing its
// requirements: plain work, a whois and a plain refusal, so faults on the
// work's traces, on whois responses and on refusal receipts show
// passively.
var sanity = []string{"lifecycle.work-completes", "kinds.whois-directed-answered", "envelope.malformed-work-refused"}

// Every deliberate fault of the reference peer is caught by a scenario
// citing a requirement it breaks (fail, or warn for a SHOULD), or by the
// passive verdict naming that requirement. Each mutant plays only the
// scenarios citing its requirements plus the sanity ones, several at once:
// the runs mostly wait on silence windows. The correct peer's side (every
// scenario passes, with and without the control extension) is
// TestReferencePeerPassesEverything and
// TestPeerWithoutControlExtensionEarnsClaims.
func TestMutationScore(t *testing.T) {
	t.Parallel()
	all := loadSuites(t)
	live := liveRequirements(all)
	ms := mutants(t, live)
	// Most runs wait out a step's 3 s ceiling (a fault that never answers)
	// rather than use a core: sixteen at once.
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			judge(t, m, all, live)
		}()
	}
	wg.Wait()

	caught := 0
	for _, m := range ms {
		switch {
		case m.err != "":
			t.Errorf("fault %s: %s", m.fault.Name, m.err)
		case len(m.caught) > 0:
			caught++
			t.Logf("%s caught by %s", m.fault.Name, strings.Join(m.caught, ", "))
		case !m.derived:
			t.Errorf("fault %s (breaks %v) was not caught", m.fault.Name, m.fault.Requirements)
		default:
			// A derived overlook fault can go unseen when no fixture
			// breaks its rule alone, or when the rule is one the IUT's
			// own envelopes must keep: the doc lists it as a gap.
			t.Logf("gap: %s not caught", m.fault.Name)
		}
	}
	covered := 0
	for id := range live {
		for _, m := range ms {
			if len(m.caught) > 0 && slices.Contains(m.fault.Requirements, id) {
				covered++
				break
			}
		}
	}
	score := fmt.Sprintf("mutation score: %d of %d faults caught; %d of %d live requirements broken by a caught fault",
		caught, len(ms), covered, len(live))
	t.Log(score)
	matrix := matrixOf(append(ms, proveRest(t, all, ms, matrixOf(ms))...))
	for _, sc := range all {
		if len(matrix[sc.ID]) == 0 {
			t.Errorf("scenario %s: no fault of aghcheck peer fails it, so its pass could not have failed", sc.ID)
		}
	}
	if t.Failed() {
		return
	}
	if golden.Updating() {
		golden.Check(t, "../docs/mutation.md", mutationDoc(ms, score, all, matrix))
		golden.Check(t, "proven.yaml", provenFile(all, matrix))
		return
	}
	// Which faults fail a scenario can vary between runs at its edges (a
	// fault whose effect races a scenario's end): what is checked is that
	// the committed matrix still holds, each scenario failed by at least
	// one fault it names, and that it covers exactly the scenarios.
	committed := provenBy()
	for _, sc := range all {
		want, ok := committed[sc.ID]
		if !ok {
			t.Errorf("harness/proven.yaml has no entry for %s ; %s", sc.ID, golden.Command(t))
			continue
		}
		if !slices.ContainsFunc(want, func(f string) bool { return slices.Contains(matrix[sc.ID], f) }) {
			t.Errorf("harness/proven.yaml says %s is failed by %v, but none of them failed it now (failed by %v); %s", sc.ID, want, matrix[sc.ID], golden.Command(t))
		}
	}
	if len(committed) != len(all) {
		t.Errorf("harness/proven.yaml has %d entries for %d scenarios; %s", len(committed), len(all), golden.Command(t))
	}
	golden.Check(t, "../docs/mutation.md", mutationDoc(ms, score, all, committed))
}

// proveRest plays, against each scenario no fault has failed yet, the
// faults that could: the overlook fault of each catalogue rule it cites
// (the peer takes what breaks that rule alone), then every listed fault.
// Only the scenario itself is played, so this costs little.
func proveRest(t *testing.T, all []*scenario.Scenario, ms []*mutant, matrix map[string][]string) []*mutant {
	var out []*mutant
	var mu sync.Mutex
	sem := make(chan struct{}, 6)
	var wg sync.WaitGroup
	try := func(sc *scenario.Scenario, f peer.Fault) bool {
		sem <- struct{}{}
		defer func() { <-sem }()
		rep := runAgainst(t, "peer:"+f.Name, config{Scenarios: []*scenario.Scenario{sc}})
		if len(rep.Scenarios) == 1 && (rep.Scenarios[0].Outcome == report.Fail || rep.Scenarios[0].Outcome == report.Warn) {
			mu.Lock()
			out = append(out, &mutant{fault: f, derived: true, failing: []string{sc.ID}})
			mu.Unlock()
			return true
		}
		return false
	}
	for _, sc := range all {
		if len(matrix[sc.ID]) > 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range sc.Requirements {
				if r, ok := catalogue.Lookup(id); ok && r.Profile == "agh" && try(sc, peer.Fault{Name: peer.FaultOverlook + id}) {
					return
				}
			}
			for _, m := range ms {
				if !m.derived && try(sc, m.fault) {
					return
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// matrixOf is the scenario × fault matrix: for each scenario, the faults
// that failed it (or made it warn), sorted.
func matrixOf(ms []*mutant) map[string][]string {
	out := map[string][]string{}
	for _, m := range ms {
		for _, id := range m.failing {
			out[id] = append(out[id], m.fault.Name)
		}
	}
	for id := range out {
		sort.Strings(out[id])
		out[id] = slices.Compact(out[id])
	}
	return out
}

// provenFile is harness/proven.yaml, the matrix every report cites
// (ScenarioResult.ProvenBy).
func provenFile(all []*scenario.Scenario, matrix map[string][]string) []byte {
	var b strings.Builder
	b.WriteString("# Generated by TestMutationScore (mutation_test.go): make regen (or go test ./harness -run\n")
	b.WriteString("# TestMutationScore -update) rewrites it. Each scenario with the faults of aghcheck peer that fail\n")
	b.WriteString("# it (docs/mutation.md).\n")
	for _, sc := range all {
		fmt.Fprintf(&b, "%s: [%s]\n", sc.ID, strings.Join(matrix[sc.ID], ", "))
	}
	return []byte(b.String())
}

// judge plays m's scenarios against the faulty peer and records what caught it.
func judge(t *testing.T, m *mutant, all []*scenario.Scenario, live map[string][]*scenario.Scenario) {
	var play []*scenario.Scenario
	for _, sc := range all {
		cites := slices.Contains(sanity, sc.ID)
		for _, id := range m.fault.Requirements {
			cites = cites || slices.Contains(live[id], sc)
		}
		if cites {
			play = append(play, sc)
		}
	}
	rep := runAgainst(t, "peer:"+m.fault.Name+m.load.faults(), config{Scenarios: play, Parallel: m.load.parallel})
	if rep.Error != "" {
		m.err = "harness error: " + rep.Error
		return
	}
	for _, rr := range rep.Requirements {
		if slices.Contains(m.fault.Requirements, rr.ID) && (rr.Outcome == report.Fail || rr.Outcome == report.Warn) {
			m.caught = append(m.caught, rr.ID+"="+string(rr.Outcome))
		}
	}
	// Requirements are graded from the steps that check them, so a fault
	// whose only visible effect is a SHOULD of another requirement (a
	// broken trace accepted in silence: no refusal receipt) shows on the
	// scenario citing its requirement rather than on the requirement.
	for _, sc := range rep.Scenarios {
		if sc.Outcome != report.Fail && sc.Outcome != report.Warn {
			continue
		}
		m.failing = append(m.failing, sc.ID)
		for _, id := range m.fault.Requirements {
			if slices.Contains(sc.Requirements, id) {
				m.caught = append(m.caught, sc.ID+"="+string(sc.Outcome))
				break
			}
		}
	}
	for _, f := range rep.Passive.Findings {
		if slices.Contains(m.fault.Requirements, f.Rule) {
			m.caught = append(m.caught, "passive "+f.Rule)
		}
	}
}

// mutationDoc renders docs/mutation.md: what the faults are and that each is caught.
func mutationDoc(ms []*mutant, score string, all []*scenario.Scenario, matrix map[string][]string) []byte {
	var b strings.Builder
	b.WriteString(`# Mutation score

<!-- Generated by TestMutationScore (harness/mutation_test.go): make regen (or go test ./harness -run TestMutationScore -update) rewrites it. -->

The suites prove themselves against deliberately broken copies of the reference peer
(` + "`aghcheck peer --fault NAME`" + `, see [peer.md](peer.md)). Every listed fault is played but the
` + "`liveness`" + ` ones (a slow, crashing, disconnecting or deaf peer: they break no protocol rule, and
the harness's liveness reporting judges them), the ` + "`allowed`" + ` ones (which must pass) and the
` + "`hostile`" + ` ones (alone they change nothing; a test plays each beside the fault it would hide), and
for every live requirement (a MUST or SHOULD a scenario cites; a MAY is a permission, which no
peer breaks by not offering it) that no listed fault breaks, a fault made from
data: ` + "`emit:RULE-ID`" + ` where [internal/peer/emit.yaml](../internal/peer/emit.yaml) says how the peer breaks that
rule in what it sends (passive validation must see it), else ` + "`overlook:RULE-ID`" + `, the peer
accepting a message that breaks the rule (joined with ` + "`+`" + ` by the rules the rule's receiver
case cannot help breaking too, such as ` + "`overlook:ENV-FROM-GRAMMAR+TRUST-NICKNAME`" + `). Each is
played against the scenarios citing the requirements it breaks (plus
` + "`" + strings.Join(sanity, "`, `") + "`" + `). A fault is caught when one of those requirements fails
(or warns, for a SHOULD), a scenario citing one fails or warns, or the passive verdict names it.
` + "`make test`" + ` runs every one; a listed fault that is not caught fails it, a derived fault that is
not caught is a gap listed below and counted in the score.

**` + strings.ToUpper(score[:1]) + score[1:] + `.**

The correct peer passes every scenario with the control extension and every scenario it is
eligible for without it (` + "`--no-control`" + `): TestReferencePeerPassesEverything,
TestPeerWithoutControlExtensionEarnsClaims.

| fault | breaks | caught |
| --- | --- | --- |
`)
	for _, m := range ms {
		verdict := "yes"
		if len(m.caught) == 0 {
			verdict = "**no**: a gap (no fixture breaks the rule alone, or no listed fault breaks it yet)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", m.fault.Name, strings.Join(m.fault.Requirements, ", "), verdict)
	}
	b.WriteString(`
## Receiving rules no overlook fault can show

For these live rules only the ` + "`emit:`" + ` fault is played: a receiver that overlooks the rule
shows nothing a test peer could see, for the reason given (` + "`overlook_unobservable`" + ` in
[internal/peer/emit.yaml](../internal/peer/emit.yaml)). The rule's receiver cases still check that such a message
is refused without harm, but no mutant proves they would catch a peer that takes it.

| rule | why overlooking it shows nothing |
| --- | --- |
`)
	for _, m := range ms {
		id, emitted := strings.CutPrefix(m.fault.Name, peer.FaultEmit)
		if e, ok := peer.Emit(id); emitted && ok && e.OverlookUnobservable != "" {
			fmt.Fprintf(&b, "| %s | %s |\n", id, e.OverlookUnobservable)
		}
	}
	b.WriteString(stabilityDoc())
	b.WriteString(`
## Scenario × fault

Every scenario the correct peer passes is failed (or made to warn) by at least one fault: its pass
could have failed. ` + "`make test`" + ` fails for a scenario no fault fails. The JSON report gives each
scenario these faults as ` + "`proven_by`" + ` (from [harness/proven.yaml](../harness/proven.yaml)).

| scenario | failed by |
| --- | --- |
`)
	for _, sc := range all {
		names := make([]string, len(matrix[sc.ID]))
		for i, n := range matrix[sc.ID] {
			names[i] = "`" + n + "`"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", sc.ID, strings.Join(names, ", "))
	}
	return []byte(b.String())
}
