package reporter

import (
	"testing"

	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/schematest"
)

// TestWrittenReportsMatchTheirSchemas: every JSON report and record the
// writers produce from the test fixtures is valid against the schemas
// published for them (the CLI's own runs are checked in cmd/aghcheck).
func TestWrittenReportsMatchTheirSchemas(t *testing.T) {
	withBaseline := runFixture()
	b, err := baseline.Parse("known.yaml", []byte(`entries:
  - {id: nats.directed-replies-on-peer-subject, outcome: fail, reason: erratum 2}
  - {id: "passive:NATS-PUBLISH-SUBJECT", outcome: fail, reason: erratum 2}
  - {id: lifecycle.work-completes, outcome: fail, reason: "https://example.org/issues/7"}
`))
	if err != nil {
		t.Fatal(err)
	}
	b.Apply(withBaseline)
	neverJoined := runFixture()
	neverJoined.Error = "the IUT did not greet within 20s"
	neverJoined.IUT = report.IUTInfo{Command: []string{"./my-agent"}, Exit: "exit status 1", Stderr: "boom\n"}
	neverJoined.Scenarios, neverJoined.Claims = nil, []report.ClaimResult{}
	outage := htmlFixture()
	outage.Broker.Outages = []report.Outage{{Lost: report.Millis(1), Restored: report.Millis(2), Scenarios: []string{"nats.large-envelope"}}}
	outage.Selection = `^nats\.`

	for name, rep := range map[string]*report.Report{"fixture": runFixture(), "html fixture with an outage": outage,
		"with a baseline": withBaseline, "never joined": neverJoined, "repeated, unstable": repeatedFixture()} {
		t.Run(name, func(t *testing.T) {
			schematest.JSON(t, schematest.RunReport, writeRun(t, "json", rep, Options{}))
			o := Options{Record: recordInput(rep)}
			schematest.JSON(t, schematest.Record, writeRun(t, "record-json", rep, o))
			schematest.YAML(t, schematest.Record, writeRun(t, "record-yaml", rep, o))
		})
	}
}

// TestSchemasCatchDrift: the schemas are closed, so a member the model
// gains without the schema knowing of it fails the test above.
func TestSchemasCatchDrift(t *testing.T) {
	js := writeRun(t, "json", runFixture(), Options{})
	drifted := append([]byte(`{"unknown_member": 1, `), js[1:]...)
	r := &recorder{TB: t}
	schematest.JSON(r, schematest.RunReport, drifted)
	if !r.failed {
		t.Error("a report with a member the schema does not name passed")
	}
}

// recorder is a testing.TB that notes an Errorf instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
