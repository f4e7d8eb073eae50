package harness

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Never silent while waiting. Whatever the run waits for (the IUT's greet,
// an expect step's match, the IUT's return after a death, a fresh IUT
// living past an uptime) is registered while it lasts, and Config.Waiting
// hears, every waitingEvery, the wait that has lasted longest, for how
// long, and how many others there are: a terminal redraws it as one line,
// a CI log prints it now and then (termline.LogWait).

// waits are what the run waits for now.
type waits struct {
	mu   sync.Mutex
	next int
	on   map[int]awaited
	told bool // a wait was told since the last Done
}

// awaited is one thing waited for and since when.
type awaited struct {
	what  string
	since time.Time
}

// await registers that the run waits for what; done ends the wait.
func (r *runner) await(what string) (done func()) {
	w := &r.waits
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.on == nil {
		w.on = map[int]awaited{}
	}
	w.next++
	k := w.next
	w.on[k] = awaited{what: what, since: time.Now()}
	return func() {
		w.mu.Lock()
		delete(w.on, k)
		w.mu.Unlock()
	}
}

// longest is the wait that has lasted longest and how many waits there
// are (0: none).
func (w *waits) longest() (awaited, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first awaited
	for _, f := range w.on {
		if first.since.IsZero() || f.since.Before(first.since) {
			first = f
		}
	}
	return first, len(w.on)
}

// tellWaits tells Config.Waiting how the waits go, every waitingEvery,
// until ctx ends; a wait shorter than waitingEvery goes untold. It returns
// once it has told its last Done.
func (r *runner) tellWaits(ctx context.Context) {
	if r.cfg.Waiting == nil {
		return
	}
	t := time.NewTicker(waitingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			r.tellWait(Wait{Done: true})
			return
		case <-t.C:
		}
		f, n := r.waits.longest()
		if n == 0 || time.Since(f.since) < waitingEvery {
			r.tellWait(Wait{Done: true})
			continue
		}
		w := Wait{Elapsed: time.Since(f.since), Run: time.Since(r.start), For: f.what, Others: n - 1}
		if p := r.process(); p != nil {
			w.LastStderr = strings.TrimPrefix(lastLine(p.Stderr()), ": ")
		}
		r.tellWait(w)
	}
}

// tellWait passes one Wait on, between progress lines (never during
// one), and a Done only after a wait was told.
func (r *runner) tellWait(w Wait) {
	r.waits.mu.Lock()
	if w.Done && !r.waits.told {
		r.waits.mu.Unlock()
		return
	}
	r.waits.told = !w.Done
	r.waits.mu.Unlock()
	r.progress.Lock()
	r.cfg.Waiting(w)
	r.progress.Unlock()
}

// Line is the wait in words: what the run waits for, for how long, and
// how many other waits there are.
func (w Wait) Line() string {
	s := fmt.Sprintf("waiting %s for %s", w.Elapsed.Round(100*time.Millisecond), w.For)
	if w.Others > 0 {
		s += fmt.Sprintf(" (and %d more)", w.Others)
	}
	return s
}
