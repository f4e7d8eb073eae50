package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// reproducer writes the scenario that killed the IUT as a scenario file of
// its own in Config.ReproDir (none when it is not set) and returns its
// path. The file keeps the sends up to the last one before the death (all
// the steps up to it when a send uses a capture), then serves valid work
// as proof the IUT survived: `aghcheck run --suite DIR --embedded=false`
// fails the peer that dies on it and passes one that does not.
func (r *runner) reproducer(a *attempt) (string, error) {
	if r.cfg.ReproDir == "" {
		return "", nil
	}
	sc := r.cfg.Scenarios[a.i]
	data, err := yaml.Marshal(map[string]any{"scenarios": []any{reproOf(sc, a.sends)}})
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	if err := os.MkdirAll(r.cfg.ReproDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(r.cfg.ReproDir, sc.ID+".yaml")
	head := fmt.Sprintf("# The IUT died on this scenario when played alone (%s).\n# Replay: aghcheck run --suite %s --embedded=false --iut '...'\n", a.died.event.Cause, r.cfg.ReproDir)
	if err := os.WriteFile(path, append([]byte(head), data...), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// reproOf is sc cut after its sends-th send, as a document ready for YAML.
func reproOf(sc *scenario.Scenario, sends int) map[string]any {
	var keep []scenario.Step
	n, captures := 0, false
	for _, st := range sc.Steps {
		if n == sends && sends > 0 {
			break
		}
		keep = append(keep, st)
		if st.Send != nil {
			n++
			b, _ := json.Marshal(st.Send)
			captures = captures || strings.Contains(string(b), "{{capture.")
		}
	}
	var steps []any
	for _, st := range keep {
		if st.Send == nil && st.Wait == 0 && !captures {
			continue // sends alone reproduce it
		}
		st.Checks, st.Level = nil, ""
		steps = append(steps, plain(st))
	}
	steps = append(steps, plain(scenario.Step{Send: &scenario.Send{To: "iut", Envelope: map[string]any{
		"kind": "say", "id": "{{id.repro_ok}}", "surface": "thread", "thread_id": "{{thread.repro_ok}}",
		"work_id": "{{work.repro_ok}}", "body": map[string]any{"text": "Still there?"},
	}}}))
	steps = append(steps, plain(scenario.Step{Checks: scenario.Checks{scenario.Listening}, Expect: &scenario.Expect{AnyOf: []map[string]any{
		{"kind": "receipt", "body": map[string]any{"for_id": "{{id.repro_ok}}", "status": "accepted"}},
		{"kind": "trace", "work_id": "{{work.repro_ok}}"},
	}}}))
	doc := map[string]any{
		"id":           sc.ID + ".repro",
		"title":        "The IUT survives what " + sc.ID + " sends",
		"description":  "Reproducer: the IUT died on " + sc.ID + " played alone.",
		"requirements": []string{requirements.PeerSurvives.ID},
		"level":        "MUST",
		"claim":        sc.Claim,
		"steps":        steps,
	}
	if p := plain(sc.Peers); p != nil {
		doc["peers"] = p
	}
	if p := plain(sc.Requires); p != nil && len(p.(map[string]any)) > 0 {
		doc["requires"] = p
	}
	if sc.Greet != nil {
		doc["greet"] = *sc.Greet
	}
	return doc
}

// plain is v through its JSON form (the scenario format's own tags), so
// YAML writes what the loader reads.
func plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}
