package fuzz

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/fixtures"
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// familyFile is the template of the receiver family, whose steps judge
// every mutant a receiver must refuse: the fuzzer plays such a mutant
// exactly as aghcheck run plays an invalid fixture.
const familyFile = "receiver.family.yaml"

// testPeer is the family's test peer, the sender of every mutant.
const testPeer = "tester"

// A seed is a valid envelope the generator starts from: a fixture of
// fixtures/agh/valid placed where the receiver family plays a message of
// its kind (directed work to the IUT, a whois to it, a greet on the
// broadcast subject...), its identities made templates, optionally signed.
type seed struct {
	name string // the fixture's name, "-signed" for the signed copy
	kind string
	send scenario.Send
	sign bool
}

// work reports whether the IUT takes the seed as work (a directed say or
// capability that opens a work unit): acceptance then shows.
func (s *seed) work() bool {
	env := s.send.Envelope
	_, container := agh.Container(env)
	return (s.kind == agh.KindSay || s.kind == agh.KindCapability) && agh.Str(env, "work_id") != "" && container != "" && s.send.To == "iut"
}

// whois reports whether the seed is a directed whois request (answered
// with a whois response).
func (s *seed) whois() bool {
	body, _ := agh.BodyOf(s.send.Envelope)
	return s.kind == agh.KindWhois && body["type"] == "request" && s.send.To == "iut"
}

// loadSeeds places every valid fixture as the family says, and, when
// signed is set (the IUT takes verified senders), a signed copy of each
// seed the IUT answers.
func loadSeeds(fam *scenario.Family, signed bool) ([]seed, error) {
	files, err := fs.Glob(fixtures.FS(), "agh/valid/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []seed
	for _, file := range files {
		raw, err := fs.ReadFile(fixtures.FS(), file)
		if err != nil {
			return nil, err
		}
		v, _, ok := jsonx.Decode(raw)
		fix, isObj := v.(map[string]any)
		if !ok || !isObj {
			return nil, fmt.Errorf("%s: not an envelope", file)
		}
		send, err := fam.Seed(fix)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		s := seed{name: strings.TrimSuffix(path.Base(file), ".json"), kind: agh.Str(fix, "kind"), send: send}
		if s.kind == agh.KindCapability {
			// Mutated capability members get their digest again, so that
			// only a mutated digest breaks it.
			s.send.Digest = true
		}
		out = append(out, s)
		if signed && (s.work() || s.whois()) {
			sg := s
			sg.name += "-signed"
			sg.sign, sg.send.Sign = true, true
			sg.send.Envelope = jsonx.Copy(s.send.Envelope).(map[string]any)
			out = append(out, sg)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no valid fixtures to start from")
	}
	return out, nil
}

// loadFamily reads the receiver family's template from the embedded suites.
func loadFamily() (*scenario.Family, error) {
	return scenario.LoadFamily(suites.FS(), familyFile)
}
