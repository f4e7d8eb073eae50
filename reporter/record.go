package reporter

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// RecordInput is what a self-certification record needs beyond the
// report (which names who was certified, harness.Report.NameImplementation):
// the scenario definitions the digest of the played set is taken over.
type RecordInput struct {
	Scenarios []*scenario.Scenario
}

// certRecord is the self-certification record of the conformance page
// (Conformance Levels, "Self-certification"), with the run's date and the
// digest of its full JSON report added so a reader can tie the two.
type certRecord struct {
	Implementation string `json:"implementation" yaml:"implementation"`
	Version        string `json:"version" yaml:"version"`
	Claim          string `json:"claim" yaml:"claim"`
	Protocol       string `json:"protocol" yaml:"protocol"`
	// Profiles are the profile identifiers of the groups the run played.
	Profiles []string `json:"profiles" yaml:"profiles"`
	// FixtureSuite names the suite: aghcheck's version and the SHA-256 of
	// the scenario definitions played, so a narrowed or edited suite shows.
	FixtureSuite    string `json:"fixture_suite" yaml:"fixture_suite"`
	ScenariosPlayed int    `json:"scenarios_played" yaml:"scenarios_played"`
	// Readings are the other readings of documented errata the run judged
	// by (run --compat, --errata): a claim earned under them is earned
	// under the runtime's reading, not the pages'.
	Readings []string `json:"readings,omitempty" yaml:"readings,omitempty"`
	Passed   []string `json:"passed" yaml:"passed"`
	// Unexercised names each earned claim that rests on duties the run
	// could not exercise (the initiator's half of an IUT that takes no
	// initiation orders), with those requirements.
	Unexercised []string         `json:"unexercised,omitempty" yaml:"unexercised,omitempty"`
	Optional    []string         `json:"optional" yaml:"optional"`
	Deviations  []deviationEntry `json:"deviations" yaml:"deviations"`
	// Groups counts, for every group the run played any scenario of, what
	// it played and passed, and what it did not play.
	Groups       []groupCount `json:"groups" yaml:"groups"`
	Date         string       `json:"date" yaml:"date"`
	ReportSHA256 string       `json:"report_sha256" yaml:"report_sha256"`
}

// deviationEntry is a --baseline entry the run confirmed: a known shortfall.
type deviationEntry struct {
	ID      string         `json:"id" yaml:"id"`
	Outcome report.Outcome `json:"outcome" yaml:"outcome"`
	Reason  string         `json:"reason" yaml:"reason"`
}

// groupCount is what a run played of one group.
type groupCount struct {
	ID     string `json:"id" yaml:"id"`
	Played int    `json:"played" yaml:"played"`
	Passed int    `json:"passed" yaml:"passed"`
	// NotPlayed are its scenarios the run did not play: outside the
	// level, behind a requires the IUT did not meet, left out by --run.
	NotPlayed int `json:"not_played" yaml:"not_played"`
}

// newRecord builds the record of rep. Every group the run played any
// scenario of is counted (groups). It is passed (or, optional, listed
// under optional) when every scenario of it the run played passed and
// --run left none out: a scenario not played for the level or for a test
// interface or profile the IUT does not offer does not keep it out, and
// its count says so.
func newRecord(rep *report.Report, in RecordInput) (*certRecord, error) {
	var js bytes.Buffer
	if err := writeRunJSON(&js, rep); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(js.Bytes())
	digest, played, err := playedDigest(rep, in.Scenarios)
	if err != nil {
		return nil, err
	}
	r := &certRecord{
		Implementation: cmp.Or(rep.IUT.Implementation, report.Unknown),
		Version:        cmp.Or(rep.IUT.ImplementationVersion, report.Unknown),
		Claim:          rep.Summary.Claim, Protocol: rep.Protocol,
		Profiles: []string{}, Passed: []string{}, Optional: []string{}, Deviations: []deviationEntry{}, Groups: []groupCount{},
		FixtureSuite:    fmt.Sprintf("aghcheck@%s sha256:%s", rep.Version, digest),
		Readings:        rep.Readings,
		ScenariosPlayed: played,
		Date:            rep.Started.UTC().Format(time.RFC3339),
		ReportSHA256:    hex.EncodeToString(sum[:]),
	}
	for _, c := range rep.Claims {
		if c.Earned && len(c.UnexercisedInitiator) > 0 {
			r.Unexercised = append(r.Unexercised, c.Name+": initiator duties not exercised (the IUT takes no initiation orders): "+strings.Join(c.UnexercisedInitiator, ", "))
		}
	}
	for _, g := range suites.Groups() {
		gc, narrowed := groupCount{ID: g.ID}, false
		for _, sc := range rep.Scenarios {
			switch {
			case !g.Holds(sc.Suite):
			case sc.Outcome == report.Skip:
				gc.NotPlayed++
				narrowed = narrowed || sc.Message == report.NotSelected
			case sc.Outcome == report.Pass:
				gc.Played++
				gc.Passed++
			default:
				gc.Played++
			}
		}
		if gc.Played == 0 {
			continue
		}
		r.Groups = append(r.Groups, gc)
		if g.Profile != "" && !slices.Contains(r.Profiles, g.Profile) {
			r.Profiles = append(r.Profiles, g.Profile)
		}
		switch {
		case gc.Passed < gc.Played || narrowed:
		case g.Optional:
			r.Optional = append(r.Optional, g.ID)
		default:
			r.Passed = append(r.Passed, g.ID)
		}
	}
	for _, sc := range rep.Scenarios {
		if b := sc.Baseline; b != nil && b.Status == report.BaselineExpected {
			r.Deviations = append(r.Deviations, deviationEntry{ID: sc.ID, Outcome: b.Recorded, Reason: b.Reason})
		}
	}
	for _, f := range rep.Passive.Findings {
		if b := f.Baseline; b != nil && b.Status == report.BaselineExpected {
			r.Deviations = append(r.Deviations, deviationEntry{ID: "passive:" + f.Rule, Outcome: b.Recorded, Reason: b.Reason})
		}
	}
	return r, nil
}

// playedDigest hashes the definitions of the scenarios rep played (not
// skipped), in id order: suite, then the definition as JSON, per scenario.
func playedDigest(rep *report.Report, defs []*scenario.Scenario) (string, int, error) {
	byID := make(map[string]*scenario.Scenario, len(defs))
	for _, sc := range defs {
		byID[sc.ID] = sc
	}
	var ids []string
	for _, sc := range rep.Scenarios {
		if sc.Outcome != report.Skip {
			ids = append(ids, sc.ID)
		}
	}
	slices.Sort(ids)
	h := sha256.New()
	for _, id := range ids {
		def, ok := byID[id]
		if !ok {
			return "", 0, fmt.Errorf("record: no definition of played scenario %s", id)
		}
		b, err := json.Marshal(def)
		if err != nil {
			return "", 0, fmt.Errorf("record: scenario %s: %w", id, err)
		}
		fmt.Fprintf(h, "%s\n%s\n", def.Suite, b)
	}
	return hex.EncodeToString(h.Sum(nil)), len(ids), nil
}

// recordFormat makes the constructor of the record in one encoding.
func recordFormat(encode func(io.Writer, *certRecord) error) func(io.Writer, Options) runWriter {
	return func(w io.Writer, o Options) runWriter {
		return finishOnly[*report.ScenarioResult, *report.Report](func(rep *report.Report) error {
			r, err := newRecord(rep, o.Record)
			if err != nil {
				return err
			}
			return encode(w, r)
		})
	}
}

func encodeRecordJSON(w io.Writer, r *certRecord) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

func encodeRecordYAML(w io.Writer, r *certRecord) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return err
	}
	return enc.Close()
}

// RecordFormat is the run format that writes a record to path, by its
// extension: .json, or .yaml / .yml.
func RecordFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json":
		return "record-json", nil
	case ".yaml", ".yml":
		return "record-yaml", nil
	default:
		return "", fmt.Errorf("%s: the record is JSON (.json) or YAML (.yaml, .yml), not %q", path, ext)
	}
}
