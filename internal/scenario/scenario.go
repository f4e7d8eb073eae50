// Package scenario holds the conformance scenario format: YAML files of
// scenarios, each a list of steps (send, expect, expect_silence, wait) played
// by named test peers at the implementation under test. It loads and checks
// files, renders templates and matches received envelopes against patterns.
package scenario

import (
	"encoding/json"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/control"
	"strings"
	"time"
)

// File is one YAML file: a list of scenarios sharing a suite.
type File struct {
	// Suite groups the scenarios in reports (core/envelope, trust, nats…);
	// it defaults to the file's directory.
	Suite     string      `json:"suite,omitempty"`
	Scenarios []*Scenario `json:"scenarios"`
}

// Scenario is one conformance test.
type Scenario struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  string   `json:"description,omitempty"`
	Requirements []string `json:"requirements"`
	Level        string   `json:"level"` // MUST, SHOULD or MAY
	Claim        string   `json:"claim"` // see Claims
	Requires     Requires `json:"requires,omitempty"`
	// Greet, when false, keeps the test peers from greeting before the
	// first send: the scenario needs peers the IUT has never seen.
	Greet   *bool    `json:"greet,omitempty"`
	Peers   []Peer   `json:"peers,omitempty"`
	Timeout Duration `json:"timeout,omitempty"`
	Steps   []Step   `json:"steps"`
	// Readings are the scenario's forms under other readings of a
	// documented erratum (docs/errata.md), by the reading's name: under
	// aghcheck run --errata NAME (or a --compat that includes it) the
	// scenario is played and judged in that form instead (Under).
	Readings map[string]*Form `json:"readings,omitempty"`

	// JudgedBy names the readings that changed the scenario from its
	// default form (Under, Reread): reports say which judged it.
	JudgedBy []string `json:"-"`

	Suite  string `json:"-"` // filled by the loader
	File   string `json:"-"` // where the scenario was read from
	Line   int    `json:"-"` // where in File it starts (1-based)
	Column int    `json:"-"`
}

// Form is a scenario as another reading of an erratum judges it: what it
// gives replaces the scenario's own (steps always; title, description,
// requirements and level when given); id, claim, gates and peers stay.
type Form struct {
	Title        string   `json:"title"`
	Description  string   `json:"description,omitempty"`
	Requirements []string `json:"requirements,omitempty"`
	Level        string   `json:"level,omitempty"`
	Steps        []Step   `json:"steps"`
}

// Requires gates a scenario on what the IUT advertises or the broker offers;
// an unmet gate is a skip, never a failure.
type Requires struct {
	Profile   string `json:"profile,omitempty"`    // in the Peer Card's profiles_supported
	TrustMode string `json:"trust_mode,omitempty"` // in trust_modes_supported
	JetStream bool   `json:"jetstream,omitempty"`
	// JoinGreet needs the greet the IUT sends when it joins, which only a
	// run that starts the IUT (--iut) sees; an attached peer (--iut-peer)
	// joined before the run.
	JoinGreet bool `json:"join_greet,omitempty"`
}

// Peer is a test peer the harness plays. Its id is fresh per run: name plus
// a random suffix, or nickname@fingerprint of a fresh Ed25519 key when Key.
type Peer struct {
	Name string `json:"name"`
	Key  bool   `json:"key,omitempty"`
}

// UnmarshalJSON accepts a bare name as shorthand for {name: NAME}.
func (p *Peer) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		p.Name = s
		return nil
	}
	type plain Peer
	return json.Unmarshal(b, (*plain)(p))
}

// Step is exactly one of its fields.
type Step struct {
	Send *Send `json:"send,omitempty"`
	// AtOnce publishes every send it lists (and each send's copies) in
	// one burst, back to back: the IUT reads them together, in an order no
	// one chooses (docs/scenarios.md, "Publishing at once").
	AtOnce []Send `json:"at_once,omitempty"`
	// Initiate asks the IUT to open work with a test peer, as its
	// initiator (docs/control-extension.md, "Initiation").
	Initiate      *Initiate `json:"initiate,omitempty"`
	Expect        *Expect   `json:"expect,omitempty"`
	ExpectSilence *Silence  `json:"expect_silence,omitempty"`
	Wait          Duration  `json:"wait,omitempty"`
	// Disconnect names whose broker connection the harness drops: "iut"
	// (the only value), through the embedded broker. A scenario with such
	// a step runs alone (see Alone).
	Disconnect string `json:"disconnect,omitempty"`
	// Checks names what an expect or expect_silence step checks: cited
	// requirement ids of one level, or Listening. See Scenario.Grading.
	Checks Checks `json:"checks,omitempty"`
	// Level, when given, must be the level of what the step checks.
	Level string `json:"level,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Listening in a step's checks marks an expect step whose only point is
// to show that the IUT still serves the scenario's traffic: it grades no
// requirement, but a silence before it earns credit only through it (or
// another expect step that passes after the silence).
const Listening = "listening"

// Checks is a list of requirement ids; a file may give one as a bare
// string.
type Checks []string

// UnmarshalJSON accepts a bare id as shorthand for a one-id list.
func (c *Checks) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = Checks{s}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(c))
}

// Kind names the step's action.
func (s *Step) Kind() string {
	switch {
	case s.AtOnce != nil:
		return "at_once"
	case s.Send != nil:
		return "send"
	case s.Initiate != nil:
		return "initiate"
	case s.Expect != nil:
		return "expect"
	case s.ExpectSilence != nil:
		return "expect_silence"
	case s.Disconnect != "":
		return "disconnect"
	default:
		return "wait"
	}
}

// Initiate is an initiation order (control.Order) as a scenario writes it:
// To names a test peer, whose id the harness puts in the order. In band, the
// order goes to the IUT in a control request sent by From (default the
// first peer); at start-up it is in the IUT's orders file and carried out
// when To greets, which its test peers do at this step.
type Initiate struct {
	From string `json:"from,omitempty"`
	// Order is the order as written: its To is a test peer's name
	// (default the first), which Order resolves to that peer's id.
	control.Order
}

// Initiates reports whether the scenario asks the IUT to open work: it is
// played only for an IUT that takes initiation orders.
func (s *Scenario) Initiates() bool {
	for i := range s.Steps {
		if s.Steps[i].Initiate != nil {
			return true
		}
	}
	return false
}

// Send publishes one message from a test peer.
type Send struct {
	From string `json:"from,omitempty"` // test peer name; default the first
	// To is "iut" (directed: to = IUT id, published on its peer subject),
	// "broadcast" (to = null, broadcast subject) or a test peer name.
	To string `json:"to,omitempty"`
	// Subject overrides where the bytes are published (templated).
	Subject   string         `json:"subject,omitempty"`
	Envelope  map[string]any `json:"envelope,omitempty"`
	Raw       *string        `json:"raw,omitempty"`        // exact bytes, templated
	RawBase64 string         `json:"raw_base64,omitempty"` // exact bytes, for invalid UTF-8
	Sign      bool           `json:"sign,omitempty"`       // sign with the peer's key
	Digest    bool           `json:"digest,omitempty"`     // fill body.capability.digest
	Tamper    map[string]any `json:"tamper,omitempty"`     // merged after signing
	Drop      []string       `json:"drop,omitempty"`       // top-level members removed after defaults
	JetStream bool           `json:"jetstream,omitempty"`  // publish through JetStream and require its ack
	Repeat    int            `json:"repeat,omitempty"`     // publish the same bytes this many times, one after another
	// Copies publishes the same bytes this many times at once, in one
	// burst (a duplicate delivery in flight, not a retry after the first
	// was handled; through JetStream, no acknowledgement awaited between
	// them). A send with copies plays as an at_once step of that one send.
	Copies int `json:"copies,omitempty"`
	// Reply is a NATS reply subject (templated) sent with the message, as
	// a request-reply client would: the binding lets peers use it, never
	// instead of the envelope's own correlation.
	Reply string `json:"reply,omitempty"`
}

// Expect waits for an envelope from the IUT that matches.
type Expect struct {
	// On is where it must arrive: a test peer name (that peer's subject,
	// the default is the first peer), "broadcast", or "subject:RAW".
	On      string            `json:"on,omitempty"`
	Match   map[string]any    `json:"match,omitempty"`
	AnyOf   []map[string]any  `json:"any_of,omitempty"`
	Timeout Duration          `json:"timeout,omitempty"`
	Capture map[string]string `json:"capture,omitempty"` // name → JSON pointer
	// Before, a step number (from 1) of an earlier expect step, judges
	// order instead of time: the match must have arrived before the
	// envelope that step matched (its answer is the proof the IUT had
	// processed what came before). Nothing is waited for.
	Before int `json:"before,omitempty"`
	// Unobservable names what shows, instead of the expected envelope,
	// that the behaviour the rest of the scenario judges cannot be seen
	// with this IUT: the scenario then ends as skip, never as a pass.
	Unobservable *Unobservable `json:"unobservable,omitempty"`
	// NeedsEnd says why what the scenario judges needs the work the step
	// waits on to reach the state the step waits for (an end, or a pause),
	// which the IUT reaches at its own pace: the protocol defines no
	// global work timeout. When the ceiling passes with the work only ever
	// reported in other, active states, and the IUT still answers fresh
	// work sent then, the scenario is not observable for that IUT (skip),
	// never failed.
	NeedsEnd string `json:"needs_end,omitempty"`
}

// Work is the work_id every pattern of the step names literally ("" when
// they name none, or not the same one).
func (e *Expect) Work() string {
	work := ""
	for i, p := range e.Patterns() {
		w, _ := p["work_id"].(string)
		if w == "" || (i > 0 && w != work) {
			return ""
		}
		work = w
	}
	return work
}

// Unobservable is the way out of an expect step: an envelope from the IUT
// that matches one of AnyOf (where the step looks) while none matches the
// step's own patterns skips the rest of the scenario, saying Because.
// Only an answer says so, never the passing of time: a ceiling ends what
// can no longer succeed, and a correct peer's silence is no such proof.
type Unobservable struct {
	Because string           `json:"because"`
	AnyOf   []map[string]any `json:"any_of"`
}

// Patterns is Match and AnyOf as one list of alternatives.
func (e *Expect) Patterns() []map[string]any {
	var out []map[string]any
	if e.Match != nil {
		out = append(out, e.Match)
	}
	return append(out, e.AnyOf...)
}

// Silence passes when nothing (matching) arrives within the window.
type Silence struct {
	On     string           `json:"on,omitempty"` // as Expect.On; "any" for every subject
	Window Duration         `json:"window,omitempty"`
	Match  map[string]any   `json:"match,omitempty"`
	AnyOf  []map[string]any `json:"any_of,omitempty"`
}

// Patterns is Match and AnyOf as one list ([] means anything).
func (s *Silence) Patterns() []map[string]any {
	var out []map[string]any
	if s.Match != nil {
		out = append(out, s.Match)
	}
	return append(out, s.AnyOf...)
}

// Duration is a time.Duration written as "300ms", "2s".
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"300ms\": %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("bad duration %q", s)
	}
	*d = Duration(v)
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// Claims a scenario can count toward, with their display names.
var Claims = map[string]string{
	"core-sender":   "Core Sender",
	"core-receiver": "Core Receiver",
	"trust":         "Trust Peer",
	"nats":          "NATS Peer",
	"jetstream":     "JetStream (optional)",
}

// Levels a scenario can have.
var Levels = []string{"MUST", "SHOULD", "MAY"}

// Alone reports whether the scenario must run with no other in flight:
// it drops the IUT's connection, which would lose other scenarios'
// traffic through no fault of the IUT.
func (sc *Scenario) Alone() bool {
	for _, st := range sc.Steps {
		if st.Disconnect != "" {
			return true
		}
	}
	return false
}

// Greets reports whether the test peers greet before the first send.
func (sc *Scenario) Greets() bool { return sc.Greet == nil || *sc.Greet }

// PeerName reports whether s is a usable test-peer name (it becomes the
// start of a Peer ID or a trust nickname).
func PeerName(s string) bool {
	if s == "" || len(s) > 24 || s == "iut" || s == "broadcast" || s == "any" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "_")
}
