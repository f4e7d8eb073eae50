package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// harnessConnName names the harness's one connection to the broker.
const harnessConnName = "aghcheck-harness"

type runner struct {
	cfg config
	// due is why a Session batch's deadline stops it (PlayOptions.Due).
	due string
	// keepLate keeps each judged scenario routed until the run ends, for
	// judgeLate (a run; a fuzz session judges its batches as they end).
	keepLate bool
	finished finished
	// runs counts the runs of the suite played so far (--repeat), and
	// runsCut says why the run stopped short of them ("" when it did not).
	runs    int
	runsCut string
	start   time.Time
	ws      string
	ch      string
	nc      *nats.Conn
	js      jetstream.JetStream
	// stream is the run's JetStream stream (when one was set up).
	stream jetstream.StreamConfig
	bus    *bus
	link   *link
	iutID  string
	greet  *message
	proc   *iut.Process
	stop   func() // stops what Config.Start started

	broker *broker.Broker   // the embedded broker, when the run started one
	dir    string           // the run's own directory (the embedded broker's JetStream store), removed at the end
	ep     *broker.Endpoint // the broker the run uses
	iutEP  *broker.Endpoint // what the IUT is told to connect with
	target string           // the claim the level asks for

	iutDone  <-chan struct{}
	progress sync.Mutex

	procMu sync.Mutex // r.proc changes on a restart while watchers read it
	waits  waits      // what the run waits for now (progress.go)

	tag      string // this run's random tag (probe identity)
	fleet    *fleet // the fleet this run is a member of (nil: alone)
	life     *liveness
	hunting  *hunting
	bornAt   time.Duration // when the IUT's current process started (procMu)
	restarts int           // every restart of the IUT
	// deathRestarts are the restarts after deaths in company, which
	// --max-restarts bounds (a hunt's are in its own budget).
	deathRestarts int
	gaveUp        string          // why the run could not play everything
	killers       []report.Killer // scenarios that kill the IUT alone
	oldOutput     []*iut.Process
	// orders are the initiation orders prepared before the IUT starts,
	// and form how the IUT takes them ("" when it takes none).
	orders initiation
	form   string
	// unheard says why nobody hears what is sent on the IUT's peer
	// subject ("" while somebody does; listen.go).
	unheard string
	// dropping is set while a disconnect step has dropped the IUT's
	// connection and it has not subscribed again.
	dropping atomic.Bool
}

func (r *runner) now() time.Time { return r.cfg.Now() }

// runConfig plays the scenarios at the IUT and grades the result. The report is
// returned even with an error; a *HarnessError means the run could not be
// carried out.
func runConfig(ctx context.Context, cfg config) (*report.Report, error) {
	cfg.defaults()
	lv, err := cfg.level()
	if err != nil {
		return nil, &HarnessError{err}
	}
	r := &runner{cfg: cfg, start: time.Now(), ws: cfg.Workspace, ch: cfg.Channel, target: lv.Target, tag: randid.Hex(4), hunting: newHunting()}
	r.life = newLiveness(r)
	rep := r.newReport()
	defer func() { rep.Duration = report.Millis(time.Since(r.start)) }()
	defer r.close(rep)

	// Decide what runs before touching the network.
	todo, needJS := r.plan(rep)
	if err := r.prepareOrders(todo); err != nil {
		return r.abort(rep, todo, err)
	}
	defer r.dropOrders()
	r.link = newLink(r.start, cfg.OutageTimeout)
	ctx, stopLink := r.link.guard(ctx)
	defer stopLink()
	stopWaits := r.watchWaits(ctx)
	defer stopWaits()
	if err := r.connect(ctx, rep, needJS); err != nil {
		if ctx.Err() != nil {
			err = interruption(ctx) // what was being made when it came does not matter
		}
		return r.abort(rep, todo, err)
	}
	if err := r.startIUT(rep); err != nil {
		return r.abort(rep, todo, err)
	}
	greet, err := r.awaitGreet(ctx)
	if err != nil {
		return r.abort(rep, todo, err)
	}
	if err := r.learnIUT(rep, greet); err != nil {
		return r.abort(rep, todo, err)
	}
	r.beginLife(ctx)
	r.keepLate = true
	play := r.gateAll(rep, todo)
	r.checkListening(ctx, greet.at)
	r.playAll(ctx, rep, play)
	if cfg.Repeat > 1 {
		r.repeat(ctx, rep, play)
	}
	if err := ctx.Err(); err != nil {
		return r.abort(rep, todo, interruption(ctx))
	}
	r.lastWord(rep)
	r.current().cancel(nil) // stop watching: the run is over
	r.drain()
	r.judgeLate(rep)
	if r.fleet != nil {
		if err := r.fleet.exchange(ctx, rep, play); err != nil {
			return r.abort(rep, nil, err)
		}
	}
	r.passive(rep)
	r.link.report(rep, cfg.Strict)
	r.liveReport(rep)
	grade(rep, cfg, r.target)
	r.repeatSummary(rep)
	return rep, nil
}

func (r *runner) newReport() *report.Report {
	rep := &report.Report{
		Tool: "aghcheck", Version: r.cfg.Version, Protocol: agh.Protocol, Started: r.start,
		Level: r.cfg.Level, Strict: r.cfg.Strict, Readings: r.cfg.Readings,
		Broker: report.BrokerInfo{Embedded: r.cfg.External == nil, Workspace: r.ws, Channel: r.ch},
	}
	if r.cfg.Select != nil {
		rep.Selection = r.cfg.Select.String()
	}
	rep.Scenarios = make([]*report.ScenarioResult, len(r.cfg.Scenarios))
	for i, sc := range r.cfg.Scenarios {
		rep.Scenarios[i] = &report.ScenarioResult{ID: sc.ID, Title: sc.Title, Suite: sc.Suite, File: sc.File, Line: sc.Line, Level: sc.Level,
			Claim: sc.Claim, Requirements: sc.Requirements, Readings: sc.JudgedBy}
		// proven.yaml covers the built-in suites in their default form.
		if strings.HasPrefix(sc.File, "embedded:") && len(sc.JudgedBy) == 0 {
			rep.Scenarios[i].ProvenBy = provenBy()[sc.ID]
		}
	}
	return rep
}

// plan skips the scenarios not selected or not in the level and returns
// the indexes of the others, and whether any of them needs JetStream.
func (r *runner) plan(rep *report.Report) (todo []int, needJS bool) {
	for i, sc := range r.cfg.Scenarios {
		res := rep.Scenarios[i]
		switch leftOut(sc, r.cfg.Select, r.cfg.Level) {
		case "--run":
			res.Outcome, res.Message = report.Skip, report.NotSelected
		case "level":
			res.Outcome, res.Message = report.Skip, fmt.Sprintf("claim %s is not part of level %s", sc.Claim, r.cfg.Level)
		default:
			todo = append(todo, i)
			needJS = needJS || sc.Requires.JetStream
		}
	}
	return todo, needJS
}

// leftOut says why a run selecting sel (nil: all) at level leaves sc out
// before it sees the IUT: "--run" when sel does not match its id, "level"
// when its claim is not part of the level; "" when the run plays it.
func leftOut(sc *scenario.Scenario, sel *regexp.Regexp, level string) string {
	switch {
	case sel != nil && !sel.MatchString(sc.ID):
		return "--run"
	case !slices.Contains(levels[level].Claims, sc.Claim):
		return "level"
	}
	return ""
}

// abort ends a run that could not be carried out: the scenarios it did not
// play are errors, and the report says as much as was learned.
func (r *runner) abort(rep *report.Report, todo []int, err error) (*report.Report, error) {
	rep.Error = err.Error()
	for _, i := range todo {
		if res := rep.Scenarios[i]; res.Outcome == "" {
			res.Outcome, res.Message = report.Error, "not run: "+err.Error()
		}
	}
	grade(rep, r.cfg, r.target)
	return rep, &HarnessError{err}
}

// close stops the IUT (recording how it ended), deletes the run's stream,
// and closes the harness connection and the embedded broker, whichever
// were started.
func (r *runner) close(rep *report.Report) {
	if r.proc != nil {
		r.proc.Stop(time.Second)
		rep.IUT.Exit = r.proc.Status()
		for _, p := range r.oldOutput {
			// Earlier incarnations first, each marked.
			rep.IUT.Stdout += p.Stdout() + "[… the IUT was started again]\n"
			rep.IUT.Stderr += p.Stderr() + "[… the IUT was started again]\n"
		}
		rep.IUT.Stdout += r.proc.Stdout()
		rep.IUT.Stderr += r.proc.Stderr()
	}
	if r.stop != nil {
		r.stop()
	}
	if r.js != nil {
		r.dropStream()
	}
	if r.nc != nil {
		r.nc.Close()
	}
	if r.broker != nil {
		r.broker.Close()
	}
	if r.dir != "" {
		_ = os.RemoveAll(r.dir)
	}
}

// watchWaits tells Config.Waiting how the run's waits go until the
// returned stop is called; stop returns once the last word is told.
func (r *runner) watchWaits(ctx context.Context) (stop func()) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.tellWaits(wctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// interruption says in words why the run's context ended: the signal or
// the lost broker link that cancelled it, never Go's "context canceled".
func interruption(ctx context.Context) error {
	c := context.Cause(ctx)
	if c == nil || errors.Is(c, context.Canceled) || errors.Is(c, context.DeadlineExceeded) {
		return errors.New("run interrupted")
	}
	return fmt.Errorf("run interrupted: %w", c)
}

// gateAll skips the scenarios whose gate the IUT or broker does not meet
// and returns the others.
func (r *runner) gateAll(rep *report.Report, todo []int) []int {
	var play []int
	for _, i := range todo {
		if why := r.gate(r.cfg.Scenarios[i], rep); why != "" {
			rep.Scenarios[i].Outcome, rep.Scenarios[i].Message = report.Skip, why
			continue
		}
		play = append(play, i)
	}
	return play
}

// playAll plays the scenarios, up to cfg.Parallel at once, then those that
// must run alone, one at a time. An interrupted run starts nothing more.
func (r *runner) playAll(ctx context.Context, rep *report.Report, play []int) {
	r.hunting = newHunting()
	var alone []int
	play = slices.DeleteFunc(play, func(i int) bool {
		a := r.cfg.Scenarios[i].Alone()
		if a {
			alone = append(alone, i)
		}
		return a
	})
	var later []int
	if r.proc == nil && r.greet == nil {
		// An attached peer joined before the run: its next presence greet
		// stands for its join greet, awaited once the rest is played.
		play = slices.DeleteFunc(play, func(i int) bool {
			g := r.cfg.Scenarios[i].Requires.JoinGreet
			if g {
				later = append(later, i)
			}
			return g
		})
	}
	r.rounds(ctx, rep, play, r.cfg.Parallel)
	r.rounds(ctx, rep, alone, 1)
	if len(later) == 0 || ctx.Err() != nil {
		return
	}
	if why := r.outOfTime(); why != "" {
		r.unplayable(rep, later, why)
		return
	}
	g, err := r.nextGreet(ctx, nil, 0)
	if err != nil {
		for _, i := range later {
			rep.Scenarios[i].Outcome, rep.Scenarios[i].Message = report.Skip, "the attached IUT sent no presence greet within --greet-timeout (its join greet was before the run): "+err.Error()
		}
		return
	}
	r.greet = g
	r.rounds(ctx, rep, later, r.cfg.Parallel)
}

func (r *runner) current() *life { return r.life.current() }

// errFlooded ends an incarnation of the IUT that flooded the run: not a
// death, and nothing more of it can be judged.
var errFlooded = errors.New("the IUT flooded the run")

// onFlood stops what the run plays once the IUT has flooded it: nothing
// more it publishes is judged, so the scenarios in flight end at once, not
// judged (see play), none starts after them (outOfTime), and the liveness
// watchers stop (a probe answered but not heard is no deafness).
func (r *runner) onFlood() {
	if l := r.life.current(); l != nil {
		l.cancel(errFlooded)
	}
}

// process is the IUT's current process (nil when attached), for the
// liveness watchers' goroutines.
func (r *runner) process() *iut.Process {
	r.procMu.Lock()
	defer r.procMu.Unlock()
	return r.proc
}

// lastLine is what the IUT last said on stderr, as ": line" ("" for
// nothing).
//
// The line that names the error comes first when there is one: a runtime
// often ends its report with a line of its own (Node.js prints its
// version after the error and its stack).
func lastLine(s string) string {
	if l := errorLine(s); l != "" {
		return ": " + l
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + s
}

func (r *runner) gate(sc *scenario.Scenario, rep *report.Report) string {
	card := rep.IUT.Card
	has := func(key, want string) bool { return advertises(card, key, want) }
	switch {
	case sc.Requires.Profile != "" && !has("profiles_supported", sc.Requires.Profile):
		return fmt.Sprintf("the IUT does not advertise profile %s", sc.Requires.Profile)
	case sc.Requires.TrustMode != "" && !has("trust_modes_supported", sc.Requires.TrustMode):
		return fmt.Sprintf("the IUT does not advertise trust mode %s", sc.Requires.TrustMode)
	case sc.Initiates() && r.form == "":
		_, why := r.initiateForm(rep)
		return why
	case sc.Requires.JetStream && r.js == nil:
		return "the broker has no JetStream"
	case sc.Alone() && r.broker == nil:
		return noDisconnect
	}
	return ""
}

// streamBytes bounds the run's JetStream stream. It only acknowledges
// what scenarios publish through it (the IUT hears those on NATS Core and
// reads nothing back), so it needs room for the largest message, not for a
// minute of the workspace's traffic.
const streamBytes = 16 << 20

// advertises reports whether the Peer Card's list key (profiles_supported,
// trust_modes_supported, ...) holds want.
func advertises(card map[string]any, key, want string) bool {
	list, _ := card[key].([]any)
	for _, v := range list {
		if v == want {
			return true
		}
	}
	return false
}
