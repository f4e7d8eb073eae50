package workunit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// A sequence case (testdata/*.yaml): envelopes in shorthand, the rule ids
// the tracker must report on each, and the work states at the end.
type sequence struct {
	Name   string
	Config struct {
		Window        time.Duration `yaml:"window"`
		GreetInterval time.Duration `yaml:"greet_interval"`
		MaxEntries    int           `yaml:"max_entries"`
		Complete      *bool         `yaml:"complete"` // default true
	}
	Steps  []step
	States map[string]string // work_id (default thread) → state
}

type step struct {
	Kind, ID, From, To, Work string
	Thread, Direct           string
	Channel, Workspace       string // default testChannel, testWS
	For, Status, Reason      string
	State, Type              string
	ReplyTo                  string `yaml:"reply_to"`
	Causation                string
	At                       *int  // seconds since the start; default: the previous step's
	Judged                   *bool // default true
	Refused                  bool  // a receiver must refuse it
	Expect                   []string
	// Acted are the rules of Expect whose finding shows the peer acted
	// on a message it had to refuse (Result.Acted, a receiver's duty).
	Acted []string
	// ExpectFound, when set, is what a finding's found says (the member
	// that decides, named as such).
	ExpectFound string `yaml:"expect_found"`
	Repeat      bool   // the tracker must call it a repeat
}

const (
	testWS, testChannel, testThread = "ws_test", "conformance", "thread_main"
	start                           = 1_700_000_000
)

// envelope expands a step into an envelope (valid where the step allows;
// the tracker judges only what spans envelopes).
func (s step) envelope() map[string]any {
	env := map[string]any{
		"protocol": agh.Protocol, "id": s.ID, "workspace_id": testWS, "channel": testChannel,
		"kind": s.Kind, "from": s.From, "to": nil, "ts": int64(start), "proof": nil, "body": map[string]any{},
	}
	if s.To != "" {
		env["to"] = s.To
	}
	if s.Channel != "" {
		env["channel"] = s.Channel
	}
	if s.Workspace != "" {
		env["workspace_id"] = s.Workspace
	}
	body := env["body"].(map[string]any)
	switch s.Kind {
	case "say", "capability", "receipt", "trace":
		switch {
		case s.Direct != "":
			env["surface"], env["direct_id"] = agh.SurfaceDirect, s.Direct
		case s.Thread != "":
			env["surface"], env["thread_id"] = agh.SurfaceThread, s.Thread
		default:
			env["surface"], env["thread_id"] = agh.SurfaceThread, testThread
		}
	}
	set := func(m map[string]any, k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set(env, "work_id", s.Work)
	set(env, "reply_to", s.ReplyTo)
	set(env, "causation_id", s.Causation)
	switch s.Kind {
	case "say":
		body["text"] = "hello " + s.ID
	case "capability":
		body["capability"] = map[string]any{"id": "cap", "summary": "s", "outcome": "o", "digest": "sha256:00"}
	case "greet":
		body["peer_card"] = map[string]any{"peer_id": s.From}
	}
	set(body, "for_id", s.For)
	set(body, "status", s.Status)
	set(body, "reason_code", s.Reason)
	set(body, "state", s.State)
	set(body, "type", s.Type)
	return env
}

func loadSequences(t *testing.T) map[string][]sequence {
	t.Helper()
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sequence files: %v", err)
	}
	out := map[string][]sequence{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []sequence
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&seqs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".yaml")] = seqs
	}
	return out
}

func TestSequences(t *testing.T) {
	for file, seqs := range loadSequences(t) {
		for _, sq := range seqs {
			t.Run(file+"/"+sq.Name, func(t *testing.T) {
				cfg := Config{Window: sq.Config.Window, GreetInterval: sq.Config.GreetInterval,
					MaxEntries: sq.Config.MaxEntries, Complete: sq.Config.Complete == nil || *sq.Config.Complete}
				tr := New(cfg)
				at := 0
				for i, st := range sq.Steps {
					if st.At != nil {
						at = *st.At
					}
					res := tr.Observe(Envelope{At: time.Unix(start+int64(at), 0), Env: st.envelope(), Judged: st.Judged == nil || *st.Judged, Refused: st.Refused})
					fs := res.Findings
					if res.Repeat != st.Repeat {
						t.Errorf("step %d (%s %s from %s): repeat %v, want %v", i+1, st.Kind, st.ID, st.From, res.Repeat, st.Repeat)
					}
					if got := ruleIDs(fs); !slices.Equal(got, sorted(st.Expect)) {
						t.Errorf("step %d (%s %s from %s): findings %v, want %v\n%v", i+1, st.Kind, st.ID, st.From, got, sorted(st.Expect), fs)
					}
					if got := ruleIDs(res.Acted); !slices.Equal(got, sorted(st.Acted)) {
						t.Errorf("step %d (%s %s from %s): acted %v, want %v", i+1, st.Kind, st.ID, st.From, got, sorted(st.Acted))
					}
					if st.ExpectFound != "" && !slices.ContainsFunc(fs, func(f rules.Finding) bool { return f.Found == st.ExpectFound }) {
						t.Errorf("step %d (%s %s from %s): no finding found %q: %v", i+1, st.Kind, st.ID, st.From, st.ExpectFound, fs)
					}
					for _, f := range fs {
						if _, ok := catalogue.Lookup(f.Rule.ID); !ok {
							t.Errorf("step %d: finding cites %s, which is not in the catalogue", i+1, f.Rule.ID)
						}
					}
				}
				for work, want := range sq.States {
					got, ok := tr.State(testWS, testChannel, agh.SurfaceThread, testThread, work)
					if !ok || got != want {
						t.Errorf("work %s: state %q (known %v), want %q", work, got, ok, want)
					}
				}
			})
		}
	}
}

func ruleIDs(fs []rules.Finding) []string {
	ids := []string{}
	for _, f := range fs {
		ids = append(ids, f.Rule.ID)
	}
	return sorted(ids)
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}
