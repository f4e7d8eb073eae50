package reporter

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// recordInput defines the fixture run's scenarios, as the run loaded them.
func recordInput(rep *report.Report) RecordInput {
	var in RecordInput
	for _, sc := range rep.Scenarios {
		in.Scenarios = append(in.Scenarios, &scenario.Scenario{ID: sc.ID, Title: sc.Title, Suite: sc.Suite,
			Level: sc.Level, Claim: sc.Claim, Requirements: sc.Requirements, Steps: []scenario.Step{{Wait: scenario.Duration(1)}}})
	}
	return in
}

// The fixture run: lifecycle passes, nats fails, delivery only warns and
// trust was not selected. Only core.lifecycle is passed; every group played
// is counted (trust, not played, is not); the profiles are those of the
// groups played (nats, not trust); JSON and YAML say the same.
func TestRecordGolden(t *testing.T) {
	rep := runFixture()
	o := Options{Record: recordInput(rep)}
	js := writeRun(t, "record-json", rep, o)
	golden.Check(t, filepath.Join("testdata", "run_record_json.golden"), js)
	ym := writeRun(t, "record-yaml", rep, o)
	golden.Check(t, filepath.Join("testdata", "run_record_yaml.golden"), ym)

	var fromJSON, fromYAML certRecord
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(ym, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, fromYAML) {
		t.Errorf("JSON and YAML records differ:\n%+v\n%+v", fromJSON, fromYAML)
	}
	want := certRecord{Implementation: "my-agent", Version: "1.2.3", Claim: "Core Receiver", Protocol: "agh-network/v0",
		Profiles: []string{"agh-network.nats/v0"}, Passed: []string{"core.lifecycle"}, Optional: []string{}, Deviations: []deviationEntry{},
		Groups:          []groupCount{{ID: "core.lifecycle", Played: 1, Passed: 1}, {ID: "core.delivery", Played: 1}, {ID: "transport.nats", Played: 1}},
		ScenariosPlayed: 3, Date: "2026-04-16T12:00:00Z"}
	got := fromJSON
	got.FixtureSuite, got.ReportSHA256 = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record\n%+v\nwant\n%+v", got, want)
	}

	if sum := sha256.Sum256(writeRun(t, "json", rep, Options{})); fromJSON.ReportSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("report_sha256 %s is not the digest of the JSON report", fromJSON.ReportSHA256)
	}
	// The report digest is the SHA-256 of the run's JSON report; the suite
	// digest changes with a played scenario's definition.
	rep.Scenarios[0].Outcome = report.Fail
	in := recordInput(rep)
	in.Scenarios[1].Title = "edited"
	r, err := newRecord(rep, in)
	if err != nil {
		t.Fatal(err)
	}
	if r.ReportSHA256 == fromJSON.ReportSHA256 || r.FixtureSuite == fromJSON.FixtureSuite || len(r.Passed) != 0 {
		t.Errorf("after a failure and an edit: %+v", r)
	}
	// A played scenario without its definition cannot be digested.
	if _, err := newRecord(rep, RecordInput{}); err == nil {
		t.Error("no definitions: no error")
	}
}

// A group counts what was played: one whose played scenarios all passed is
// passed though others were not played for a test interface the IUT does
// not offer (a peer without aghcheck.control/v1) or for the level; one that
// --run narrowed is counted but not passed.
func TestRecordGroupsCountWhatWasPlayed(t *testing.T) {
	sc := func(id, suite string, o report.Outcome, msg string) *report.ScenarioResult {
		return &report.ScenarioResult{ID: id, Suite: suite, Level: "MUST", Claim: "core-receiver", Outcome: o, Message: msg}
	}
	rep := &report.Report{Protocol: "agh-network/v0", Summary: report.Summary{Claim: "Core Receiver"}, Scenarios: []*report.ScenarioResult{
		sc("lifecycle.container-binding-unscripted", "core/lifecycle", report.Pass, ""),
		sc("lifecycle.non-participant-unscripted", "core/lifecycle", report.Pass, ""),
		sc("lifecycle.cancel-idempotent", "core/lifecycle", report.Skip, "the IUT does not advertise profile aghcheck.control/v1"),
		sc("nats.large-envelope", "transport/nats", report.Skip, "claim nats is not part of level core"),
		sc("delivery.expired-refused", "core/delivery", report.Pass, ""),
		sc("delivery.duplicate-id", "core/delivery", report.Skip, report.NotSelected),
	}}
	r, err := newRecord(rep, recordInput(rep))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"core.lifecycle"}; !reflect.DeepEqual(r.Passed, want) {
		t.Errorf("passed %v, want %v", r.Passed, want)
	}
	want := []groupCount{{ID: "core.lifecycle", Played: 2, Passed: 2, NotPlayed: 1}, {ID: "core.delivery", Played: 1, Passed: 1, NotPlayed: 1}}
	if !reflect.DeepEqual(r.Groups, want) {
		t.Errorf("groups %+v, want %+v", r.Groups, want)
	}
}

func TestRecordFormatByExtension(t *testing.T) {
	for path, want := range map[string]string{"r.json": "record-json", "a/r.YAML": "record-yaml", "r.yml": "record-yaml", "r.txt": "", "r": ""} {
		t.Run(path, func(t *testing.T) {
			got, err := RecordFormat(path)
			if got != want || (err != nil) != (want == "") {
				t.Errorf("%q, %v; want %q", got, err, want)
			}
		})
	}
}
