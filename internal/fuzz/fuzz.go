// Package fuzz is aghcheck fuzz: live fuzzing of a peer with the rule
// engine as its oracle. It mutates valid envelopes with knowledge of the
// protocol (generate.go), lets the engine say what a conformant peer must
// do with each mutant (case.go), plays the cases at the IUT in batches
// through a harness.Session (the player, the passive judge, liveness,
// restarts and fair blame of aghcheck run), reads what fell short as
// findings (judge.go), shrinks each to the smallest message that still
// shows it and writes it as a scenario file aghcheck run replays
// (shrink.go).
package fuzz

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/trust"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

// fuzzer is one run in progress.
type fuzzer struct {
	cfg   Config
	start time.Time
	rep   *Report
	sess  *harness.Session
	gen   *generator
	o     *oracle
	found *findings
	// killers are the signatures of inputs known to kill the IUT: cases
	// with them are not played again (each would cost restarts).
	killers map[string]bool
	corpus  *corpus
	// slowest is the longest the IUT took to answer so far; ceiling the
	// shorter ceiling cases are played with (see setCeiling).
	slowest, ceiling time.Duration
	// seedOf is each seed's result, by name (see seeds).
	seedOf map[string]*SeedResult
	// longest is the longest a chunk took to play: what the chunk in
	// flight may still take when --duration is nearly spent.
	longest time.Duration
	// recent are the cases that sent to the IUT's current incarnation and
	// did not pass (see unexplained).
	recent []sentCase
	// flooded: a batch of the run was flooded (see judge).
	flooded bool
}

// Run fuzzes the IUT cfg.Target names. The report is returned even with
// an error; an *Error means the run could not be carried out (the broker,
// the IUT or the generator failed before any verdict).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	fz := &fuzzer{cfg: cfg, start: time.Now(), found: newFindings(), killers: map[string]bool{}, seedOf: map[string]*SeedResult{},
		rep: &Report{Tool: "aghcheck fuzz", Version: cfg.Version, Seed: cfg.Seed, NotPlayed: map[string]int{}}}
	rep := fz.rep
	defer func() {
		rep.Duration = report.Millis(time.Since(fz.start))
		if s := time.Since(fz.start).Seconds(); s > 0 {
			rep.Rate = float64(rep.Cases) / s
		}
		rep.Findings = fz.found.list()
	}()
	defer fz.close()
	kept, seedErr, err := fz.prepare(ctx)
	if err != nil {
		return fz.fail(err)
	}
	if seedErr != nil {
		var he *harness.HarnessError
		if errors.As(seedErr, &he) {
			return fz.fail(seedErr)
		}
		// The IUT's failure, not the run's: the report says it.
		rep.Error = seedErr.Error()
		return rep, nil
	}
	// Cases are made one batch ahead, while the batch before is played.
	batches, stop := make(chan made, 1), make(chan struct{})
	generated := make(chan struct{})
	go func() {
		defer close(generated)
		fz.generate(kept, batches, stop)
	}()
	stopGen := sync.OnceFunc(func() {
		close(stop)
		<-generated
	})
	defer stopGen()
	if err := fz.fuzz(ctx, batches); err != nil {
		return fz.fail(err)
	}
	stopGen()
	if ctx.Err() != nil {
		fz.interrupted()
	}
	if rep.Error == "" && ctx.Err() == nil {
		fz.minimize(ctx)
	}
	if err := fz.corpus.save(fz); err != nil && rep.Error == "" {
		rep.Error = "corpus: " + err.Error()
	}
	return rep, nil
}

// prepare loads what the generator and the oracle need, opens the session
// and plays the seeds; it returns the corpus's kept cases, and apart what
// went wrong while the seeds were played.
func (fz *fuzzer) prepare(ctx context.Context) (kept []*draft, seedErr, err error) {
	cfg, rep := fz.cfg, fz.rep
	fam, err := loadFamily()
	if err != nil {
		return nil, nil, err
	}
	dict, err := loadDictionary()
	if err != nil {
		return nil, nil, err
	}
	if fz.corpus, err = openCorpus(cfg.CorpusDir); err != nil {
		return nil, nil, err
	}
	rep.IUT.Command = cfg.Target.Command
	if fz.sess, err = harness.Open(ctx, cfg.Target); err != nil {
		return nil, nil, err
	}
	iut := fz.sess.IUT()
	rep.IUT.PeerID = iut.PeerID
	takesTrust := advertises(iut.Card, "profiles_supported", trust.ProfileID)
	seeds, err := loadSeeds(fam, takesTrust)
	if err != nil {
		return nil, nil, err
	}
	fz.gen = newGenerator(cfg.Seed, seeds, dict, fz.sess.MaxPayload())
	fz.setCeiling()
	fz.o = &oracle{fam: fam, now: cfg.Now, trust: takesTrust, unmet: map[string]bool{}}
	if err := fz.seeds(ctx, seeds); err != nil {
		return nil, err, nil
	}
	kept = fz.corpus.drafts(seeds)
	if fz.corpus != nil {
		rep.Corpus = &CorpusInfo{Dir: cfg.CorpusDir}
	}
	return kept, nil, nil
}

// fuzz plays the batches made ahead until the run is done. Cases are
// played a chunk at a time: chunks grow while the IUT lives and shrink
// when it dies, so that a case known to kill it keeps the others of its
// kind from being played (each would cost restarts). A death replays alone
// each case in flight at it that could be the killer: chunks start small
// too. It returns an error only when a batch could not be made; the IUT's
// failures end the loop with the report's Error set.
func (fz *fuzzer) fuzz(ctx context.Context, batches <-chan made) error {
	cfg, rep := fz.cfg, fz.rep
	chunk := min(max(cfg.Parallel/4, 8), cfg.Batch)
	var pending []*Case
	for !fz.done(ctx) {
		if len(pending) == 0 {
			m := <-batches
			if m.err != nil {
				return m.err
			}
			rep.Generated += m.generated
			if rep.Corpus != nil {
				rep.Corpus.Played += m.kept
			}
			for why, n := range m.notPlayed {
				rep.NotPlayed[why] += n
			}
			pending = m.cases
		}
		n := min(chunk, len(pending))
		if cfg.Cases > 0 {
			n = min(n, cfg.Cases-rep.Cases)
		}
		batch := slices.DeleteFunc(slices.Clone(pending[:n]), func(c *Case) bool {
			if fz.killers[c.killSignature()] {
				rep.NotPlayed["an input already known to kill the IUT"]++
				return true
			}
			return false
		})
		pending = pending[n:]
		began := time.Now()
		died, err := fz.play(ctx, batch)
		fz.longest = max(fz.longest, time.Since(began))
		fz.setCeiling()
		if ctx.Err() != nil {
			return nil // interrupted: the caller reports it
		}
		if err != nil {
			rep.Error = err.Error()
			return nil
		}
		if died {
			chunk = min(max(cfg.Parallel/16, 8), cfg.Batch)
		} else {
			chunk = min(2*chunk, cfg.Batch)
		}
		fz.progress("fuzzing")
	}
	return nil
}

// made is one batch of cases, made ahead.
type made struct {
	cases     []*Case
	generated int // drafts generated (kept ones excluded)
	kept      int // drafts from the corpus
	notPlayed map[string]int
	err       error
}

// generate makes batches of Config.Batch cases, the kept ones first, until
// stop is closed. Only it draws from the generator, in order: the same
// seed makes the same cases whatever the IUT does.
func (fz *fuzzer) generate(kept []*draft, out chan<- made, stop <-chan struct{}) {
	n := 0 // drafts made: a case's number
	for {
		m := made{notPlayed: map[string]int{}}
		for len(m.cases) < fz.cfg.Batch {
			var d *draft
			if len(kept) > 0 {
				d, kept = kept[0], kept[1:]
				m.kept++
			} else {
				d = fz.gen.draft()
				m.generated++
			}
			n++
			c, why, err := fz.o.build(d, n)
			if err != nil {
				m.err = fmt.Errorf("case %d (%s: %v): %w", n, d.seed.name, d.ops, err)
				break
			}
			if c == nil {
				m.notPlayed[why]++
				continue
			}
			m.cases = append(m.cases, c)
		}
		select {
		case out <- m:
		case <-stop:
			return
		}
		if m.err != nil {
			<-stop
			return
		}
	}
}

// seeds plays each seed unmutated, once, before any mutant is made: what
// the IUT does with valid messages of each kind is the baseline a
// mutant's behaviour is compared with. They are played with the full
// --step-timeout (no verdict on them rests on a shortened ceiling).
func (fz *fuzzer) seeds(ctx context.Context, seeds []seed) error {
	var batch []*Case
	for i := range seeds {
		s := &seeds[i]
		d := &draft{seed: s, send: s.send, ops: []string{"unmutated"}, unmutated: true}
		d.send.Envelope = jsonx.Copy(s.send.Envelope).(map[string]any)
		d.send.Drop = slices.Clone(s.send.Drop)
		if ext, _ := d.send.Envelope["ext"].(map[string]any); s.sign && len(ext) == 0 {
			// Valid and verified: a peer that takes the trust profile
			// must take it (a seed is signed only for such a peer). With
			// an extension, a refusal could be the extension's: which
			// rule it breaks is left open (DELIV-FAILURE-CLASSES, a
			// SHOULD, still says it was refused).
			d.accept = requirements.TrustRxAccept.ID
		}
		sr := &SeedResult{Seed: s.name}
		fz.rep.Seeds = append(fz.rep.Seeds, sr)
		fz.seedOf[s.name] = sr
		c, why, err := fz.o.build(d, 0)
		if err != nil {
			return fmt.Errorf("seed %s: %w", s.name, err)
		}
		if c == nil {
			sr.Met, sr.Says = true, "not played: "+why
			continue
		}
		sr.Shape = c.Shape
		batch = append(batch, c)
	}
	fz.sess.SetStepTimeout(fz.cfg.Target.StepTimeout)
	_, err := fz.play(ctx, batch)
	fz.setCeiling()
	for name, sr := range fz.seedOf {
		if !sr.Met {
			fz.o.unmet[name] = true
		}
	}
	return err
}

// seedVerdict reads what a seed's unmutated case showed: met, a refusal
// the IUT may make, or findings of its own (noted once, here).
func (fz *fuzzer) seedVerdict(c *Case, res *report.ScenarioResult, note func(*Case, Finding)) {
	sr := fz.seedOf[c.Seed]
	if sr == nil {
		return
	}
	switch res.Outcome {
	case report.Skip:
		sr.Says = res.Message
		if strings.Contains(res.Message, appRefusal) {
			sr.Says = "refused as a peer may: " + res.Message
		}
		return
	case report.Error:
		sr.Says = "could not be played: " + res.Message
		return
	}
	fs := behaviour(c, res)
	if len(fs) == 0 {
		sr.Met = true
		return
	}
	for _, f := range fs {
		f.Message = "played unmutated: " + f.Message
		note(c, f)
	}
	sr.Says = fmt.Sprintf("%d finding(s) of its own, reported once", len(fs))
}

// done says whether the run has played what it was asked to.
func (fz *fuzzer) done(ctx context.Context) bool {
	switch {
	case ctx.Err() != nil:
		return true
	case fz.cfg.Cases > 0 && fz.rep.Cases >= fz.cfg.Cases:
		return true
	case fz.cfg.Duration > 0 && time.Until(fz.deadline()) <= fz.closing():
		return true
	}
	return false
}

// --duration is the wall-clock time of the whole run: start-up, fuzzing,
// minimizing and confirming. Fuzzing stops early enough for the rest.

// deadline is when a run with a --duration must be over.
func (fz *fuzzer) deadline() time.Time { return fz.start.Add(fz.cfg.Duration) }

// closing is the time the end of the run needs once fuzzing stops: when
// there are findings, the chunk in flight (as long as the longest so far), a fifth of
// --duration to minimize them, and one full --step-timeout to confirm those
// that rest on a shortened ceiling (at most half of --duration in all).
func (fz *fuzzer) closing() time.Duration {
	if len(fz.found.order) == 0 {
		return min(fz.longest, fz.cfg.Duration/2)
	}
	return min(fz.longest+fz.cfg.Duration/5+fz.confirming(), fz.cfg.Duration/2)
}

// confirming is how long confirming the findings will take: one full
// --step-timeout when one rests on a ceiling shorter than that, else none.
func (fz *fuzzer) confirming() time.Duration {
	if fz.ceiling >= fz.cfg.Target.StepTimeout {
		return 0
	}
	for _, f := range fz.found.byKey {
		if f.waited {
			return fz.cfg.Target.StepTimeout
		}
	}
	return 0
}

// roomToShrink reports whether one more round of minimizing (a replay
// with the run's ceiling) can end before the deadline and still leave the
// confirmation its full --step-timeout.
func (fz *fuzzer) roomToShrink() bool {
	if fz.cfg.Duration <= 0 {
		return true
	}
	return time.Until(fz.deadline()) > fz.ceiling+fz.confirming()
}

// play plays a batch and reads its findings; died says the IUT died
// meanwhile. A batch the run's interruption cut short is not read: its
// cases were in flight, and what they show rests on nothing.
func (fz *fuzzer) play(ctx context.Context, batch []*Case) (died bool, err error) {
	scs := make([]*scenario.Scenario, len(batch))
	for i, c := range batch {
		scs[i] = c.Scenario
	}
	b, err := fz.sess.Play(scs, fz.playOptions())
	if ctx.Err() != nil {
		fz.rep.InFlight += len(batch)
		return false, err
	}
	if b != nil {
		fz.judge(batch, b)
		died = slices.ContainsFunc(b.Events, report.LifeEvent.Death)
		for _, res := range b.Results {
			if res.Latency != nil {
				fz.slowest = max(fz.slowest, res.Latency.Max.D())
			}
		}
	}
	return died, err
}

// Ceilings. A case waits for an answer that never comes only as long as an
// expect step's ceiling, and a faulty peer leaves many unanswered: cases
// are played with a ceiling ten times the slowest answer the IUT gave so
// far (at least a second, at most --step-timeout), and a finding that
// rests on a ceiling is confirmed with the full --step-timeout before it
// is reported (see confirm): no verdict rests on the shorter one.

// firstCeiling is the ceiling before the IUT has answered anything.
const firstCeiling = 2 * time.Second

// setCeiling sets the ceiling of the next batch.
func (fz *fuzzer) setCeiling() {
	full := fz.cfg.Target.StepTimeout
	c := min(firstCeiling, full)
	if fz.slowest > 0 {
		c = min(max(10*fz.slowest, time.Second), full)
	}
	fz.ceiling = c
	fz.sess.SetStepTimeout(c)
}

// judge reads one played batch: the cases' verdicts, what the IUT
// published, and who killed it.
func (fz *fuzzer) judge(batch []*Case, b *report.Batch) {
	byID := map[string]*Case{}
	note := func(c *Case, f Finding) {
		fz.found.add(f)
		if c != nil {
			c.found = append(c.found, keyOf(f.Kind, f.Rule, f.Input))
		}
	}
	var played []*Case
	cut := false // some case was left unjudged by --duration
	for i, res := range b.Results {
		c := batch[i]
		byID[c.ID] = c
		if c.draft.unmutated {
			fz.seedVerdict(c, res, note)
			continue
		}
		if sr := fz.seedOf[c.Seed]; sr != nil && !sr.Met && res.Outcome != report.Error {
			// Its seed did not meet the oracle: how the mutant differs
			// from it says nothing of the mutation (deaths and what the
			// IUT publishes are still judged, below).
			fz.rep.Cases++
			fz.rep.Unjudged++
			sr.Unjudged++
			continue
		}
		if fz.cutShort(res) {
			fz.rep.CutShort++
			cut = true
			continue
		}
		switch res.Outcome {
		case report.Skip:
			fz.rep.NotPlayed["skipped: "+res.Message]++
			continue
		case report.Error:
			if !res.Killed {
				fz.rep.Errors++
			}
		}
		fz.rep.Cases++
		played = append(played, c)
		for _, f := range behaviour(c, res) {
			note(c, f)
		}
	}
	for _, p := range b.Published {
		var c *Case
		if p.Scenario >= 0 {
			c = batch[p.Scenario]
		} else if fz.flooded {
			// For no case of this batch: its work began in an earlier
			// one, and a flood there left part of its history unjudged,
			// so what the work-unit tracker makes of the rest (a state
			// that "skips" one it never saw) is no finding.
			p.Findings = slices.DeleteFunc(slices.Clone(p.Findings), func(f rules.Finding) bool {
				return slices.Contains(workunit.Judged, f.Rule)
			})
		}
		for _, f := range output(p, c) {
			note(c, f)
		}
	}
	for _, k := range b.Killers {
		if c := byID[k.Scenario]; c != nil {
			note(c, killed(k, c))
			fz.killers[c.killSignature()] = true
		}
	}
	if b.Flooded {
		note(nil, flooded(b, len(batch)))
		fz.flooded = true
	}
	if f := fz.unexplained(b, batch, cut); f != nil {
		note(nil, *f)
	}
	for _, c := range played {
		fz.corpus.consider(c)
	}
}

// interrupted ends a run stopped before its end: findings that rest on a
// ceiling shorter than --step-timeout cannot be confirmed now, so they are
// left out (counted in Unconfirmed), as a confirmation that failed would
// leave them.
func (fz *fuzzer) interrupted() {
	fz.rep.Interrupted = true
	if fz.ceiling >= fz.cfg.Target.StepTimeout {
		return
	}
	for _, f := range fz.found.list() {
		if f.waited {
			fz.found.drop(f)
			fz.rep.Unconfirmed++
		}
	}
}

// progress tells Config.Progress how the run goes.
func (fz *fuzzer) progress(phase string) {
	if fz.cfg.Progress == nil {
		return
	}
	p := Progress{Elapsed: time.Since(fz.start), Cases: fz.rep.Cases, Phase: phase, Findings: len(fz.found.order)}
	if s := p.Elapsed.Seconds(); s > 0 {
		p.Rate = float64(p.Cases) / s
	}
	for _, f := range fz.found.byKey {
		if f.Level == "MUST" {
			p.Must++
		}
	}
	fz.cfg.Progress(p)
}

// fail ends a run that could not be carried out.
func (fz *fuzzer) fail(err error) (*Report, error) {
	fz.rep.Error = err.Error()
	var he *harness.HarnessError
	if errors.As(err, &he) {
		return fz.rep, &Error{he.Err}
	}
	return fz.rep, &Error{err}
}

// close ends the session and keeps what the report needs of the IUT.
func (fz *fuzzer) close() {
	if fz.sess == nil {
		return
	}
	hr := fz.sess.Close()
	fz.sess = nil
	iut := &fz.rep.IUT
	iut.Restarts, iut.Events, iut.Exit = hr.IUT.Restarts, hr.IUT.Events, hr.IUT.Exit
	iut.Stderr = tail(hr.IUT.Stderr, 8)
}

// advertises reports whether a Peer Card's list key holds want.
func advertises(card map[string]any, key, want string) bool {
	list, _ := card[key].([]any)
	return slices.Contains(list, any(want))
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	end := len(s)
	for end > 0 && s[end-1] == '\n' {
		end--
	}
	i := end
	for k := 0; k < n && i > 0; k++ {
		i--
		for i > 0 && s[i-1] != '\n' {
			i--
		}
	}
	return s[i:end]
}
