package reporter

import (
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/report"
)

// A run with an adapter-owned list and readings says so in every format
// that lists results: the text report lists the adapter's verdicts and the
// readings, JSON marks the requirement and names both, HTML marks the
// requirement's row, the GitHub format has a line per requirement.
func TestRunMarksAdapterAndReadings(t *testing.T) {
	rep := runFixture()
	why := "the adapter's reconnect handler greets"
	rep.AdapterOwned = &report.AdapterOwned{File: "adapter.yaml", Adapter: "test adapter",
		Requirements: []report.OwnedRequirement{{ID: "NATS-PUBLISH-SUBJECT", Why: why}}}
	rep.Requirements = []report.RequirementResult{
		{ID: "NATS-PUBLISH-SUBJECT", Level: "MUST", Outcome: report.Fail, Scenarios: []string{"nats.directed-replies-on-peer-subject"}, Adapter: why},
		{ID: "LIFE-CORRELATION", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"lifecycle.work-completes"}}}
	rep.Readings = []string{"null-as-absent"}
	rep.Scenarios[1].Readings = []string{"null-as-absent"}
	for format, want := range map[string][]string{
		"text": {"Verdicts from the adapter's own code, not the runtime's (test adapter, adapter.yaml):", "FAIL  NATS-PUBLISH-SUBJECT", why,
			"readings null-as-absent (docs/errata.md): 1 scenario judged in the form the readings give", "judged under the reading null-as-absent"},
		"json": {`"adapter_owned": {`, `"adapter": "` + why + `"`, `"readings": [`},
		"html": {`<b title="the adapter&#39;s reconnect handler greets">adapter</b>`, "Judged under the readings null-as-absent"},
		"github": {"verdicts from the adapter's own code (test adapter, adapter.yaml), not the runtime's:", "  FAIL NATS-PUBLISH-SUBJECT: " + why,
			"readings: null-as-absent"},
	} {
		out := string(writeRun(t, format, rep, Options{}))
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s output lacks %q", format, w)
			}
		}
	}
	// The LIFE-CORRELATION row is the runtime's: no mark.
	if html := string(writeRun(t, "html", rep, Options{})); strings.Count(html, "</code> <b title=") != 1 {
		t.Errorf("html marks %d requirements as the adapter's, want 1", strings.Count(html, "</code> <b title="))
	}
}
