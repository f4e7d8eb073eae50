package contrib

// The dummy changes TestRecipes applies, one per recipe of CONTRIBUTING.md,
// each as small as a real change of its kind can be. An edit finds its
// place by an anchor, text the file holds once: when the code moves, the
// anchor is gone and the test says which, so the recipe is read again and
// this file follows it.

// edit is one change to one file: text inserted before or after anchor,
// or in its place, or, with no anchor, a new file.
type edit struct {
	file, anchor   string
	after, replace bool
	text           string
}

// recipe is one recipe of CONTRIBUTING.md: the heading of its section, the
// dummy change, and the values of the placeholders of its Check command.
type recipe struct {
	heading string
	edits   []edit
	params  map[string]string
}

var recipes = []recipe{
	{
		heading: "Add a rule",
		params:  map[string]string{"RULE-ID": "SAY-RECIPE-PROBE"},
		edits: []edit{
			{file: "internal/agh/rules.go", anchor: "\tRuleSayOptional = rule(stageBody, ", text: `	RuleSayRecipeProbe = rule(stageBody, rules.Rule{ID: "SAY-RECIPE-PROBE",
		Clause: "say body intent, when present, MUST NOT be \"recipe-probe\" (the dummy rule of CONTRIBUTING.md's recipe test).",
		Source: srcKinds + " §say body fields",
		Basis:  ` + "`" + `Message Kinds §say body fields, text: "MUST be non-empty after trimming whitespace."` + "`" + `})
`},
			{file: "internal/agh/body.go", anchor: "\tr.typed(RuleSayOptional, body, \"/body/\", sayMembers)\n", text: `	if body["intent"] == "recipe-probe" {
		r.add(RuleSayRecipeProbe, "/body/intent", "anything but recipe-probe", "recipe-probe")
	}
`},
			{file: "internal/agh/fastbody.go", anchor: "\t\tcase \"intent\":\n\t\t\treturn str(s, false)\n\t\tcase \"artifacts\":\n", replace: true, text: `		case "intent":
			if v, ok := s.String(); !ok || string(v) == "recipe-probe" {
				return false // SAY-RECIPE-PROBE might fire: the full check decides
			}
			return true
		case "artifacts":
`},
			{file: "fixtures/agh/invalid.py", anchor: "\n}\nout = ", text: "\n \"SAY-RECIPE-PROBE__intent\": (S, body(intent=\"recipe-probe\")),"},
		},
	},
	{
		heading: "Add a scenario",
		params:  map[string]string{"ID": `delivery\.recipe-probe`, "FAULT-NAME": "accept-expired"},
		edits: []edit{
			{file: "suites/core/delivery/recipe-probe.yaml", text: `# The dummy scenario of CONTRIBUTING.md's recipe test.
scenarios:
  - id: delivery.recipe-probe
    title: Work whose expires_at has passed is not worked on
    requirements: [DELIV-EXPIRED-REJECT]
    level: MUST
    claim: core-receiver
    peers: [alice]
    steps:
      - send:
          to: iut
          envelope:
            kind: say
            id: "{{id.open}}"
            ts: "{{now-120}}"
            expires_at: "{{now-60}}"
            surface: thread
            thread_id: "{{thread.t}}"
            work_id: "{{work.w}}"
            body: {text: "too late"}
      - expect_silence:
          any_of:
            - {kind: receipt, body: {for_id: "{{id.open}}", status: accepted}}
            - {kind: trace, work_id: "{{work.w}}"}
      - send:
          to: iut
          envelope:
            kind: say
            id: "{{id.ok}}"
            surface: thread
            thread_id: "{{thread.ok}}"
            work_id: "{{work.ok}}"
            body: {text: "and this one?"}
      - expect:
          any_of:
            - {kind: receipt, body: {for_id: "{{id.ok}}", status: accepted}}
            - {kind: trace, work_id: "{{work.ok}}", body: {state: {$in: [working, completed]}}}
        checks: listening
`},
		},
	},
	{
		heading: "Add a report format",
		params:  map[string]string{"COMMAND": "run", "NAME": "tap", "EXT": "tap"},
		edits: []edit{
			{file: "reporter/run_tap.go", text: `package reporter

import (
	"fmt"
	"io"
	"strings"

	"github.com/aghcheck/aghcheck/internal/report"
)

// writeRunTAP writes a run in the Test Anything Protocol: a line per
// scenario, the tested implementation and the duties not exercised as
// comments (the dummy format of CONTRIBUTING.md's recipe test).
func writeRunTAP(w io.Writer, rep *report.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "TAP version 13\n# %s %s\n1..%d\n", rep.IUT.Implementation, rep.IUT.ImplementationVersion, len(rep.Scenarios))
	for i, sc := range rep.Scenarios {
		ok := "ok"
		if sc.Outcome == report.Fail || sc.Outcome == report.Error {
			ok = "not ok"
		}
		fmt.Fprintf(&b, "%s %d - %s # %s\n", ok, i+1, sc.ID, sc.Outcome)
	}
	for _, c := range rep.Claims {
		if len(c.UnexercisedInitiator) > 0 {
			fmt.Fprintf(&b, "# %s: not exercised: %s\n", c.Name, strings.Join(c.UnexercisedInitiator, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
`},
			{file: "reporter/run_tap_test.go", text: `package reporter

import (
	"path/filepath"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
)

func TestRunTAPGolden(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "run_tap.golden"), writeRun(t, "tap", runFixture(), Options{}))
}
`},
			{file: "reporter/reporter.go", anchor: "\trunFormat{Name: \"github\", New: whole[*report.ScenarioResult](writeRunGitHub)},\n", after: true, text: "\trunFormat{Name: \"tap\", New: whole[*report.ScenarioResult](writeRunTAP)},\n"},
			{file: "reporter/doc.go", anchor: "GitHub annotations or the self-certification record", text: "TAP, "},
			{file: "cmd/aghcheck/run.go", anchor: "\".xml\": {\"junit\"}, ", after: true, text: "\".tap\": {\"tap\"}, "},
			{file: "docs/harness.md", anchor: "- `--format html`:", text: "- `--format tap`: the Test Anything Protocol, a line per scenario (`-o report.tap`).\n"},
		},
	},
	{
		heading: "Add a fault to the built-in peer",
		params:  map[string]string{"NAME": "recipe-probe", "ID": `delivery\.ids-and-references`},
		edits: []edit{
			{file: "internal/peer/faults.go", anchor: "\tfaultBareCompleted ", text: "\tfaultRecipeProbe = \"recipe-probe\"\n"},
			{file: "internal/peer/faults.go", anchor: "var faultList = []Fault{\n", after: true, text: "\t{faultRecipeProbe, \"delivery\", \"gives its receipts a reply_to that names no envelope (the dummy fault of CONTRIBUTING.md's recipe test)\", []string{\"DELIV-REPLY-TO-KNOWN\"}},\n"},
			{file: "internal/peer/misbehave.go", anchor: "\t\tif p.faults[faultReplyToUnknown] {", text: `		if p.faults[faultRecipeProbe] {
			env["reply_to"] = "msg_" + randid.Hex(16)
		}
`},
			{file: "internal/peer/misbehave_test.go", anchor: "var trackerFaultCases = []faultCase{\n", after: true, text: `	{faultRecipeProbe, nil, func(t *testing.T, r *rig) {
		w := r.work("answer me")
		r.send(w)
		if got := r.expect("receipt"); got["reply_to"] == w["id"] {
			t.Fatalf("receipt reply_to names the opening: %s", mustJSON(got))
		}
	}},
`},
		},
	},
}
