package reporter

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
)

func runFixture() *report.Report {
	ms := func(n int) report.Millis { return report.Millis(time.Duration(n) * time.Millisecond) }
	rep := &report.Report{
		Tool: "aghcheck", Version: "test", Protocol: "agh-network/v0", Level: "full",
		Started:  time.Date(2026, 4, 16, 12, 0, 0, 0, time.UTC),
		Duration: ms(412),
		Broker:   report.BrokerInfo{Embedded: true, URL: "nats://127.0.0.1:4222", Workspace: "aghcheck-0001", Channel: "conformance"},
		IUT: report.IUTInfo{Command: []string{"./my-agent", "--join", "ws alpha"}, PeerID: "iut.0001", Card: map[string]any{"display_name": "test peer"}, Greeted: ms(40), Messages: 3,
			Implementation: "my-agent", ImplementationVersion: "1.2.3"},
		Passive: report.PassiveResult{Outcome: report.Fail, Envelopes: 3, Invalid: 1, Findings: []report.PassiveFinding{
			{Rule: "NATS-PUBLISH-SUBJECT", Level: "MUST", Count: 1, Example: "error NATS-PUBLISH-SUBJECT: published on the wrong subject"}}},
		Scenarios: []*report.ScenarioResult{
			{ID: "lifecycle.work-completes", Title: "Work completes", Suite: "core/lifecycle", File: "embedded:core/lifecycle/lifecycle.yaml",
				Level: "MUST", Claim: "core-receiver", Requirements: []string{"LIFE-CORRELATION"}, Outcome: report.Pass, Duration: ms(8)},
			{ID: "nats.directed-replies-on-peer-subject", Title: "Replies on the peer subject", Suite: "transport/nats", File: "embedded:transport/nats/binding.yaml",
				Level: "MUST", Claim: "nats", Requirements: []string{"NATS-PUBLISH-SUBJECT"}, Outcome: report.Fail, Duration: ms(9),
				Message: "step 2 (expect): the expected receipt(accepted) arrived on agh.network.v0.aghcheck-0001.conformance.broadcast, not on agh.network.v0.aghcheck-0001.conformance.peer.abc",
				Steps: []report.StepResult{{Index: 2, Kind: "expect", Outcome: report.Fail, Checks: []string{"NATS-PUBLISH-SUBJECT"}, Expected: []map[string]any{{"kind": "receipt"}},
					Arrived: []string{"receipt(accepted) msg_1 from iut.0001 on agh.network.v0.aghcheck-0001.conformance.broadcast"}}},
				Exchanged: []*report.ExchangedEntry{
					{At: ms(100), Direction: "sent", Peer: "alice", Subject: "agh.network.v0.aghcheck-0001.conformance.peer.def", Envelope: json.RawMessage(`{"kind":"say"}`)},
					{At: ms(102), Direction: "received", Subject: "agh.network.v0.aghcheck-0001.conformance.broadcast", Envelope: json.RawMessage(`{"kind":"receipt"}`),
						Findings: []string{"error NATS-PUBLISH-SUBJECT: published on the wrong subject"}}}},
			{ID: "delivery.duplicate-id", Title: "Dedupe", Suite: "core/delivery", Level: "SHOULD", Claim: "core-receiver",
				Requirements: []string{"DELIV-DEDUPE"}, Outcome: report.Warn, Duration: ms(300), Notes: []string{"step 3 (SHOULD): no duplicate receipt"}},
			{ID: "trust.signed-work-accepted", Title: "Signed", Suite: "trust", Level: "MUST", Claim: "trust",
				Requirements: []string{"TRUST-RX-ACCEPT-VERIFIED"}, Outcome: report.Skip, Message: "not selected by --run"},
		},
		Summary: report.Summary{Pass: 1, Fail: 1, Warn: 1, Skip: 1, Claim: "Core Receiver", Target: "Full Peer", ScenarioTime: ms(317)},
		Claims: []report.ClaimResult{
			{Name: "Core Receiver", Earned: true, Unexercised: []string{"LIFE-NEEDS-INPUT-RESUME"},
				Exercised: []string{"DELIV-DEDUPE", "LIFE-CORRELATION"},
				NotExercised: []report.RequirementGap{
					{ID: "LIFE-CANCEL-IDEMPOTENT", Level: "MUST", Reason: "needs aghcheck.control/v1"},
					{ID: "LIFE-NEEDS-INPUT-RESUME", Level: "MUST", Reason: "needs aghcheck.control/v1"},
					{ID: "LIFE-WORK-CLOSED", Level: "SHOULD", Reason: "not selected by --run"}}},
			{Name: "NATS Peer", Why: []string{"nats.directed-replies-on-peer-subject: fail"},
				Exercised: []string{"DELIV-DEDUPE", "LIFE-CORRELATION", "NATS-PUBLISH-SUBJECT"}, NotExercised: []report.RequirementGap{}}},
	}
	return rep
}

// writeRun writes rep in format as a run does: each scenario as it ends,
// then the report.
func writeRun(t *testing.T, format string, rep *report.Report, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := Run.New(format, &b, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeAll(w, rep.Scenarios, rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkJUnitCounts parses a run's JUnit XML and checks its root counts.
func checkJUnitCounts(t *testing.T, junit []byte, tests, failures, skipped int) {
	t.Helper()
	var parsed junitSuites
	if err := xml.Unmarshal(junit, &parsed); err != nil {
		t.Fatalf("junit is not XML: %v", err)
	}
	if parsed.Tests != tests || parsed.Failures != failures || parsed.Skipped != skipped {
		t.Errorf("junit counts tests=%d failures=%d skipped=%d, want %d, %d, %d", parsed.Tests, parsed.Failures, parsed.Skipped, tests, failures, skipped)
	}
}

func TestRunWritersGolden(t *testing.T) {
	rep := runFixture()
	text := writeRun(t, "text", rep, Options{})
	golden.Check(t, filepath.Join("testdata", "run_text.golden"), text)

	junit := writeRun(t, "junit", rep, Options{})
	checkJUnitCounts(t, junit, 5, 2, 1)
	golden.Check(t, filepath.Join("testdata", "run_junit.golden"), junit)

	js := writeRun(t, "json", rep, Options{})
	var doc struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pass", "fail", "warn", "skip", "error", "claim"} {
		if _, ok := doc.Summary[k]; !ok {
			t.Errorf("json summary lacks %s", k)
		}
	}
	golden.Check(t, filepath.Join("testdata", "run_json.golden"), js)
}

// The text run announces itself before the first scenario, and colours
// only when asked to.
func TestRunTextHeaderAndColor(t *testing.T) {
	rep := runFixture()
	out := string(writeRun(t, "text", rep, Options{Level: "full", Scenarios: 4, Selected: 4}))
	if !strings.HasPrefix(out, "aghcheck run: AGH Network v0 conformance, level full, 4 scenarios\n  PASS ") {
		t.Errorf("no header before the progress lines:\n%s", out)
	}
	// The count agrees with what --run and the level selected, in words.
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"some-selected", Options{Level: "full", Scenarios: 27, Selected: 2}, "level full, 2 of 27 scenarios\n"},
		{"one", Options{Level: "core", Scenarios: 1, Selected: 1}, "level core, 1 scenario\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := string(writeRun(t, "text", rep, tc.o)); !strings.HasPrefix(out, "aghcheck run: AGH Network v0 conformance, "+tc.want) {
				t.Errorf("header %q, want it to end %q", strings.SplitN(out, "\n", 2)[0], tc.want)
			}
		})
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour escapes without Color")
	}
	col := string(writeRun(t, "text", rep, Options{Color: true}))
	if !strings.Contains(col, "\x1b[31;1mFAIL ") {
		t.Errorf("no red FAIL with Color:\n%q", col)
	}
}

// Text tables end their lines with what they show, not with the padding of
// an empty column; counts of one are singular.
func TestRunTextWords(t *testing.T) {
	rep := runFixture()
	rep.IUT.Messages = 1
	rep.Passive.Envelopes = 1
	rep.Claims = append(rep.Claims, report.ClaimResult{Name: "Core Sender", Earned: true})
	rep.Scenarios = append(rep.Scenarios, &report.ScenarioResult{ID: "x.skipped", Suite: "x", Level: "MAY", Outcome: report.Skip})
	rep.Passive.Findings = append(rep.Passive.Findings, report.PassiveFinding{Rule: "NATS-PUBLISH-RATE", Level: "MUST", Count: 1})
	out := string(writeRun(t, "text", rep, Options{}))
	for i, line := range strings.Split(out, "\n") {
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("line %d ends in blanks: %q", i+1, line)
		}
	}
	for _, want := range []string{"1 message published", "published: FAIL   1 envelope, 1 invalid"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// What went wrong with the IUT itself is in the text report, not only in
// JSON: the stderr of a crash, the broker closing its connection.
func TestRunTextIUTTrouble(t *testing.T) {
	rep := runFixture()
	rep.IUT.Crashed, rep.IUT.Exit = true, "exit status 2"
	rep.IUT.Stderr = "starting\npanic: runtime error: index out of range\n"
	rep.IUT.Disconnects = []string{"Maximum Message Payload Exceeded"}
	out := string(writeRun(t, "text", rep, Options{}))
	for _, want := range []string{
		"crashed: exit status 2",
		"         disconnected by the broker: Maximum Message Payload Exceeded\n",
		"IUT stderr (tail):\n    starting\n    panic: runtime error: index out of range\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// The IUT's deaths, returns and killers are listed under the IUT, and the
// run's reply latency is printed, in the text report.
func TestRunTextLiveness(t *testing.T) {
	rep := runFixture()
	rep.IUT.Crashed = true
	rep.IUT.Events = []report.LifeEvent{
		{At: report.Millis(497 * time.Millisecond), Kind: report.LifeDisconnected, Cause: "broker connection closed: Client Closed",
			InFlight: []string{"a", "b"}, Stderr: []string{"TypeError: query.trim is not a function"}},
		{At: report.Millis(5 * time.Second), Kind: report.LifeRestarted, Cause: "restart 1 of 10"},
	}
	rep.IUT.Killers = []report.Killer{{Scenario: "receiver.WHOIS-QUERY-TYPE.number", Event: report.LifeDisconnected,
		Message: "the IUT's broker connection closed", Reproducer: "repro/receiver.WHOIS-QUERY-TYPE.number.yaml"}}
	rep.Summary.Latency = &report.Latency{Count: 3, Median: report.Millis(3 * time.Second), P95: report.Millis(3100 * time.Millisecond), Max: report.Millis(3200 * time.Millisecond)}
	out := string(writeRun(t, "text", rep, Options{}))
	for _, want := range []string{
		"died during the run",
		"IUT disconnected at 497ms (broker connection closed: Client Closed)",
		"interrupted 2 scenarios, played again: a, b",
		"stderr| TypeError: query.trim is not a function",
		"IUT restarted at 5s (restart 1 of 10)",
		"killer receiver.WHOIS-QUERY-TYPE.number: the IUT's broker connection closed",
		"reproducer repro/receiver.WHOIS-QUERY-TYPE.number.yaml (aghcheck run --suite repro --embedded=false)",
		"Reply latency (reported, never judged): median 3.00s, p95 3.10s, max 3.20s over 3 replies",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestClipKeepsUTF8Whole(t *testing.T) {
	s := strings.Repeat("é", 100) // 200 bytes
	for n := 4; n < 60; n++ {
		got := clip(s, n)
		if !utf8.ValidString(got) || len(got) > n || !strings.HasSuffix(got, "...") {
			t.Fatalf("clip(_, %d) = %q", n, got)
		}
	}
	if clip("short", 10) != "short" {
		t.Error("clip changed a short string")
	}
}

// The per-claim line groups the unexercised requirements by reason and,
// past its limit, counts the rest instead of naming them.
func TestExercisedLine(t *testing.T) {
	c := runFixture().Claims[0]
	for limit, want := range map[int]string{
		0: "2 requirements exercised, 3 not: LIFE-CANCEL-IDEMPOTENT, LIFE-NEEDS-INPUT-RESUME (needs aghcheck.control/v1); LIFE-WORK-CLOSED (not selected by --run)",
		1: "2 requirements exercised, 3 not: LIFE-CANCEL-IDEMPOTENT (needs aghcheck.control/v1); … 2 more",
		2: "2 requirements exercised, 3 not: LIFE-CANCEL-IDEMPOTENT, LIFE-NEEDS-INPUT-RESUME (needs aghcheck.control/v1); … 1 more",
	} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			if got := exercisedLine(c, limit); got != want {
				t.Errorf("%q, want %q", got, want)
			}
		})
	}
	if got := exercisedLine(report.ClaimResult{Exercised: []string{"A"}}, 0); got != "1 requirement exercised" {
		t.Errorf("%q", got)
	}
}

// Claims built on one another share their gaps: the text names them once.
func TestRunTextSharedGaps(t *testing.T) {
	rep := runFixture()
	peer := rep.Claims[0]
	peer.Name, peer.Exercised = "Core Peer", append(peer.Exercised, "DISC-GREET-ON-JOIN")
	rep.Claims = append(rep.Claims, peer)
	out := string(writeRun(t, "text", rep, Options{}))
	if !strings.Contains(out, "  Core Peer: 3 requirements exercised, 3 not (the same as Core Receiver)\n") {
		t.Errorf("shared gaps not named once:\n%s", out)
	}
}

// TestSilenceFailureReadsAsSuch: every format shows a failing silence's
// patterns as what must not arrive, never as what was expected.
func TestSilenceFailureReadsAsSuch(t *testing.T) {
	rep := runFixture()
	sc := rep.Scenarios[1]
	sc.Steps = []report.StepResult{{Index: 3, Kind: "expect_silence", Outcome: report.Fail,
		Expected: []map[string]any{{"kind": "trace"}}, Arrived: []string{"trace(working) msg_9 from iut.0001"}}}
	for _, format := range []string{"text", "github", "junit", "html"} {
		t.Run(format, func(t *testing.T) {
			out := string(writeRun(t, format, rep, Options{}))
			if !strings.Contains(out, "must not arrive") {
				t.Error("a failing silence is not shown as what must not arrive")
			}
			if strings.Contains(out, "step 3 expected") || strings.Contains(out, "<h5>expected</h5>") {
				t.Error("a failing silence reads as an expectation")
			}
		})
	}
}

// A long envelope is clipped in the text report's details, and shown whole
// with --verbose: exchanged, expected and arrived alike.
func TestRunTextVerboseWholeEnvelopes(t *testing.T) {
	rep := runFixture()
	long := strings.Repeat("x", 1000)
	sc := rep.Scenarios[1]
	sc.Exchanged[0].Envelope = json.RawMessage(`{"kind":"say","body":{"text":"` + long + `"}}`)
	sc.Steps[0].Arrived = []string{"receipt " + long}
	sc.Steps[0].Expected = []map[string]any{{"body": long}}
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", verbose), func(t *testing.T) {
			out := string(writeRun(t, "text", rep, Options{Verbose: verbose}))
			whole := strings.Count(out, long)
			if verbose && whole != 3 {
				t.Errorf("--verbose: %d whole copies of the long text, want 3 (exchanged, expected, arrived)", whole)
			}
			if !verbose && (whole != 0 || !strings.Contains(out, "xxx...")) {
				t.Errorf("without --verbose: %d whole copies, want none and clipped ones", whole)
			}
		})
	}
}

// The plain sections are the text report's own lines.
func TestPlainSectionsAreTheTextReport(t *testing.T) {
	rep := runFixture()
	text := string(writeRun(t, "text", rep, Options{}))
	sec := TextSections(rep, false)
	for _, part := range []string{sec.Scenario(rep.Scenarios[1].ID), sec.Passive(), sec.Verdict(), sec.Tested()} {
		if part == "" || !strings.Contains(text, part+"\n") {
			t.Errorf("the text report lacks:\n%s", part)
		}
	}
	if sec.Baseline() != "" {
		t.Error("a baseline section without a baseline")
	}
	if sec.Scenario("no.such") != "" {
		t.Error("a section for a scenario the report does not hold")
	}
}

// The sections, which aghtest logs on a terminal, reach it sanitised as
// every format does: what the IUT controls moves no cursor.
func TestPlainSectionsAreSanitised(t *testing.T) {
	rep := runFixture()
	rep.Scenarios[1].Message = "boom\x1b[2J"
	rep.IUT.Implementation = "evil\x1b]0;title\x07"
	sec := TextSections(rep, false)
	for _, part := range []string{sec.Scenario(rep.Scenarios[1].ID), sec.Tested()} {
		if strings.ContainsAny(part, "\x1b\x07") {
			t.Errorf("a control character reached the section: %q", part)
		}
	}
}

// A claim earned with initiator duties left unexercised says so in every
// run format and in the record: a peer that takes no initiation orders is
// certified for half of what it does.
func TestEveryFormatNamesUnexercisedInitiatorDuties(t *testing.T) {
	rep := runFixture()
	rep.Claims[0].UnexercisedInitiator = []string{"SEND-LIFECYCLE-FIELDS"}
	for _, format := range Run.Names() {
		t.Run(format, func(t *testing.T) {
			var out []byte
			if strings.HasPrefix(format, "record") {
				var b bytes.Buffer
				w, err := Run.New(format, &b, Options{Record: recordInput(rep)})
				if err != nil {
					t.Fatal(err)
				}
				if err := writeAll(w, rep.Scenarios, rep); err != nil {
					t.Fatal(err)
				}
				out = b.Bytes()
			} else {
				out = writeRun(t, format, rep, Options{})
			}
			if !bytes.Contains(out, []byte("SEND-LIFECYCLE-FIELDS")) {
				t.Errorf("%s does not name the unexercised initiator duty:\n%s", format, out)
			}
		})
	}
}

// repeatedFixture is the fixture run as --repeat 3 gives it: its first
// scenario's outcome differed between the runs, so it is an error.
func repeatedFixture() *report.Report {
	rep := runFixture()
	sc := rep.Scenarios[0]
	sc.Outcome, sc.Runs = report.Error, []report.Outcome{report.Pass, report.Fail, report.Pass}
	sc.Message = "unstable: its outcome differed between the 3 runs (pass on runs 1 and 3; fail on run 2); run 2: fail"
	for _, s := range rep.Scenarios[1:] {
		s.Runs = []report.Outcome{s.Outcome, s.Outcome, s.Outcome}
	}
	rep.Summary.Repeat, rep.Summary.Unstable, rep.Summary.Passed = 3, []string{sc.ID}, false
	return rep
}

// Every format says which scenarios were unstable across the runs of
// --repeat, in one line (JUnit as properties), and shows each as an error.
func TestEveryFormatNamesUnstableScenarios(t *testing.T) {
	rep := repeatedFixture()
	id := rep.Scenarios[0].ID
	for _, format := range []string{"text", "json", "junit", "html", "github"} {
		t.Run(format, func(t *testing.T) {
			out := string(writeRun(t, format, rep, Options{}))
			want := "unstable: 1 scenario differed between the 3 runs"
			switch format {
			case "json":
				want = `"unstable": [`
			case "junit":
				want = `<property name="unstable" value="` + id + `">`
			}
			if !strings.Contains(out, want) || !strings.Contains(out, id) {
				t.Errorf("%s does not name the unstable scenario (%q):\n%s", format, want, out)
			}
		})
	}
	if line := VerdictLine(rep); !strings.Contains(line, "unstable: 1 scenario") {
		t.Errorf("verdict line %q", line)
	}
}

// narrowedFixture is a run narrowed by --run to one scenario of many: the
// others were not selected, and every claim lists their requirements as
// untested.
func narrowedFixture() *report.Report {
	rep := runFixture()
	rep.Selection = "lifecycle.work-completes"
	rep.Passive = report.PassiveResult{Outcome: report.Pass, Envelopes: 6}
	rep.Scenarios = rep.Scenarios[:1]
	for i, suite := range []string{"core/delivery", "core/envelope", "core/lifecycle", "transport/nats", "trust/ed25519-jcs"} {
		for j := range 3 {
			rep.Scenarios = append(rep.Scenarios, &report.ScenarioResult{ID: fmt.Sprintf("left-out.%d.%d", i, j), Suite: suite, Level: "MUST",
				Claim: "core-receiver", Requirements: []string{fmt.Sprintf("REQ-%d-%d", i, j)}, Outcome: report.Skip, Message: report.NotSelected})
		}
	}
	rep.Summary = report.Summary{Pass: 1, Skip: 15, Claim: "none", Target: "Full Peer", Passed: true}
	rep.Requirements = []report.RequirementResult{{ID: "LIFE-CORRELATION", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"lifecycle.work-completes"}},
		{ID: "REQ-0-0", Level: "MUST", Outcome: report.Skip}}
	rep.Claims = nil
	for _, name := range []string{"Core Sender", "Core Receiver", "Core Peer", "Trust Peer", "NATS Peer", "Full Peer", "JetStream (optional)"} {
		rep.Claims = append(rep.Claims, report.ClaimResult{Name: name, Why: []string{report.UntestedPrefix + "REQ-0-0", report.UntestedPrefix + "REQ-1-0"},
			Exercised: []string{"LIFE-CORRELATION"}, NotExercised: []report.RequirementGap{{ID: "REQ-0-0", Level: "MUST", Reason: report.NotSelected}}})
	}
	return rep
}

// A narrowed run prints what it played, and one line for what --run left
// out: no claims table, no per-claim requirements, no suite rows of
// scenarios nobody asked for. -v prints the whole report.
func TestRunTextNarrowed(t *testing.T) {
	rep := narrowedFixture()
	// As a run writes it: a line for each scenario played, as it ends.
	var b bytes.Buffer
	w, err := Run.New("text", &b, Options{Level: "full", Scenarios: len(rep.Scenarios), Selected: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeAll(w, rep.Scenarios[:1], rep); err != nil {
		t.Fatal(err)
	}
	text := b.Bytes()
	golden.Check(t, filepath.Join("testdata", "run_text_narrowed.golden"), text)
	out := string(text)
	for _, absent := range []string{"Claims:", "Requirements exercised, by claim:", "core/delivery", "left-out."} {
		if strings.Contains(out, absent) {
			t.Errorf("the narrowed run prints %q:\n%s", absent, out)
		}
	}
	if !strings.Contains(out, "\nLeft out by --run: 15 scenarios, and the requirements of 7 claims they cite") {
		t.Errorf("no line for what --run left out:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n > 25 {
		t.Errorf("the narrowed run prints %d lines:\n%s", n, out)
	}
	verbose := string(writeRun(t, "text", rep, Options{Verbose: true}))
	if !strings.Contains(verbose, "\nClaims:\n") || !strings.Contains(verbose, "left-out.4.2") {
		t.Errorf("-v does not print the whole report:\n%s", verbose)
	}
}

// Every run finding carries its rule's clause and, where an erratum covers
// the rule, the erratum and the flag of its other reading, in every format:
// a sender that follows the trust page's example ("reply_to": null) learns
// of docs/errata.md and --errata null-as-absent where it fails. So does a
// scenario that fails on a step checking such a rule.
func TestRunFindingsNameClauseAndErratum(t *testing.T) {
	rep := runFixture()
	f := report.PassiveFinding{Rule: "ENV-NULL-OPTIONAL", Level: "MUST", Count: 1,
		Example: "error ENV-NULL-OPTIONAL at /reply_to (expected absent or a non-empty string, found null)"}
	rep.Passive.Findings = []report.PassiveFinding{f}
	sc := rep.Scenarios[1]
	sc.Requirements = append(sc.Requirements, "ENV-UNKNOWN-FIELD")
	sc.Steps[0].Checks = []string{"ENV-UNKNOWN-FIELD"}
	clause := "reply_to, trace_id, causation_id and expires_at MUST be omitted rather than null"
	for _, format := range []string{"text", "html", "junit", "github"} {
		out := string(writeRun(t, format, rep, Options{}))
		if format == "github" {
			out = strings.ReplaceAll(out, "%0A", "\n")
		}
		for _, want := range []string{clause, "erratum 3, read otherwise: --errata null-as-absent (docs/errata.md)",
			"erratum 4, read otherwise: --errata allow-unknown-fields (docs/errata.md)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", format, want, out)
			}
		}
	}
	// JSON carries what the run recorded of the rule (harness: explain).
	rep.Passive.Findings[0].RuleText = report.RuleText{Clause: clause, Source: "AGH Envelope §JSON schema; erratum 3",
		Errata: []report.ErratumReading{{Erratum: "erratum 3", Flag: "null-as-absent"}}}
	js := string(writeRun(t, "json", rep, Options{}))
	if !strings.Contains(js, `"errata": [
          {
            "erratum": "erratum 3",
            "flag": "null-as-absent"
          }`) || !strings.Contains(js, `"clause": "`+clause) {
		t.Errorf("json: no clause and erratum on the finding:\n%s", js)
	}
}

// Scenarios not played for one reason are one line of the text report's
// details, not a block each; -v details each.
func TestRunTextUnplayedInOneLine(t *testing.T) {
	rep := runFixture()
	const why = "nobody subscribes to the IUT's peer subject agh.network.v0.aghcheck-0001.conformance.peer.abc"
	for k := range 20 {
		rep.Scenarios = append(rep.Scenarios, &report.ScenarioResult{ID: fmt.Sprintf("receiver.CASE-%d", k), Title: "A case", Suite: "core/envelope",
			Level: "MUST", Claim: "core-receiver", Outcome: report.Error, Message: "not played: " + why, Unplayed: true})
	}
	out := string(writeRun(t, "text", rep, Options{}))
	_, details, _ := strings.Cut(out, "\nDetails:\n")
	if n := strings.Count(details, why); n != 1 {
		t.Errorf("the reason is in the details %d times, want once:\n%s", n, details)
	}
	if !strings.Contains(details, "ERROR 20 scenarios not played: "+why) {
		t.Errorf("no one line for the 20 scenarios in\n%s", details)
	}
	verbose := string(writeRun(t, "text", rep, Options{Verbose: true}))
	_, details, _ = strings.Cut(verbose, "\nDetails:\n")
	if n := strings.Count(details, why); n != 20 {
		t.Errorf("-v details the reason %d times, want 20", n)
	}
}
