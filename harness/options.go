package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/baseline"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/owned"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/suites"
)

// Options are what a certification run is asked for: the target, what is
// played at it, and the known deviations that judge the result. aghcheck
// run maps its flags to Options, aghtest its Config; Plan checks them all
// before anything starts, so both refuse the same things with the same
// words.
type Options struct {
	Target

	// What is played.
	NoBuiltin bool     // leave out the built-in suites (only Suites)
	Suites    []string // directories of more scenario files
	// Run, a regular expression, plays only the scenarios whose id it
	// matches; it must match at least one.
	Run   string
	Level string // one of LevelNames (default full)
	// Compat judges by every reading of a documented erratum that the
	// runtime named implements ("reference": compozy/agh's, the same
	// preset as validate --compat reference), Errata by each reading
	// named; requirements.Select turns both into readings, in one place.
	Compat string
	Errata []string
	Strict bool // a SHOULD not met fails

	Parallel int // scenarios at once (0: all)
	// Repeat plays the scenarios this many times against the one IUT
	// (0 or 1: once) and reports every scenario whose outcome differed
	// between the runs as an error: a verdict that does not hold on
	// every run is not a verdict.
	Repeat   int
	Timeout  time.Duration // ceiling per scenario (0: none)
	ReproDir string        // where each scenario that kills the IUT is written
	// Fleet, NAME:K/N, makes this run member K of N aghcheck processes
	// playing the same scenarios together against one IUT on one NATS
	// network (docs/harness.md, "A fleet"); member 1's report is the
	// fleet's.
	Fleet string

	// Baseline is a file of known deviations: the failures it records are
	// expected-fail; a new failure or a stale entry fails the run.
	// WriteBaseline, when set, receives this run's failures as a baseline
	// (keeping the reasons of Baseline's entries that still hold).
	Baseline, WriteBaseline string

	// OwnedByAdapter is a file naming the requirements whose verdict
	// comes from an adapter's own code rather than from the runtime it
	// wraps (package owned): reports mark them.
	OwnedByAdapter string

	// Implementation and ImplementationVersion name what is certified
	// (default: its Peer Card's display_name and version).
	Implementation, ImplementationVersion string
	// Warn hears what is not an error yet deserves a line (a baseline
	// entry without a reason). nil: os.Stderr.
	Warn func(string)
}

// OptionError is an option Plan refuses. Option is its name as aghcheck
// run's flag spells it ("run", "baseline"); aghtest names its Config field
// instead, and the rest of the message is the same.
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return "--" + e.Option + ": " + e.Err.Error() }

func (e *OptionError) Unwrap() error { return e.Err }

func optionErr(option string, format string, args ...any) *OptionError {
	return &OptionError{Option: option, Err: fmt.Errorf(format, args...)}
}

// Plan is a run whose options were checked: the scenarios loaded and
// reread by the errata, the selection known to match, the level and the
// baseline's ids valid, the IUT runnable.
type Plan struct {
	opts     Options
	cfg      config
	known    *baseline.Baseline
	owned    *owned.List
	runnable bool // made by Plan, not Preview
}

// Plan checks o and returns the run it describes. Every error is an
// *OptionError: nothing was started.
func (o Options) Plan() (*Plan, error) {
	if err := o.checkTarget(); err != nil {
		return nil, err
	}
	if err := registerSecrets(o.Target.External); err != nil {
		return nil, &OptionError{Option: "nats-creds", Err: err}
	}
	p, err := o.Preview()
	if err != nil {
		return nil, err
	}
	if p.known, err = o.loadBaseline(p.cfg.Scenarios); err != nil {
		return nil, err
	}
	if o.OwnedByAdapter != "" {
		if p.owned, err = owned.Load(o.OwnedByAdapter, func(id string) bool { _, ok := catalogue.Lookup(id); return ok }); err != nil {
			return nil, &OptionError{Option: "owned-by-adapter", Err: err}
		}
	}
	p.runnable = true
	return p, nil
}

// Preview checks what o plays, not its target nor its baseline, and returns
// a plan that can say what a run would play (aghcheck list, show) but not
// run.
func (o Options) Preview() (*Plan, error) {
	level := o.Level
	if level == "" {
		level = "full"
	}
	if _, ok := levels[level]; !ok {
		return nil, optionErr("level", "%q: want %s", o.Level, levelNames())
	}
	var builtin fs.FS
	if !o.NoBuiltin {
		builtin = suites.FS()
	}
	scs, err := scenario.LoadSuites(builtin, o.Suites)
	if err != nil {
		return nil, &OptionError{Option: "suite", Err: err}
	}
	readings, err := requirements.Select(o.Compat, o.Errata)
	if err != nil {
		option := "errata"
		if _, cerr := agh.Compat(o.Compat); cerr != nil {
			option = "compat"
		}
		return nil, &OptionError{Option: option, Err: err}
	}
	var names []string
	for _, r := range readings {
		scs = scenario.RereadAs(scs, r.Name, r.Swap)
		scs = scenario.Under(scs, r.Name)
		names = append(names, r.Name)
	}
	var sel *regexp.Regexp
	if o.Run != "" {
		if sel, err = regexp.Compile(o.Run); err != nil {
			return nil, &OptionError{Option: "run", Err: err}
		}
		if !slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool { return sel.MatchString(sc.ID) }) {
			return nil, optionErr("run", "%q matches no scenario id (see aghcheck list)", o.Run)
		}
	}
	p := &Plan{opts: o, cfg: config{Target: o.Target, Scenarios: scs, Readings: names, Errata: requirements.Envelope(readings),
		Level: level, Strict: o.Strict, Select: sel,
		Parallel: o.Parallel, Repeat: o.Repeat, Timeout: o.Timeout, ReproDir: o.ReproDir}}
	if o.Fleet != "" {
		if p.cfg.Fleet, err = parseFleet(o.Fleet); err != nil {
			return nil, &OptionError{Option: "fleet", Err: err}
		}
	}
	return p, nil
}

// checkTarget refuses a target that cannot be started or reached.
func (o Options) checkTarget() error {
	n := 0
	for _, set := range []bool{len(o.Command) > 0, o.IUTPeer != "", o.Start != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return optionErr("iut", "give exactly one implementation under test: a command, a peer id already on the broker, or a start function")
	case o.IUTPeer != "" && o.External == nil:
		return optionErr("iut-peer", "needs --nats-url: a running peer cannot be on the embedded broker")
	case o.MaxRestarts < 0:
		return optionErr("max-restarts", "%d: want 1 or more, or 0 for never", o.MaxRestarts)
	case o.Parallel < 0:
		return optionErr("parallel", "%d: want 1 or more, or 0 for every scenario at once", o.Parallel)
	case o.Fleet != "" && (o.External == nil || o.IUTPeer == ""):
		return optionErr("fleet", "needs --nats-url and --iut-peer: the members play one running IUT on one NATS network")
	case o.Repeat < 0:
		return optionErr("repeat", "%d: want 1 or more (0 plays the suite once)", o.Repeat)
	case o.Timeout < 0:
		return optionErr("timeout", "%s: want a positive duration, or 0 for no ceiling per scenario", o.Timeout)
	case o.StepTimeout < 0, o.GreetTimeout < 0, o.BackTimeout < 0, o.OutageTimeout < 0:
		return optionErr("step-timeout", "a ceiling may not be negative (0 takes its default)")
	}
	if err := o.Target.CheckSettings(); err != nil {
		return err
	}
	if len(o.Command) > 0 {
		if err := iut.Runnable(o.Command[0]); err != nil {
			return &OptionError{Option: "iut", Err: err}
		}
	}
	return nil
}

// Grammars of the names a run is given, as the Envelope page writes them.
// A name outside its grammar would only show as an IUT that never greets
// (or a peer never found) a ceiling later, so it is refused before
// anything starts.
const (
	channelGrammar   = "[a-z0-9][a-z0-9_-]{0,63}"
	peerGrammar      = "[a-z0-9][a-z0-9._-]{0,127}, or a nickname@fingerprint handle"
	workspaceGrammar = "one NATS subject token: not empty, no '.', '*', '>', whitespace or control characters"
)

// loadBaseline reads the baseline. An id that names no loaded scenario
// (selected or not: a narrowed run leaves the others unjudged) nor, after
// passive:, a catalogue rule is retired (the scenario or rule was removed
// or renamed): a warning here, and a stale entry in the report, which
// fails the run. Entries whose reason is still TODO are a warning, an
// error under Strict.
func (o Options) loadBaseline(scs []*scenario.Scenario) (*baseline.Baseline, error) {
	if o.Baseline == "" {
		return nil, nil
	}
	b, err := baseline.Load(o.Baseline)
	if err != nil {
		return nil, &OptionError{Option: "baseline", Err: err}
	}
	warn := o.Warn
	if warn == nil {
		warn = func(s string) { fmt.Fprintln(os.Stderr, "aghcheck: warning:", sanitize.Text(s)) }
	}
	isScenario := func(id string) bool {
		return slices.ContainsFunc(scs, func(sc *scenario.Scenario) bool { return sc.ID == id })
	}
	isRule := func(id string) bool { _, ok := catalogue.Lookup(id); return ok }
	if retired := b.Retire(isScenario, isRule); len(retired) > 0 {
		verb := "name"
		if len(retired) == 1 {
			verb = "names"
		}
		warn(fmt.Sprintf("--baseline: %s %s no scenario or rule (retired or renamed: see aghcheck list, aghcheck rules), so the run reports %s stale: %s",
			entries(len(retired)), verb, them(len(retired)), strings.Join(retired, ", ")))
	}
	if todo := b.Unreasoned(); len(todo) > 0 {
		msg := fmt.Sprintf("%s still without a reason (TODO), so nothing says why they are excused: %s; name the erratum or link the issue",
			entries(len(todo)), strings.Join(todo, ", "))
		if o.Strict {
			return nil, optionErr("baseline", "%s (an error under --strict)", msg)
		}
		warn("--baseline: " + msg)
	}
	return b, nil
}

// entries counts baseline entries in words.
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// CheckBaseline checks Baseline against what o plays, starting nothing
// (aghcheck list --baseline; make reference before it builds the runtime):
// a file that is not a baseline is an *OptionError; the entries naming no
// scenario or rule are returned (their ids), and warned about.
func (o Options) CheckBaseline() ([]string, error) {
	p, err := o.Preview()
	if err != nil {
		return nil, err
	}
	b, err := o.loadBaseline(p.cfg.Scenarios)
	if err != nil || b == nil {
		return nil, err
	}
	var retired []string
	for _, e := range b.Entries {
		if b.Retired(e.ID) {
			retired = append(retired, e.ID)
		}
	}
	return retired, nil
}

// Scenarios are every scenario loaded, in order, played or not.
func (p *Plan) Scenarios() []*scenario.Scenario { return p.cfg.Scenarios }

// Level is the level the run claims.
func (p *Plan) Level() string { return p.cfg.Level }

// Baseline is the baseline the run is judged against (nil: none).
func (p *Plan) Baseline() *baseline.Baseline { return p.known }

// ProvenBy names the built-in faults that fail sc (harness/proven.yaml):
// what its pass would have caught.
func (p *Plan) ProvenBy(sc *scenario.Scenario) []string { return provenBy()[sc.ID] }

// LeftOut says why the run leaves sc out before it sees the IUT: "--run"
// or "level"; "" when it plays it.
func (p *Plan) LeftOut(sc *scenario.Scenario) string { return leftOut(sc, p.cfg.Select, p.cfg.Level) }

// Selected counts the scenarios the run plays (before the IUT's gates).
func (p *Plan) Selected() int {
	n := 0
	for _, sc := range p.cfg.Scenarios {
		if p.LeftOut(sc) == "" {
			n++
		}
	}
	return n
}

// Only narrows the run to the scenarios ids names (aghtest: the subtests
// go test selected). A run narrowed below its level's scenarios earns no
// claim, as with Run.
func (p *Plan) Only(ids []string) {
	if p.cfg.Select == nil && len(ids) == p.Selected() {
		return
	}
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = regexp.QuoteMeta(id)
	}
	p.cfg.Select = regexp.MustCompile("^(?:" + strings.Join(quoted, "|") + ")$")
}

// Run plays the plan, names the implementation, writes WriteBaseline and
// applies Baseline. The report is returned even with an error; a nil
// report means the run could not start, a *HarnessError that it could not
// be carried out.
func (p *Plan) Run(ctx context.Context) (*report.Report, error) {
	if !p.runnable {
		return nil, errors.New("harness: a preview plan cannot run")
	}
	rep, err := runConfig(ctx, p.cfg)
	if rep == nil {
		return nil, err
	}
	rep.NameImplementation(p.opts.Implementation, p.opts.ImplementationVersion)
	p.markOwned(rep)
	if p.opts.WriteBaseline != "" && rep.Error == "" {
		if werr := writeBaseline(p.opts.WriteBaseline, rep, p.known); werr != nil {
			return rep, errors.Join(err, &OptionError{Option: "write-baseline", Err: werr})
		}
	}
	if p.known != nil {
		p.known.Apply(rep)
	}
	return rep, err
}

// markOwned marks the requirements whose verdict is the adapter's.
func (p *Plan) markOwned(rep *report.Report) {
	if p.owned == nil {
		return
	}
	rep.AdapterOwned = &report.AdapterOwned{File: p.owned.File, Adapter: p.owned.Adapter}
	for _, r := range p.owned.Requirements {
		rep.AdapterOwned.Requirements = append(rep.AdapterOwned.Requirements, report.OwnedRequirement{ID: r.ID, Why: r.Why})
	}
	for i := range rep.Requirements {
		rep.Requirements[i].Adapter = p.owned.Why(rep.Requirements[i].ID)
	}
}

func writeBaseline(path string, rep *report.Report, known *baseline.Baseline) error {
	f, err := report.Create(path)
	if err != nil {
		return err
	}
	err = baseline.Write(f, rep, known)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Progress sets what hears each scenario as it ends, with its outcome as
// the baseline will judge it (called from several goroutines, never
// concurrently).
func (p *Plan) Progress(f func(*report.ScenarioResult)) {
	p.cfg.Progress = func(sc *report.ScenarioResult) { f(p.known.Preview(sc)) }
}

// Life sets what hears each liveness event of the IUT as it happens.
func (p *Plan) Life(f func(report.LifeEvent)) { p.cfg.Life = f }

// Waiting sets what hears how the wait for the IUT's greet goes.
func (p *Plan) Waiting(f func(Wait)) { p.cfg.Waiting = f }
