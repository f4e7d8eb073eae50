// Package aghtest runs aghcheck's conformance suites from a Go test, in the
// spirit of testing/fstest.TestFS and testing/slogtest: an implementer of
// AGH Network v0 calls one function from a test of their own.
//
//	func TestConformance(t *testing.T) {
//		aghtest.TestPeer(t, aghtest.Config{Command: []string{"./bin/my-agent", "--join"}})
//	}
//
// Every scenario is a subtest named by its id, so `go test -run
// 'TestConformance/delivery'` plays the delivery scenarios alone. The
// broker is an embedded nats-server inside the test binary; the
// implementation under test is started as a command (given the broker and
// the run's settings in its environment, as `aghcheck run --iut` gives
// them) or by a start function of the test's own (Config.Start), for a
// peer that runs in the test process. A failing scenario fails its subtest
// with the same text `aghcheck run` prints for it; a SHOULD not met is
// logged (t.Log) unless Config.Strict; passive validation of everything
// the peer published is the subtest "passive".
package aghtest

import (
	"context"
	"errors"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/iutenv"

	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/buildinfo"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/reporter"
)

// Config says what TestPeer certifies, and how.
type Config struct {
	// Command starts the implementation under test: a program and its
	// arguments (no shell), found on PATH like exec.Command does. It gets
	// the broker and the run's settings in its environment (AGH_NATS_URL,
	// AGH_NATS_TOKEN, AGH_WORKSPACE_ID, AGH_CHANNEL, AGH_PEER_ID; see
	// docs/harness.md) plus Env, and is stopped when the run ends.
	Command []string
	// Env is more environment for Command (KEY=VALUE).
	Env []string
	// Start, instead of Command, starts a peer the test runs itself (in
	// this process, or a process it manages). It is called once the broker
	// is up, must return once the peer is started (its greet identifies
	// it), and returns the function that stops it: the run calls that when
	// it ends.
	Start func(s Settings) (stop func(), err error)

	// Level is the claim the run aims at: core-sender, core-receiver, core,
	// trust, nats or full (default full).
	Level string
	// Strict makes a SHOULD not met fail its subtest (default: t.Log).
	Strict bool
	// Run, a regular expression, plays only the scenarios whose id it
	// matches (like aghcheck run --run); go test -run selects too.
	Run string
	// Suites are directories of scenario files played besides the built-in
	// suites (NoBuiltin: instead of them).
	Suites    []string
	NoBuiltin bool
	// Baseline is a file of known deviations (aghcheck run --baseline): a
	// scenario it records is logged, not failed; one that no longer falls
	// short as recorded fails the test (the entry is stale).
	Baseline string
	// Compat judges by every reading of a documented erratum that the
	// runtime named implements ("reference": aghcheck run --compat
	// reference), Errata by each reading named (--errata NAME).
	Compat string
	Errata []string
	// OwnedByAdapter is a file naming the requirements whose verdict
	// comes from an adapter's own code (aghcheck run --owned-by-adapter):
	// the JSON report marks them.
	OwnedByAdapter string

	// Implementation and ImplementationVersion name what is certified in
	// the messages and the JSON report (default: its Peer Card's).
	Implementation, ImplementationVersion string
	// ReportJSON, when set, is where the run's JSON report is written (the
	// input of aghcheck diff).
	ReportJSON string
	// Verbose shows envelopes whole in failure messages.
	Verbose bool

	// Timeouts, as aghcheck run's flags (zero: its defaults).
	Timeout, StepTimeout, GreetTimeout time.Duration
}

// Settings are what a started peer needs to join the run: the embedded
// broker and its credentials (a token, or on the embedded broker a user and
// password of the peer's own, confined to the run's subjects), the
// workspace and channel, and the peer id suggested for it.
type Settings struct {
	NATSURL, Token     string
	User, Password     string
	Workspace, Channel string
	PeerID             string // a suggestion: the peer's greet says which id it took
	// Orders is the start-up file of initiation orders (AGH_INITIATE):
	// the work the peer is asked to open as initiator, each when its
	// target greets (docs/control-extension.md, "Initiation"). A peer that
	// carries them out lists aghcheck.initiate/v1 in its Peer Card.
	Orders string
	Env    []string
}

func settingsOf(env []string) Settings {
	e := iutenv.Parse(env)
	return Settings{NATSURL: e.URL, Token: e.Token, User: e.User, Password: e.Password, Workspace: e.Workspace, Channel: e.Channel, PeerID: e.PeerID, Orders: e.Initiate, Env: env}
}

// run is one TestPeer: the scenarios its subtests select, then the result.
type run struct {
	cfg   Config
	plan  *harness.Plan
	known *baseline.Baseline

	mu       sync.Mutex
	selected []string

	done chan struct{} // closed when rep and err are set
	rep  *report.Report
	text reporter.Sections // rep's text report, by section
	err  error
	news map[string]bool // scenario ids the baseline does not record
	// warnings are what planning had to say (a baseline entry without a
	// reason), logged on the parent test.
	warnings []string
}

// TestPeer plays the conformance suites at the implementation cfg names,
// each scenario a subtest of t named by its id. The subtests are parallel:
// TestPeer returns at once, and they report when the run, which plays
// exactly the scenarios selected, is over.
func TestPeer(t *testing.T, cfg Config) {
	t.Helper()
	r, err := newRun(cfg)
	if err != nil {
		t.Fatalf("aghtest: %v", err)
	}
	for _, sc := range r.plan.Scenarios() {
		why := r.plan.LeftOut(sc)
		if why == "--run" {
			continue // Config.Run: not even a subtest
		}
		t.Run(sc.ID, func(st *testing.T) {
			if why != "" {
				st.Skipf("not played: claim %s is not part of level %s", sc.Claim, r.plan.Level())
			}
			r.choose(sc.ID)
			st.Parallel()
			<-r.done
			r.reportScenario(st, sc.ID)
		})
	}
	t.Run("passive", func(st *testing.T) {
		st.Parallel()
		<-r.done
		r.reportPassive(st)
	})
	// A filtered-out subtest never ran: the selection is known now.
	go r.play(t.Context())
	t.Cleanup(func() {
		<-r.done
		r.reportRun(t)
	})
}

// optionNames are the Config fields that carry the options aghcheck run
// takes as flags: a refused option is named as the test wrote it.
var optionNames = map[string]string{
	"run": "Config.Run", "level": "Config.Level", "suite": "Config.Suites", "baseline": "Config.Baseline",
	"compat": "Config.Compat", "errata": "Config.Errata", "owned-by-adapter": "Config.OwnedByAdapter",
	"iut": "Config.Command", "timeout": "Config.Timeout", "step-timeout": "Config.StepTimeout",
}

func newRun(cfg Config) (*run, error) {
	if (len(cfg.Command) > 0) == (cfg.Start != nil) {
		return nil, errors.New("give exactly one of Config.Command and Config.Start")
	}
	o := harness.Options{
		Target: harness.Target{Command: cfg.Command, Env: cfg.Env, MaxRestarts: harness.DefaultMaxRestarts,
			StepTimeout: cfg.StepTimeout, GreetTimeout: cfg.GreetTimeout, Version: buildinfo.Version()},
		NoBuiltin: cfg.NoBuiltin, Suites: cfg.Suites, Run: cfg.Run, Level: cfg.Level, Strict: cfg.Strict,
		Timeout: cfg.Timeout, Baseline: cfg.Baseline, Compat: cfg.Compat, Errata: cfg.Errata, OwnedByAdapter: cfg.OwnedByAdapter,
		Implementation: cfg.Implementation, ImplementationVersion: cfg.ImplementationVersion,
	}
	if cfg.Start != nil {
		o.Start = func(env []string) (func(), error) { return cfg.Start(settingsOf(env)) }
	}
	r := &run{cfg: cfg, done: make(chan struct{})}
	var warnings []string
	o.Warn = func(s string) { warnings = append(warnings, s) }
	plan, err := o.Plan()
	var oe *harness.OptionError
	if errors.As(err, &oe) {
		if name, ok := optionNames[oe.Option]; ok {
			return nil, fmt.Errorf("%s: %w", name, oe.Err)
		}
	}
	if err != nil {
		return nil, err
	}
	r.plan, r.known, r.warnings = plan, plan.Baseline(), warnings
	return r, nil
}

func (r *run) choose(id string) {
	r.mu.Lock()
	r.selected = append(r.selected, id)
	r.mu.Unlock()
}

// play runs exactly the selected scenarios (none: nothing starts).
func (r *run) play(ctx context.Context) {
	defer close(r.done)
	r.mu.Lock()
	ids := slices.Clone(r.selected)
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	// A run of every scenario of the level can earn a claim; a narrowed
	// one (Config.Run, go test -run) cannot, as with aghcheck run --run.
	r.plan.Only(ids)
	rep, err := r.plan.Run(ctx)
	if rep == nil {
		r.err = err
		return
	}
	if r.known != nil {
		r.news = map[string]bool{}
		for _, id := range rep.Baseline.New {
			r.news[id] = true
		}
	}
	r.rep, r.err = rep, err
	r.text = reporter.TextSections(rep, r.cfg.Verbose)
	if r.cfg.ReportJSON != "" {
		r.err = errors.Join(r.err, r.writeJSON(rep))
	}
}

func (r *run) writeJSON(rep *report.Report) error {
	f, err := report.Create(r.cfg.ReportJSON)
	if err != nil {
		return fmt.Errorf("Config.ReportJSON: %w", err)
	}
	w, err := reporter.Run.New("json", f, reporter.Options{})
	if err == nil {
		err = w.Finish(rep)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("Config.ReportJSON: %w", err)
	}
	return nil
}

// reportScenario reports one scenario's outcome on its subtest.
func (r *run) reportScenario(t *testing.T, id string) {
	if r.rep == nil || r.rep.Error != "" {
		t.Skip("not run: the run could not be carried out (see the parent test)")
	}
	i := slices.IndexFunc(r.rep.Scenarios, func(sc *report.ScenarioResult) bool { return sc.ID == id })
	if i < 0 {
		t.Fatalf("aghtest: no result for %s", id)
	}
	sc := r.rep.Scenarios[i]
	// go test times a subtest from when it resumes to when it reports, and
	// every subtest waits for the one run that plays them all: its own
	// figure says nothing of the scenario. The scenario's time is logged
	// (go test -v shows it), as aghcheck run prints it.
	if sc.Outcome != report.Skip {
		t.Logf("%s in %s", sc.Outcome, sc.Duration.D().Round(time.Millisecond))
	}
	text := r.text.Scenario(id)
	switch sc.Outcome {
	case report.Pass:
	case report.Skip:
		// A message may quote what the IUT sent: through the sanitiser,
		// as every line the formats write.
		t.Skip(sanitize.Text(sc.Message))
	case report.ExpectedFail:
		why := sanitize.Text(sc.Message)
		if why == "" && len(sc.Notes) > 0 {
			why = sanitize.Text(sc.Notes[0])
		}
		t.Logf("known deviation, recorded %s in %s (%s): %s", sc.Baseline.Recorded, r.known.File, sc.Baseline.Reason, why)
	case report.Warn:
		if r.news[id] {
			t.Errorf("a SHOULD not met, and not in the baseline %s:\n%s", r.known.File, text)
		} else {
			t.Logf("a SHOULD not met:\n%s", text)
		}
	case report.Error:
		t.Errorf("could not be played (the harness or transport failed, not a verdict on the peer):\n%s", text)
	default:
		t.Error("\n" + text)
	}
}

// reportPassive reports the passive validation of what the peer published.
func (r *run) reportPassive(t *testing.T) {
	if r.rep == nil || r.rep.Error != "" {
		t.Skip("no run")
	}
	text := r.text.Passive()
	switch r.rep.Passive.Outcome {
	case report.Fail:
		t.Error("\n" + text)
	case report.Warn:
		if r.newPassive() {
			t.Errorf("not in the baseline %s:\n%s", r.known.File, text)
		} else {
			t.Log("\n" + text)
		}
	default:
		t.Log(text)
	}
}

func (r *run) newPassive() bool {
	for id := range r.news {
		if strings.HasPrefix(id, baseline.PassivePrefix) {
			return true
		}
	}
	return false
}

// reportRun reports on the parent test what belongs to no scenario: a run
// that could not be carried out, stale baseline entries, the verdict.
func (r *run) reportRun(t *testing.T) {
	for _, w := range r.warnings {
		t.Log("aghtest: warning: " + w)
	}
	if r.err != nil {
		t.Errorf("aghtest: %v", r.err)
	}
	rep := r.rep
	if rep == nil {
		return
	}
	if rep.IUT.Stderr != "" && (rep.Error != "" || rep.IUT.Crashed) {
		t.Logf("the IUT's stderr:\n%s", sanitize.Lines(rep.IUT.Stderr))
	}
	if rep.Baseline != nil && len(rep.Baseline.Stale) > 0 {
		t.Errorf("stale baseline entries (the deviation they record is gone: update or remove them):\n%s", r.text.Baseline())
	}
	t.Logf("tested %s\n%s", r.text.Tested(), r.text.Verdict())
}
