// Package report is the model of a run's result: scenarios, steps,
// requirements, claims, passive findings and the IUT's liveness, as every
// reporter writes them and as diff and baseline read them back. It holds
// data only: nothing here talks to a broker.
package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Outcome grades a scenario, a step or a requirement.
type Outcome string

const (
	Pass  Outcome = "pass"
	Fail  Outcome = "fail"
	Warn  Outcome = "warn"  // a SHOULD not met
	Skip  Outcome = "skip"  // not in the claimed level, not selected, or not advertised by the IUT
	Error Outcome = "error" // the harness or transport failed: never blamed on the IUT
	// ExpectedFail is a failure (or warning, or error) that the --baseline
	// file records as a known deviation: it does not fail the run.
	ExpectedFail Outcome = "expected-fail"
)

// NotSelected is the message of a scenario skipped because --run (or a go
// test -run pattern) left it out: reports sum those up instead of listing
// each.
const NotSelected = "not selected by --run"

// Report is the full result of one run: what every writer renders.
type Report struct {
	Tool      string    `json:"tool"`
	Version   string    `json:"version"`
	Protocol  string    `json:"protocol"`
	Started   time.Time `json:"started"`
	Duration  Millis    `json:"duration_ms"`
	Level     string    `json:"level"`
	Strict    bool      `json:"strict"`
	Selection string    `json:"selection,omitempty"` // the --run expression
	// Fleet is set when several aghcheck processes played the run
	// together (run --fleet): this report is the fleet's.
	Fleet *FleetInfo `json:"fleet,omitempty"`
	// Readings are the other readings of documented errata the run judged
	// by (run --compat, --errata; docs/errata.md), in the order applied.
	Readings []string `json:"readings,omitempty"`
	// AdapterOwned names the requirements whose verdict comes from the
	// adapter's own code, not from the implementation it wraps (run
	// --owned-by-adapter); RequirementResult.Adapter marks each.
	AdapterOwned *AdapterOwned `json:"adapter_owned,omitempty"`
	Broker       BrokerInfo    `json:"broker"`
	IUT          IUTInfo       `json:"iut"`
	Summary      Summary       `json:"summary"`
	Claims       []ClaimResult `json:"claims"`
	// Requirements aggregates scenario outcomes per requirement id.
	Requirements []RequirementResult `json:"requirements"`
	Passive      PassiveResult       `json:"passive"`
	Scenarios    []*ScenarioResult   `json:"scenarios"`
	// Baseline is the --baseline file as applied to this run.
	Baseline *BaselineSummary `json:"baseline,omitempty"`
	// Error is set when the run could not be carried out (exit code 2).
	Error string `json:"error,omitempty"`
}

// Summary counts scenario outcomes and names the best claim earned.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
	// ExpectedFail and Stale count the --baseline entries that still hold
	// and those that no longer do.
	ExpectedFail int `json:"expected_fail,omitempty"`
	Stale        int `json:"stale,omitempty"`
	// Claim is the highest conformance claim earned ("none" when none).
	Claim string `json:"claim"`
	// Target is the claim the requested level asks for, and Passed whether
	// it was earned (the exit code follows it). With a baseline, Passed says
	// instead whether the run matched it: no new failure, no stale entry.
	Target string `json:"target"`
	Passed bool   `json:"passed"`
	// ScenarioTime is the sum of every scenario's own duration: compare it
	// with the run's wall time to see how much parallelism saved.
	ScenarioTime Millis `json:"scenario_time_ms"`
	// Incomplete is set when scenarios could not be played (the IUT did
	// not come back): their outcome is error, and no claim is earned.
	Incomplete bool `json:"incomplete,omitempty"`
	// Unplayed are the reasons scenarios could not be played, each once
	// ("the IUT died 11 times; --max-restarts 10 used up").
	Unplayed []string `json:"unplayed,omitempty"`
	// Latency is the IUT's reply latency over the whole run.
	Latency *Latency `json:"latency,omitempty"`
	// Load is how the IUT answered what scenarios published at once
	// (at_once steps, sends with copies) over the whole run.
	Load *Load `json:"load,omitempty"`
	// Repeat is how many times a run --repeat N played the suite against
	// the one IUT (absent for a run played once), and Unstable the ids
	// of the scenarios whose outcome differed between those runs: each
	// is an error of the harness, never a pass or fail of the IUT.
	Repeat   int      `json:"repeat,omitempty"`
	Unstable []string `json:"unstable,omitempty"`
}

// BrokerInfo says which broker carried the run.
type BrokerInfo struct {
	Embedded  bool   `json:"embedded"`
	URL       string `json:"url"`
	JetStream bool   `json:"jetstream"`
	// JetStreamReplicas is the replication of the run's stream (3 on a
	// cluster that can hold it).
	JetStreamReplicas int    `json:"jetstream_replicas,omitempty"`
	Workspace         string `json:"workspace_id"`
	Channel           string `json:"channel"`
	// Outages are the times the harness lost its broker connection.
	Outages []Outage `json:"outages,omitempty"`
	// Unconfined is set on an external broker: what the IUT's user may
	// publish and read there is the broker's business, not aghcheck's to
	// enforce (on the embedded broker the IUT is confined to the run's
	// subjects).
	Unconfined bool `json:"iut_unconfined,omitempty"`
}

// Outage is one loss of the harness's broker connection during the run.
// Times are since the run started; zero means it did not happen.
type Outage struct {
	Lost     Millis `json:"lost_at_ms"`
	Restored Millis `json:"restored_at_ms,omitempty"`
	// IUTGreeted is when the IUT greeted again after the reconnect.
	IUTGreeted Millis `json:"iut_greeted_at_ms,omitempty"`
	// Scenarios were in flight: their outcome is error (not judged).
	Scenarios []string `json:"scenarios,omitempty"`
}

// IUTInfo is what the run learned about the implementation under test.
type IUTInfo struct {
	Command []string       `json:"command,omitempty"`
	PeerID  string         `json:"peer_id"`
	Card    map[string]any `json:"peer_card,omitempty"`
	Greeted Millis         `json:"greeted_after_ms"`
	// JoinedBy is what the run first heard from the IUT: "greet", or
	// "whois" (an attached peer's answer to the harness's whois).
	JoinedBy string `json:"joined_by,omitempty"`
	// Initiation is how the IUT took the orders that make it open work
	// (docs/control-extension.md): "in band" or "at start-up"; empty when
	// it takes none, and the initiator scenarios were not played.
	Initiation string `json:"initiation,omitempty"`
	Exit       string `json:"exit,omitempty"` // how the process ended
	Crashed    bool   `json:"crashed,omitempty"`
	Stdout     string `json:"stdout,omitempty" sanitize:"lines"`
	Stderr     string `json:"stderr,omitempty" sanitize:"lines"`
	Messages   int    `json:"messages"` // envelopes (or bytes) it published during the run
	// Implementation and ImplementationVersion name what was certified,
	// for every report format and the self-certification record (see
	// Report.NameImplementation).
	Implementation        string `json:"implementation,omitempty"`
	ImplementationVersion string `json:"implementation_version,omitempty"`
	// Disconnects are the IUT's connections the embedded broker closed, in
	// its words ("Maximum Message Payload Exceeded").
	Disconnects []string `json:"disconnects,omitempty"`
	// Refused are the publishes and subscriptions the embedded broker
	// refused the IUT, confined to the run's subjects ("publish on
	// $JS.API.INFO").
	Refused []string `json:"refused,omitempty"`
	// Events are the IUT's deaths and returns, in order (see LifeEvent).
	Events []LifeEvent `json:"events,omitempty"`
	// Restarts is how often the harness started the IUT again.
	Restarts int `json:"restarts,omitempty"`
	// Killers are the scenarios that kill the IUT when played alone.
	Killers []Killer `json:"killers,omitempty"`
}

// Killer is a scenario that kills the IUT when played alone.
type Killer struct {
	Scenario string `json:"scenario"`
	Event    string `json:"event"` // exited, disconnected or deaf
	Cause    string `json:"cause"`
	Message  string `json:"message"`
	// Reproducer is the scenario file written for it (--repro-dir).
	Reproducer string `json:"reproducer,omitempty"`
}

// Latency is how long the IUT took to answer: from a scenario's send to
// the arrival of the envelope an expect step matched. It is reported,
// never judged.
type Latency struct {
	Count  int    `json:"count"`
	Median Millis `json:"median_ms"`
	P95    Millis `json:"p95_ms"`
	Max    Millis `json:"max_ms"`
}

// UntestedPrefix starts each reason of a claim's Why that names one MUST
// requirement no scenario exercised.
const UntestedPrefix = "untested: "

// FleetInfo names the fleet of aghcheck processes that played a run
// together: how many were to, how many reported, and what kept one out.
type FleetInfo struct {
	Name    string   `json:"name"`
	Size    int      `json:"size"`
	Members int      `json:"members"` // whose verdicts this report folds
	Notes   []string `json:"notes,omitempty"`
}

// Load is the IUT's throughput and latency under concurrent load: what
// it answered to the messages published at once (a burst: an at_once
// step, or a send with copies). An answer is an envelope of the IUT that
// names a message of the burst (for_id, causation_id, reply_to) or its
// work (work_id), arriving after the burst. It is reported, never judged.
type Load struct {
	Bursts   int `json:"bursts"`
	Messages int `json:"messages"` // published in the bursts, copies counted
	Answers  int `json:"answers"`
	// PerSecond is answers per second while the IUT answered a burst:
	// Answers over the summed time from each burst to its last answer.
	PerSecond float64 `json:"answers_per_second"`
	// Latency is from a burst's publication to each of its answers.
	Latency *Latency `json:"latency,omitempty"`
	// Spans are the time from each burst to its last answer, and Delays
	// every answer's latency (for the run's figure).
	Spans  []time.Duration `json:"-"`
	Delays []time.Duration `json:"-"`
}

// ClaimResult is one conformance claim and whether it was earned.
type ClaimResult struct {
	Name   string `json:"name"`
	Earned bool   `json:"earned"`
	// Why explains a claim not earned: failing scenarios, untested requirements.
	Why []string `json:"why,omitempty"`
	// Unexercised lists MUST requirements of the claim that only scenarios
	// driving the IUT through the aghcheck.control/v1 test extension can
	// reach, for an IUT that does not advertise it. They are not counted as
	// passed; they are not held against a peer that lacks a test-only
	// extension either. The claim is earned with this caveat.
	Unexercised []string `json:"unexercised,omitempty"`
	// UnexercisedInitiator lists MUST requirements of the claim that only
	// the initiator scenarios reach, for an IUT that takes no initiation
	// orders (neither in band nor at start-up). Like Unexercised, they are
	// neither passed nor held against the claim, which is earned with this
	// caveat.
	UnexercisedInitiator []string `json:"unexercised_initiator,omitempty"`
	// Unobserved lists MUST requirements of the claim that only silences
	// check, where nothing later showed the IUT was listening because it
	// did not offer a SHOULD behaviour (a whois answer, say). Silence proves
	// nothing then: they are not counted as passed, and not held against
	// the claim either, since only a SHOULD was missed.
	Unobserved []string `json:"unobserved,omitempty"`
	// Exercised lists every requirement the claim's scenarios cite that
	// the run judged (a step checked it, its scenario was played through,
	// or passive validation found it broken), passed or not.
	Exercised []string `json:"exercised"`
	// NotExercised lists the claim's other requirements, each with why the
	// run did not judge it.
	NotExercised []RequirementGap `json:"not_exercised"`
}

// RequirementGap is a requirement of a claim that the run did not
// exercise, and why: its scenarios were skipped (not selected, not in the
// level, a profile, trust mode or JetStream the run lacked), only uncredited
// silences checked it, it is optional and was not offered, or the
// scenario stopped before reaching it.
type RequirementGap struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Reason string `json:"reason"`
}

// AdapterOwned is the --owned-by-adapter file as applied to a run.
type AdapterOwned struct {
	File         string             `json:"file"`
	Adapter      string             `json:"adapter"`
	Requirements []OwnedRequirement `json:"requirements"`
}

// OwnedRequirement is one requirement whose verdict is the adapter's.
type OwnedRequirement struct {
	ID  string `json:"id"`
	Why string `json:"why"`
}

// RequirementResult is one requirement id across the scenarios citing it,
// graded from the steps that check it (and passive validation).
type RequirementResult struct {
	ID        string   `json:"id"`
	Level     string   `json:"level"`
	Outcome   Outcome  `json:"outcome"` // skip means untested
	Scenarios []string `json:"scenarios"`
	// Adapter, when set, says why the verdict is the adapter's own code's,
	// not the implementation's (Report.AdapterOwned).
	Adapter string `json:"adapter,omitempty"`
	RuleText
}

// AdapterWhy is why requirement id's verdict is the adapter's ("" when it
// is the implementation's, or no adapter file was given).
func (r *Report) AdapterWhy(id string) string {
	if r.AdapterOwned == nil {
		return ""
	}
	for _, o := range r.AdapterOwned.Requirements {
		if o.ID == id {
			return o.Why
		}
	}
	return ""
}

// PassiveResult is the passive validation of everything the IUT published.
type PassiveResult struct {
	Outcome   Outcome `json:"outcome"`
	Envelopes int     `json:"envelopes"`
	Invalid   int     `json:"invalid"`
	// Charged counts the envelopes with findings a scenario's exchange
	// caused (PassiveFinding.Scenarios names them).
	Charged  int               `json:"charged,omitempty"`
	Flooded  bool              `json:"flooded,omitempty"`
	Dropped  int               `json:"dropped,omitempty"` // messages the broker dropped for the harness
	Findings []PassiveFinding  `json:"findings,omitempty"`
	Samples  []*ExchangedEntry `json:"samples,omitempty"` // the first offending messages
}

// RuleText is what every report says of a rule a finding or a failing step
// names: its clause, where the pages state it, and the other readings of
// an erratum (docs/errata.md) that change its verdict, by --errata flag
// (catalogue.Text gives it, from the one catalogue).
type RuleText struct {
	Clause string           `json:"clause,omitempty"`
	Source string           `json:"source,omitempty"`
	Errata []ErratumReading `json:"errata,omitempty"`
}

// ErratumReading is the other reading of an erratum that changes a rule's
// verdict: the erratum ("erratum 3") and the flag that applies the
// reading (--errata null-as-absent).
type ErratumReading struct {
	Erratum string `json:"erratum"`
	Flag    string `json:"flag"`
}

// PassiveFinding is one broken rule, counted over every IUT envelope.
type PassiveFinding struct {
	Rule    string `json:"rule"`
	Level   string `json:"level"`
	Count   int    `json:"count"`
	Example string `json:"example"`
	// RunWide marks a finding about the IUT's traffic as a whole (a
	// flood, a publish the broker refused), not about envelopes it sent.
	RunWide bool `json:"run_wide,omitempty"`
	// Scenarios are the scenarios whose exchange caused the envelopes
	// with this finding (not their receiver verdict's: the defect is the
	// sender's, counted here once).
	Scenarios []string `json:"scenarios,omitempty"`
	// Baseline is the --baseline entry naming this rule (passive:RULE).
	Baseline *BaselineMark `json:"baseline,omitempty"`
	RuleText
}

// ScenarioResult is one scenario's outcome with everything needed to see why.
type ScenarioResult struct {
	ID           string            `json:"id"`
	Title        string            `json:"title"`
	Suite        string            `json:"suite"`
	File         string            `json:"file"`
	Line         int               `json:"line,omitempty"` // where in File the scenario starts
	Level        string            `json:"level"`
	Claim        string            `json:"claim"`
	Requirements []string          `json:"requirements"`
	Outcome      Outcome           `json:"outcome"`
	Message      string            `json:"message,omitempty"`
	Notes        []string          `json:"notes,omitempty"`
	Duration     Millis            `json:"duration_ms"`
	Peers        map[string]string `json:"peers,omitempty"` // test peer name → peer id
	Steps        []StepResult      `json:"steps,omitempty"`
	Exchanged    []*ExchangedEntry `json:"exchanged,omitempty"`
	// Baseline is the --baseline entry naming this scenario.
	Baseline *BaselineMark `json:"baseline,omitempty"`
	// Latency is the IUT's reply latency in this scenario.
	Latency *Latency `json:"latency,omitempty"`
	// Load is how the IUT answered what this scenario published at once.
	Load *Load `json:"load,omitempty"`
	// Killed marks a scenario that kills the IUT when played alone.
	Killed bool `json:"killed_iut,omitempty"`
	// Runs are the outcomes of each run of a --repeat run, in order.
	Runs []Outcome `json:"runs,omitempty"`
	// StrictFail marks a failure that is only --strict's: without it the
	// scenario warns (a baseline's warn entry still holds for it).
	StrictFail bool `json:"strict_fail,omitempty"`
	// SenderFindings are what the IUT sent in this scenario's exchange
	// that breaks a sender rule: charged to Core Sender, once, here (not
	// to the scenario's own claim, and not again among the passive
	// findings).
	SenderFindings []PassiveFinding `json:"sender_findings,omitempty"`
	// ProvenBy are the built-in faults of aghcheck peer that fail this
	// scenario: the proof that its pass could have failed.
	ProvenBy []string `json:"proven_by,omitempty"`
	// Readings are the other readings of errata that changed how this
	// scenario judges (Report.Readings): it was played in their form.
	Readings []string `json:"readings,omitempty"`

	// What follows is the harness's bookkeeping while it grades a run,
	// not part of the report.

	// Unplayed marks a scenario the run could not play (the IUT gone).
	Unplayed bool `json:"-"`
	// Replies are the reply times behind Latency (for the run's figure).
	Replies []time.Duration `json:"-"`
	// Checked is every requirement some expect or expect_silence step of
	// the scenario checks (nil when it was not played): the others are
	// judged by the scenario as a whole and by passive validation.
	Checked map[string]bool `json:"-"`
}

// Statuses of a baseline entry in a run.
const (
	BaselineExpected = "expected" // fell short exactly as recorded
	BaselineStale    = "stale"    // passes now, or falls short differently: the entry must change
	BaselineUnjudged = "unjudged" // skipped, errored or not run: neither confirmed nor stale
)

// BaselineMark is what a --baseline entry says about a scenario or a
// passive finding, and how the run compares with it.
type BaselineMark struct {
	Status   string  `json:"status"`
	Recorded Outcome `json:"recorded"` // the outcome the entry records
	Actual   Outcome `json:"actual"`   // the outcome the run had
	Reason   string  `json:"reason"`   // an erratum id or an issue link
}

// BaselineSummary is the --baseline file as applied to the run.
type BaselineSummary struct {
	File     string   `json:"file"`
	Entries  int      `json:"entries"`
	Expected int      `json:"expected"`
	Stale    []string `json:"stale,omitempty"` // ids of entries that no longer hold
	// Retired are the stale entries naming no scenario or rule at all
	// (removed or renamed): nothing can show their deviation any more.
	Retired  []string `json:"retired,omitempty"`
	Unjudged []string `json:"unjudged,omitempty"` // ids of entries this run could not judge
	// New are the failures, errors and warnings the file does not record
	// (scenario ids, passive:RULE-ID): each fails the run.
	New []string `json:"new,omitempty"`
}

// StepResult is one step's outcome.
type StepResult struct {
	Index    int     `json:"index"`
	Kind     string  `json:"kind"`
	Outcome  Outcome `json:"outcome"`
	Message  string  `json:"message,omitempty"`
	Duration Millis  `json:"duration_ms"`
	// Level is what a failure of the step means (MUST fails the scenario,
	// SHOULD warns), the level of the requirements in Checks.
	Level  string   `json:"level,omitempty"`
	Checks []string `json:"checks,omitempty"`
	// Expected is the rendered pattern list of an expect or silence step.
	Expected []map[string]any `json:"expected,omitempty"`
	// Arrived describes the envelopes that came instead (on failure).
	Arrived []string `json:"arrived,omitempty"`
}

// ExchangedEntry is one message on the wire, in the order seen.
type ExchangedEntry struct {
	At        Millis          `json:"at_ms"`     // since the run started
	Direction string          `json:"direction"` // sent (by a test peer) or received (from the IUT)
	Peer      string          `json:"peer,omitempty"`
	Subject   string          `json:"subject"`
	Envelope  json.RawMessage `json:"envelope,omitempty"` // when the bytes are JSON
	Raw       string          `json:"raw,omitempty"`      // otherwise, quoted
	Findings  []string        `json:"findings,omitempty"`
}

// Millis is a duration rendered as fractional milliseconds in JSON.
type Millis time.Duration

func (m Millis) MarshalJSON() ([]byte, error) {
	return json.Marshal(float64(time.Duration(m).Microseconds()) / 1000)
}

// UnmarshalJSON reads what MarshalJSON wrote, so a JSON report reads back
// (aghcheck diff).
func (m *Millis) UnmarshalJSON(b []byte) error {
	var ms float64
	if err := json.Unmarshal(b, &ms); err != nil {
		return err
	}
	*m = Millis(time.Duration(ms * float64(time.Millisecond)))
	return nil
}

// D is m as a time.Duration.
func (m Millis) D() time.Duration { return time.Duration(m) }

// UnstableLine is the one line that sums up the scenarios whose outcome
// differed between the runs of a --repeat run ("" for a run played once).
func (s Summary) UnstableLine() string {
	if s.Repeat < 2 {
		return ""
	}
	if len(s.Unstable) == 0 {
		return fmt.Sprintf("stable: every scenario had the same outcome on all %d runs", s.Repeat)
	}
	names := s.Unstable
	more := ""
	if len(names) > 8 {
		names, more = names[:8], fmt.Sprintf(" and %d more", len(s.Unstable)-8)
	}
	what := "scenario"
	if len(s.Unstable) > 1 {
		what = "scenarios"
	}
	return fmt.Sprintf("unstable: %d %s differed between the %d runs (errors of the harness, not verdicts): %s%s",
		len(s.Unstable), what, s.Repeat, strings.Join(names, ", "), more)
}
