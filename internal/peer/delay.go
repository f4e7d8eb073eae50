package peer

import (
	"log/slog"
	"sync"
	"time"
)

// delayLine holds publications back by a fixed delay (the slow:DURATION
// fault). It is one FIFO with one sender: every entry is due its delay
// after it was queued, so entries leave in the order they came, and many
// queued together leave together, not one delay after another.
type delayLine struct {
	delay time.Duration
	send  func(subject string, data []byte) error
	log   *slog.Logger

	mu    sync.Mutex
	queue []delayed
	wake  chan struct{} // a push to an empty line
	quit  chan struct{}
	done  chan struct{}
}

type delayed struct {
	due     time.Time
	subject string
	data    []byte
}

// startDelayLine starts the line's sender; stop ends it.
func startDelayLine(delay time.Duration, send func(string, []byte) error, log *slog.Logger) *delayLine {
	l := &delayLine{delay: delay, send: send, log: log,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

// push queues one publication; it never blocks the peer.
func (l *delayLine) push(subject string, data []byte) error {
	l.mu.Lock()
	l.queue = append(l.queue, delayed{time.Now().Add(l.delay), subject, data})
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return nil
}

// stop ends the sender. What is still queued is never sent: a peer that
// stops does not finish its sleeps.
func (l *delayLine) stop() {
	close(l.quit)
	<-l.done
}

func (l *delayLine) run() {
	defer close(l.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		l.mu.Lock()
		if len(l.queue) == 0 {
			l.mu.Unlock()
			select {
			case <-l.wake:
				continue
			case <-l.quit:
				return
			}
		}
		next := l.queue[0]
		l.mu.Unlock()
		if wait := time.Until(next.due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-l.quit:
				return
			}
		}
		l.mu.Lock()
		l.queue[0] = delayed{}
		l.queue = l.queue[1:]
		l.mu.Unlock()
		if err := l.send(next.subject, next.data); err != nil {
			l.log.Error("publish", "subject", next.subject, "err", err)
		}
	}
}
