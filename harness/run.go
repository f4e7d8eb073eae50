package harness

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/aghcheck/aghcheck/agh"
	"github.com/aghcheck/aghcheck/harness/broker"
	"github.com/aghcheck/aghcheck/harness/iut"
	"github.com/aghcheck/aghcheck/harness/scenario"
	"github.com/aghcheck/aghcheck/rules"
)

// Levels a run can claim, each with the claim it targets and the scenario
// claims it plays.
var Levels = map[string]struct {
	Target string
	Claims []string
}{
	"core":  {"Core Peer", []string{"core-sender", "core-receiver"}},
	"trust": {"Trust Peer", []string{"core-sender", "core-receiver", "trust"}},
	"full":  {"Full Peer", []string{"core-sender", "core-receiver", "trust", "nats", "jetstream"}},
}

// Config is one run.
type Config struct {
	Scenarios []*scenario.Scenario
	Level     string         // core, trust or full (default full)
	Strict    bool           // warnings fail
	Select    *regexp.Regexp // --run: only scenarios whose id matches
	Parallel  int            // scenarios at once (default: all)

	Timeout       time.Duration // per scenario (default 10s)
	StepTimeout   time.Duration // per expect step (default 2s)
	SilenceWindow time.Duration // default expect_silence window (300ms)
	GreetTimeout  time.Duration // waiting for the IUT's greet (default DefaultGreetTimeout)

	// External, when set, is the broker to use instead of an embedded one.
	External *broker.Endpoint
	// Command starts the IUT; IUTPeer attaches to a peer already running.
	// Exactly one must be set.
	Command []string
	IUTPeer string
	// Env is extra environment for the IUT command (KEY=VALUE).
	Env []string
	// SuggestedPeerID is AGH_PEER_ID (default generated).
	SuggestedPeerID string

	Workspace, Channel string // default generated / "conformance"
	FloodLimit         int    // IUT messages validated before the run calls it a flood (default 5000)
	Now                func() time.Time
	Version            string
	// Progress is called as each scenario ends (from several goroutines,
	// never concurrently).
	Progress func(*ScenarioResult)
}

// HarnessError is a run that could not be carried out (exit code 2); the
// report still says as much as was learned.
type HarnessError struct{ Err error }

// DefaultGreetTimeout bounds the wait for the IUT's first greet. It leaves
// room under the 30 s promise for broker start-up and process clean-up, so a
// peer that never greets ends the run well inside half a minute.
const DefaultGreetTimeout = 20 * time.Second

func (e *HarnessError) Error() string { return e.Err.Error() }
func (e *HarnessError) Unwrap() error { return e.Err }

type runner struct {
	cfg   Config
	start time.Time
	ws    string
	ch    string
	nc    *nats.Conn
	js    jetstream.JetStream
	// stream is the run's JetStream stream (when one was set up).
	stream jetstream.StreamConfig
	bus    *bus
	link   *link
	iutID  string
	greet  *message
	proc   *iut.Process

	iutDone  <-chan struct{}
	progress sync.Mutex
}

func (r *runner) now() time.Time { return r.cfg.Now() }

// iutGone reports the IUT's death (nil while it runs or when attached).
func (r *runner) iutGone() error {
	if r.proc == nil || !r.proc.Exited() || r.proc.StoppedByHarness() {
		return nil
	}
	return fmt.Errorf("the IUT exited during the run (%s)", r.proc.Status())
}

func (c *Config) defaults() {
	if c.Level == "" {
		c.Level = "full"
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.StepTimeout <= 0 {
		c.StepTimeout = 2 * time.Second
	}
	if c.SilenceWindow <= 0 {
		c.SilenceWindow = 300 * time.Millisecond
	}
	if c.GreetTimeout <= 0 {
		c.GreetTimeout = DefaultGreetTimeout
	}
	if c.FloodLimit <= 0 {
		c.FloodLimit = 5000
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Channel == "" {
		c.Channel = "conformance"
	}
	if c.Workspace == "" {
		c.Workspace = "aghcheck-" + randomHex(4)
	}
	if c.SuggestedPeerID == "" {
		c.SuggestedPeerID = "iut." + randomHex(4)
	}
}

// Run plays the scenarios at the IUT and grades the result. The report is
// returned even with an error; a *HarnessError means the run could not be
// carried out.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	lv, ok := Levels[cfg.Level]
	if !ok {
		return nil, &HarnessError{fmt.Errorf("unknown level %q (core, trust or full)", cfg.Level)}
	}
	if (len(cfg.Command) == 0) == (cfg.IUTPeer == "") {
		return nil, &HarnessError{errors.New("give exactly one of an IUT command or an IUT peer id")}
	}
	r := &runner{cfg: cfg, start: time.Now(), ws: cfg.Workspace, ch: cfg.Channel}
	rep := &Report{
		Tool: "aghcheck", Version: cfg.Version, Protocol: agh.Protocol, Started: r.start,
		Level: cfg.Level, Strict: cfg.Strict,
		Broker: BrokerInfo{Embedded: cfg.External == nil, Workspace: r.ws, Channel: r.ch},
	}
	if cfg.Select != nil {
		rep.Selection = cfg.Select.String()
	}
	defer func() { rep.Duration = Millis(time.Since(r.start)) }()

	// Decide what runs before touching the network.
	inLevel := map[string]bool{}
	for _, c := range lv.Claims {
		inLevel[c] = true
	}
	results := make([]*ScenarioResult, len(cfg.Scenarios))
	var todo []int
	needJS := false
	for i, sc := range cfg.Scenarios {
		res := &ScenarioResult{ID: sc.ID, Title: sc.Title, Suite: sc.Suite, File: sc.File, Level: sc.Level,
			Claim: sc.Claim, Requirements: sc.Requirements}
		results[i] = res
		switch {
		case cfg.Select != nil && !cfg.Select.MatchString(sc.ID):
			res.Outcome, res.Message = Skip, "not selected by --run"
		case !inLevel[sc.Claim]:
			res.Outcome, res.Message = Skip, fmt.Sprintf("claim %s is not part of level %s", sc.Claim, cfg.Level)
		default:
			todo = append(todo, i)
			needJS = needJS || sc.Requires.JetStream
		}
	}
	rep.Scenarios = results

	fail := func(err error) (*Report, error) {
		rep.Error = err.Error()
		for _, i := range todo {
			if results[i].Outcome == "" {
				results[i].Outcome, results[i].Message = Error, "not run: "+err.Error()
			}
		}
		grade(rep, cfg, lv.Target)
		return rep, &HarnessError{err}
	}

	// Broker.
	ep := cfg.External
	if ep == nil {
		b, err := broker.Start(broker.Options{JetStream: needJS})
		if err != nil {
			return fail(err)
		}
		defer b.Close()
		ep = &b.Endpoint
		rep.Broker.JetStream = needJS
	}
	rep.Broker.URL = ep.URL

	r.bus = newBus(r.start, r.ws, r.ch, cfg.External == nil, cfg.FloodLimit, cfg.Now)
	r.link = newLink(r.start, cfg.GreetTimeout)
	ctx, stopLink := r.link.guard(ctx)
	defer stopLink()
	nc, err := ep.Connect("aghcheck-harness", append(r.link.options(), nats.NoEcho(), nats.ErrorHandler(func(_ *nats.Conn, s *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) && s != nil {
			n, _ := s.Dropped()
			r.bus.noteDropped(n)
		}
	}))...)
	if err != nil {
		return fail(err)
	}
	defer nc.Close()
	r.nc = nc
	sub, err := nc.Subscribe("agh.>", func(m *nats.Msg) { r.bus.receive(m.Subject, m.Data) })
	if err != nil {
		return fail(fmt.Errorf("subscribe: %w", err))
	}
	_ = sub.SetPendingLimits(1<<16, 256<<20)
	if err := nc.Flush(); err != nil {
		return fail(err)
	}
	if needJS {
		if err := r.setupJetStream(ctx); err != nil {
			if cfg.External == nil {
				return fail(err)
			}
			rep.Broker.JetStream = false // scenarios needing it will skip
		} else {
			rep.Broker.JetStream = true
			rep.Broker.JetStreamReplicas = r.stream.Replicas
			defer r.dropStream()
		}
	}

	// IUT.
	var greet *message
	if len(cfg.Command) > 0 {
		rep.IUT.Command = cfg.Command
		env := append(ep.Env(),
			"AGH_WORKSPACE_ID="+r.ws, "AGH_CHANNEL="+r.ch, "AGH_PEER_ID="+cfg.SuggestedPeerID)
		env = append(env, cfg.Env...)
		proc, err := iut.Start(cfg.Command, env)
		if err != nil {
			return fail(err)
		}
		r.proc = proc
		r.iutDone = proc.Done()
		defer func() {
			proc.Stop(time.Second)
			rep.IUT.Exit = proc.Status()
			rep.IUT.Stdout, rep.IUT.Stderr = proc.Stdout(), proc.Stderr()
		}()
	} else {
		r.bus.expectIUT(cfg.IUTPeer)
		if err := r.askWhois(cfg.IUTPeer); err != nil {
			return fail(err)
		}
	}
	greetTimer := time.NewTimer(cfg.GreetTimeout)
	defer greetTimer.Stop()
	select {
	case greet = <-r.bus.greeted:
	case <-r.iutDone:
		// A greet published just before exiting still counts.
		select {
		case greet = <-r.bus.greeted:
		case <-time.After(50 * time.Millisecond):
			return fail(fmt.Errorf("the IUT exited before greeting (%s)%s", r.proc.Status(), lastLine(r.proc.Stderr())))
		}
	case <-greetTimer.C:
		return fail(fmt.Errorf("the IUT did not greet on %s within %s", agh.BroadcastSubject(r.ws, r.ch), cfg.GreetTimeout))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	if r.iutDone == nil {
		r.iutDone = make(chan struct{}) // attached: never "exits"
	}
	r.iutID = greet.from()
	if greet.kind() == "greet" {
		r.greet = greet
	}
	rep.IUT.PeerID = r.iutID
	if err := r.link.watch(nc, r.ws, r.ch, r.iutID); err != nil {
		return fail(err)
	}
	rep.IUT.Greeted = Millis(greet.at)
	if body, ok := greet.env["body"].(map[string]any); ok {
		rep.IUT.Card, _ = body["peer_card"].(map[string]any)
	}

	// Gates that depend on what the IUT advertises.
	var play []int
	for _, i := range todo {
		sc := cfg.Scenarios[i]
		if why := r.gate(sc, rep); why != "" {
			results[i].Outcome, results[i].Message = Skip, why
			continue
		}
		play = append(play, i)
	}

	// Play.
	par := cfg.Parallel
	if par <= 0 || par > len(play) {
		par = max(len(play), 1)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for _, i := range play {
		// An interrupted run starts nothing more; fail below marks the
		// scenarios left unplayed as errors.
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		r.link.ready(ctx)
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			from := r.link.mark()
			r.play(ctx, cfg.Scenarios[i], results[i])
			r.link.judge(results[i], from)
			if cfg.Progress != nil {
				r.progress.Lock()
				cfg.Progress(results[i])
				r.progress.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("run interrupted: %w", context.Cause(ctx)))
	}

	// Let the last publications arrive before judging the IUT as a sender.
	_ = nc.Flush()
	time.Sleep(20 * time.Millisecond)
	r.passive(rep)
	r.link.report(rep, cfg.Strict)
	if r.proc != nil && r.proc.Exited() && !r.proc.StoppedByHarness() {
		rep.IUT.Crashed = true
	}
	grade(rep, cfg, lv.Target)
	return rep, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + s
}

func (r *runner) gate(sc *scenario.Scenario, rep *Report) string {
	card := rep.IUT.Card
	has := func(key, want string) bool { return advertises(card, key, want) }
	switch {
	case sc.Requires.Profile != "" && !has("profiles_supported", sc.Requires.Profile):
		return fmt.Sprintf("the IUT does not advertise profile %s", sc.Requires.Profile)
	case sc.Requires.TrustMode != "" && !has("trust_modes_supported", sc.Requires.TrustMode):
		return fmt.Sprintf("the IUT does not advertise trust mode %s", sc.Requires.TrustMode)
	case sc.Requires.JetStream && r.js == nil:
		return "the broker has no JetStream"
	case sc.Requires.JoinGreet && r.greet == nil:
		return "the IUT joined before the run (attached with --iut-peer), so its join greet was not observed"
	}
	return ""
}

// setupJetStream creates a stream over this run's workspace so scenarios
// can publish through JetStream. On a cluster the stream is replicated on
// three nodes when the cluster can hold that, so the JetStream scenarios
// prove the profile on a stream that survives losing a node.
func (r *runner) setupJetStream(ctx context.Context) error {
	js, err := jetstream.New(r.nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	sc := jetstream.StreamConfig{
		Name:       "AGHCHECK_" + strings.NewReplacer("-", "_", ".", "_").Replace(r.ws),
		Subjects:   []string{agh.SubjectPrefix + "." + r.ws + ".>"},
		Storage:    jetstream.MemoryStorage,
		MaxMsgSize: broker.MaxPayload,
		MaxAge:     time.Minute,
		Replicas:   1,
	}
	create := func() error {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := js.CreateStream(cctx, sc)
		return err
	}
	if r.nc.ConnectedClusterName() != "" {
		sc.Replicas = 3
		if create() != nil {
			sc.Replicas = 1 // a cluster of fewer than three JetStream nodes
		}
	}
	if sc.Replicas == 1 {
		if err := create(); err != nil {
			return fmt.Errorf("jetstream stream: %w", err)
		}
	}
	r.js, r.stream = js, sc
	return nil
}

// dropStream deletes the run's stream: on an external deployment it would
// otherwise outlive the run.
func (r *runner) dropStream() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = r.js.DeleteStream(ctx, r.stream.Name)
}

// askWhois asks an already running peer for its card, for --iut-peer.
func (r *runner) askWhois(peerID string) error {
	me := "aghcheck-harness." + randomHex(4)
	env := map[string]any{
		"protocol": agh.Protocol, "id": "msg_whois_" + randomHex(6), "workspace_id": r.ws, "channel": r.ch,
		"kind": "whois", "from": me, "to": peerID, "ts": r.now().Unix(), "proof": nil,
		"body": map[string]any{"type": "request", "query": peerID},
	}
	data, err := jsonMarshal(env)
	if err != nil {
		return err
	}
	if err := r.nc.Publish(agh.PeerSubject(r.ws, r.ch, peerID), data); err != nil {
		return fmt.Errorf("whois to %s: %w", peerID, err)
	}
	return r.nc.Flush()
}

// passive grades everything the IUT published.
func (r *runner) passive(rep *Report) {
	b := r.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	pr := &rep.Passive
	pr.Envelopes = len(b.passive)
	pr.Flooded = b.flooded
	pr.Dropped = b.dropped
	rep.IUT.Messages = b.iutCount
	byRule := map[string]*PassiveFinding{}
	var order []string
	errs, warns := 0, 0
	for _, m := range b.passive {
		bad := false
		for _, f := range m.findings {
			pf := byRule[f.Rule.ID]
			if pf == nil {
				pf = &PassiveFinding{Rule: f.Rule.ID, Level: f.Rule.Severity.Level(), Example: f.String()}
				byRule[f.Rule.ID] = pf
				order = append(order, f.Rule.ID)
			}
			pf.Count++
			if f.Severity(r.cfg.Strict) == rules.Error {
				errs++
				bad = true
			} else {
				warns++
			}
		}
		if bad {
			pr.Invalid++
			if len(pr.Samples) < 5 {
				pr.Samples = append(pr.Samples, entry(m, "received", ""))
			}
		}
	}
	sort.Strings(order)
	for _, id := range order {
		pr.Findings = append(pr.Findings, *byRule[id])
	}
	switch {
	case pr.Envelopes == 0:
		pr.Outcome = Skip
	case errs > 0 || pr.Flooded:
		pr.Outcome = Fail
	case warns > 0:
		pr.Outcome = Warn
	default:
		pr.Outcome = Pass
	}
	if pr.Flooded {
		pr.Findings = append(pr.Findings, PassiveFinding{Rule: "NATS-PUBLISH-RATE", Level: "MUST", Count: b.iutCount,
			Example: fmt.Sprintf("the IUT published %d messages during the run (limit %d)", b.iutCount, r.cfg.FloodLimit)})
	}
}

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
