package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/report"
)

// A fleet is several aghcheck processes, on as many machines, playing the
// same scenarios against one IUT on one NATS network (a cluster), so that
// the load the concurrency scenarios put on the IUT is not one machine's.
// They find each other through the network itself, on subjects of their
// own (fleetPrefix.NAME.…): before each burst (an at_once step) every
// member waits at a barrier until all have reached the same burst, so the
// bursts of all members leave together; when the run ends, every member
// sends its verdicts to member 1, whose report is the fleet's: each
// scenario's outcome is the worst of the members' (a race the IUT lost on
// one machine is lost), with each member's named, and the load figures
// are the whole fleet's.

// fleetPrefix starts the subjects a fleet coordinates on.
const fleetPrefix = "aghcheck.fleet"

// fleetSpec is this process's place in a fleet: member Member (from 1) of
// Size, all started with the same Name.
type fleetSpec struct {
	Name         string
	Member, Size int
}

var fleetName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// parseFleet reads NAME:K/N (member K of N, from 1).
func parseFleet(s string) (*fleetSpec, error) {
	name, at, ok := strings.Cut(s, ":")
	k, n, ok2 := strings.Cut(at, "/")
	member, err1 := strconv.Atoi(k)
	size, err2 := strconv.Atoi(n)
	switch {
	case !ok || !ok2 || err1 != nil || err2 != nil:
		return nil, fmt.Errorf("%q: want NAME:K/N (this process is member K of N)", s)
	case !fleetName.MatchString(name):
		return nil, fmt.Errorf("%q: a fleet's name is lower-case letters, digits, - and _", name)
	case size < 2 || member < 1 || member > size:
		return nil, fmt.Errorf("%q: want 1 <= K <= N, and N >= 2", at)
	}
	return &fleetSpec{Name: name, Member: member, Size: size}, nil
}

// Ceilings of a fleet's waits: on other aghcheck processes, never on the
// IUT, so they judge nothing. A member that does not come in time is named
// in the report, and the others go on without it.
const (
	fleetBarrierTimeout = 60 * time.Second // the members start minutes apart at worst
	fleetResultsTimeout = 5 * time.Minute  // a member's run may take that much longer
	fleetRepeatEvery    = 200 * time.Millisecond
	fleetAskFor         = 3 * time.Second // one request of the verdicts, before it is sent again
)

// fleet is the fleet machinery of one run.
type fleet struct {
	fleetSpec
	nc *nats.Conn

	mu      sync.Mutex
	arrived map[string]map[int]bool // burst key → members at its barrier
	passed  map[string]bool         // bursts this member went through
	changed chan struct{}           // closed and replaced when arrived changes
	results map[int][]fleetResult   // member 1: each other member's verdicts
	notes   []string
}

// fleetResult is one scenario's verdict as a member sends it.
type fleetResult struct {
	ID      string         `json:"id"`
	Outcome report.Outcome `json:"outcome"`
	Message string         `json:"message,omitempty"`
	Load    *fleetLoad     `json:"load,omitempty"`
}

// fleetLoad carries a member's load figures with what they were made of,
// so that member 1 computes the fleet's.
type fleetLoad struct {
	Bursts, Messages, Answers int
	Spans, Delays             []time.Duration
}

type fleetArrival struct {
	Member int    `json:"member"`
	Key    string `json:"key"`
}

func (f *fleet) subject(s string) string { return fleetPrefix + "." + f.Name + "." + s }

// startFleet subscribes to the fleet's subjects on nc.
func startFleet(nc *nats.Conn, cfg *fleetSpec) (*fleet, error) {
	f := &fleet{fleetSpec: *cfg, nc: nc, arrived: map[string]map[int]bool{}, passed: map[string]bool{},
		changed: make(chan struct{}), results: map[int][]fleetResult{}}
	if _, err := nc.Subscribe(f.subject("barrier"), f.onArrival); err != nil {
		return nil, fmt.Errorf("fleet %s: %w", f.Name, err)
	}
	if f.Member == 1 {
		if _, err := nc.Subscribe(f.subject("results"), f.onResults); err != nil {
			return nil, fmt.Errorf("fleet %s: %w", f.Name, err)
		}
	}
	return f, nc.Flush()
}

func (f *fleet) onArrival(m *nats.Msg) {
	var a fleetArrival
	if json.Unmarshal(m.Data, &a) != nil || a.Member < 1 || a.Member > f.Size {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.arrived[a.Key] == nil {
		f.arrived[a.Key] = map[int]bool{}
	}
	if f.arrived[a.Key][a.Member] {
		return
	}
	f.arrived[a.Key][a.Member] = true
	close(f.changed)
	f.changed = make(chan struct{})
	if f.passed[a.Key] && a.Member != f.Member {
		// A member that subscribed late has not heard this one's
		// arrival: say it again.
		go f.announce(a.Key)
	}
}

func (f *fleet) announce(key string) {
	b, _ := json.Marshal(fleetArrival{Member: f.Member, Key: key})
	_ = f.nc.Publish(f.subject("barrier"), b)
}

// barrier waits until every member has reached burst key, or the ceiling.
func (f *fleet) barrier(ctx context.Context, key string) {
	f.mu.Lock()
	f.passed[key] = true
	if f.arrived[key] == nil {
		f.arrived[key] = map[int]bool{}
	}
	f.arrived[key][f.Member] = true // the connection does not echo its own
	f.mu.Unlock()
	deadline := time.NewTimer(fleetBarrierTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(fleetRepeatEvery)
	defer tick.Stop()
	f.announce(key)
	for {
		f.mu.Lock()
		n, changed := len(f.arrived[key]), f.changed
		f.mu.Unlock()
		if n >= f.Size {
			return
		}
		select {
		case <-changed:
		case <-tick.C:
			f.announce(key) // for members that subscribed since
		case <-deadline.C:
			f.note(fmt.Sprintf("burst %s left with %d of the %d members: the others did not reach it within %s", key, n, f.Size, fleetBarrierTimeout))
			return
		case <-ctx.Done():
			return
		}
	}
}

func (f *fleet) note(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, s)
}

func (f *fleet) onResults(m *nats.Msg) {
	var in struct {
		Member  int           `json:"member"`
		Results []fleetResult `json:"results"`
	}
	if json.Unmarshal(m.Data, &in) != nil || in.Member < 2 || in.Member > f.Size {
		return
	}
	f.mu.Lock()
	f.results[in.Member] = in.Results
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
	_ = m.Respond([]byte("ok"))
}

// exchange ends a fleet's run: a member sends its verdicts on the played
// scenarios to member 1, which folds every member's into rep.
func (f *fleet) exchange(ctx context.Context, rep *report.Report, play []int) error {
	if f.Member != 1 {
		return f.send(ctx, rep, play)
	}
	deadline := time.NewTimer(fleetResultsTimeout)
	defer deadline.Stop()
	for waiting := true; waiting; {
		f.mu.Lock()
		n, changed := len(f.results), f.changed
		f.mu.Unlock()
		if n >= f.Size-1 {
			break
		}
		select {
		case <-changed:
		case <-deadline.C:
			f.note(fmt.Sprintf("the verdicts of %d of the other %d members came within %s: the report is theirs and this one's", n, f.Size-1, fleetResultsTimeout))
			waiting = false
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.fold(rep, play)
	return nil
}

// send delivers this member's verdicts to member 1, again until it says
// it has them.
func (f *fleet) send(ctx context.Context, rep *report.Report, play []int) error {
	out := struct {
		Member  int           `json:"member"`
		Results []fleetResult `json:"results"`
	}{Member: f.Member}
	for _, i := range play {
		sc := rep.Scenarios[i]
		r := fleetResult{ID: sc.ID, Outcome: sc.Outcome, Message: sc.Message}
		if l := sc.Load; l != nil {
			r.Load = &fleetLoad{Bursts: l.Bursts, Messages: l.Messages, Answers: l.Answers, Spans: l.Spans, Delays: l.Delays}
		}
		out.Results = append(out.Results, r)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, fleetResultsTimeout)
	defer cancel()
	for {
		// Each request is given a few seconds: one lost on the way (a
		// slow consumer's connection drops what it cannot take) would
		// otherwise hold this member until the deadline. Member 1 takes
		// a repeat as the same verdicts.
		actx, acancel := context.WithTimeout(ctx, fleetAskFor)
		_, err = f.nc.RequestWithContext(actx, f.subject("results"), b)
		acancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("fleet %s: member 1 did not take this member's verdicts: %w", f.Name, errors.Join(err, ctx.Err()))
		}
		select {
		case <-time.After(fleetRepeatEvery):
		case <-ctx.Done():
		}
	}
}

// fold makes rep the fleet's: each played scenario's outcome is the worst
// of the members', with the others' named in its notes, and its load
// figures are every member's together.
func (f *fleet) fold(rep *report.Report, play []int) {
	members := slices.Sorted(func(yield func(int) bool) {
		for m := range f.results {
			if !yield(m) {
				return
			}
		}
	})
	for _, i := range play {
		sc := rep.Scenarios[i]
		for _, m := range members {
			k := slices.IndexFunc(f.results[m], func(r fleetResult) bool { return r.ID == sc.ID })
			if k < 0 {
				sc.Notes = append(sc.Notes, fmt.Sprintf("fleet member %d did not play it", m))
				continue
			}
			r := f.results[m][k]
			sc.Notes = append(sc.Notes, fmt.Sprintf("fleet member %d: %s", m, cmpMessage(&report.ScenarioResult{Outcome: r.Outcome, Message: r.Message})))
			if severity(r.Outcome) > severity(sc.Outcome) {
				sc.Outcome, sc.Message = r.Outcome, fmt.Sprintf("fleet member %d: %s", m, r.Message)
			}
			if l := r.Load; l != nil {
				if sc.Load == nil {
					sc.Load = &report.Load{}
				}
				sc.Load.Bursts += l.Bursts
				sc.Load.Messages += l.Messages
				sc.Load.Answers += l.Answers
				sc.Load.Spans = append(sc.Load.Spans, l.Spans...)
				sc.Load.Delays = append(sc.Load.Delays, l.Delays...)
			}
		}
		if sc.Load != nil {
			finishLoad(sc.Load)
		}
	}
	rep.Fleet = &report.FleetInfo{Name: f.Name, Size: f.Size, Members: len(members) + 1}
	f.mu.Lock()
	rep.Fleet.Notes = append(rep.Fleet.Notes, f.notes...)
	f.mu.Unlock()
}
