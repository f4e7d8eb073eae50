package reporter

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
)

// A user suite's failure is annotated on its scenario file and line; a
// built-in suite's has no file in the repository; the verdict and claims
// close the log.
func TestRunGitHubGolden(t *testing.T) {
	rep := runFixture()
	user := rep.Scenarios[2] // delivery.duplicate-id, warn
	user.File, user.Line = "./acme/suites//delivery.yaml", 7
	rep.Scenarios[0].File = "acme/suites/lifecycle.yaml" // passes: no annotation
	out := string(writeRun(t, "github", rep, Options{}))
	golden.Check(t, filepath.Join("testdata", "run_github.golden"), []byte(out))
	for _, want := range []string{
		"::warning file=acme/suites/delivery.yaml,line=7,title=delivery.duplicate-id (SHOULD WARN)::Dedupe%0Anote: step 3 (SHOULD): no duplicate receipt%0Arequirements: DELIV-DEDUPE\n",
		"::error title=nats.directed-replies-on-peer-subject (MUST FAIL)::Replies on the peer subject: step 2 (expect)",
		`%0Astep 2 expected: {"kind":"receipt"}%0Astep 2 arrived:  receipt(accepted) msg_1`,
		"::error title=passive NATS-PUBLISH-SUBJECT::1 IUT envelope broke NATS-PUBLISH-SUBJECT (MUST)",
		"::error title=aghcheck run%3A NOT PASSED::my-agent 1.2.3, by aghcheck test: claim earned: Core Receiver (target Full Peer)",
		"✘ NATS Peer nats.directed-replies-on-peer-subject: fail\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(line, "lifecycle.work-completes") || strings.Contains(line, "trust.signed-work-accepted") {
			t.Errorf("a passed or skipped scenario is annotated: %s", line)
		}
	}

	ok := &report.Report{Version: "v1", IUT: report.IUTInfo{Implementation: "p", ImplementationVersion: "2"}, Summary: report.Summary{Pass: 1, Claim: "Full Peer", Target: "Full Peer", Passed: true},
		Scenarios: []*report.ScenarioResult{{ID: "lifecycle.work-completes", Outcome: report.Pass}}}
	if got := string(writeRun(t, "github", ok, Options{})); got != "::notice title=aghcheck run%3A PASSED::p 2, by aghcheck v1: claim earned: Full Peer (target Full Peer); 1 pass, 0 fail, 0 warn, 0 skip, 0 error\n"+
		"PASSED  p 2, by aghcheck v1: claim earned: Full Peer (target Full Peer); 1 pass, 0 fail, 0 warn, 0 skip, 0 error\n" {
		t.Errorf("a passing run:\n%s", got)
	}
}

// TestWhyLineGathersUntested: a narrowed run leaves dozens of requirements
// untested; a claim's line names a few and counts the rest, keeping its
// other reasons.
func TestWhyLineGathersUntested(t *testing.T) {
	why := []string{"x.fails: fail"}
	for i := range 80 {
		why = append(why, fmt.Sprintf("untested: REQ-%02d", i))
	}
	why = append(why, "needs Core Peer")
	want := "x.fails: fail; untested: REQ-00, REQ-01, REQ-02, … 77 more; needs Core Peer"
	if got := whyLine(why, 3); got != want {
		t.Errorf("whyLine = %q, want %q", got, want)
	}
	if got := whyLine(why[:2], 3); got != "x.fails: fail; untested: REQ-00" {
		t.Errorf("whyLine of one = %q", got)
	}
	rep := runFixture()
	rep.Claims[1].Why = why
	if out := string(writeRun(t, "github", rep, Options{})); strings.Count(out, "REQ-") != 8 || !strings.Contains(out, "… 72 more") {
		t.Errorf("github claim line does not gather the untested requirements:\n%s", out)
	}
}
