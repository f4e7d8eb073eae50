package reporter

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
)

// The run fixture against a baseline with an entry of every status:
// expected (a scenario and a passive rule), stale (a scenario that passes,
// a rule no longer broken) and not judged (a skipped scenario); the
// fixture's warning is in none, so it is new.
func TestRunWritersWithBaseline(t *testing.T) {
	b, err := baseline.Parse("known.yaml", []byte(`entries:
  - {id: nats.directed-replies-on-peer-subject, outcome: fail, reason: erratum 2}
  - {id: "passive:NATS-PUBLISH-SUBJECT", outcome: fail, reason: erratum 2}
  - {id: lifecycle.work-completes, outcome: fail, reason: "https://example.org/issues/7"}
  - {id: trust.signed-work-accepted, outcome: fail, reason: erratum 9}
  - {id: "passive:ENV-WORK-ID", outcome: fail, reason: erratum 5}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := runFixture()
	b.Apply(rep)
	golden.Check(t, filepath.Join("testdata", "run_baseline_text.golden"), writeRun(t, "text", rep, Options{}))

	junit := writeRun(t, "junit", rep, Options{})
	// Failures: the two stale entries and the new warning; skipped: the
	// scenario skipped by the run, the expected-fail scenario and the
	// expected passive verdict.
	checkJUnitCounts(t, junit, 8, 3, 3)
	golden.Check(t, filepath.Join("testdata", "run_baseline_junit.golden"), junit)
	// GitHub: the known deviations are notices with their reasons; the new
	// warning and the stale entries are errors, as they fail the run.
	gh := writeRun(t, "github", rep, Options{})
	golden.Check(t, filepath.Join("testdata", "run_baseline_github.golden"), gh)
	for _, want := range []string{
		"::notice title=nats.directed-replies-on-peer-subject (MUST EXPECTED-FAIL)::Replies on the peer subject (expected-fail: erratum 2): ",
		"::error title=delivery.duplicate-id (SHOULD WARN)::",
		"::notice title=passive NATS-PUBLISH-SUBJECT::1 IUT envelope broke NATS-PUBLISH-SUBJECT (MUST) (expected-fail: erratum 2), ",
		"::error title=stale baseline entry passive%3AENV-WORK-ID::the rule is no longer broken: remove the entry\n",
		", 1 expected-fail, 2 stale, 1 new (baseline known.yaml)\n",
	} {
		if !strings.Contains(string(gh), want) {
			t.Errorf("github log lacks %q", want)
		}
	}
	// The record's deviations are the entries the run confirmed.
	r, err := newRecord(rep, recordInput(rep))
	if err != nil {
		t.Fatal(err)
	}
	if want := []deviationEntry{{"nats.directed-replies-on-peer-subject", report.Fail, "erratum 2"}, {"passive:NATS-PUBLISH-SUBJECT", report.Fail, "erratum 2"}}; !slices.Equal(r.Deviations, want) {
		t.Errorf("deviations %v, want %v", r.Deviations, want)
	}
	if rep.Summary.Passed || rep.Passive.Outcome != report.ExpectedFail {
		t.Errorf("summary %+v, passive %s", rep.Summary, rep.Passive.Outcome)
	}
}
