package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// notifyingBuffer is a stdout that tells, on every write, what has been
// written so far.
type notifyingBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan string
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	select {
	case b.wrote <- b.buf.String():
	default:
	}
	return n, err
}

func (b *notifyingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestValidateLiveStreamInterrupted: `validate -` on a stream that stays
// open prints each document's result as soon as the document is complete,
// and SIGINT prints the summary of what was read and exits 2 (nothing was
// invalid). Not parallel: it signals its own process.
func TestValidateLiveStreamInterrupted(t *testing.T) {
	const failsafe = 20 * time.Second // ends a hang; every wait ends on its event
	say, err := os.ReadFile("../../fixtures/agh/valid/say-thread-broadcast.json")
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &notifyingBuffer{wrote: make(chan string, 1)}
	var errb bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run([]string{"validate", "-"}, pr, out, &errb) }()

	if _, err := pw.Write(say); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(failsafe)
	for !strings.Contains(out.String(), "<stdin>:1: valid (agh") {
		select {
		case <-out.wrote:
		case <-deadline:
			t.Fatalf("the document's result was not printed while the stream stayed open; stdout so far: %q", out.String())
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != exitUsageErr {
			t.Errorf("exit %d, want %d (interrupted, nothing invalid)", c, exitUsageErr)
		}
	case <-time.After(failsafe):
		t.Fatal("validate did not end on SIGINT")
	}
	if !strings.HasSuffix(out.String(), "1 document, 1 valid, 0 invalid, 0 errors, 0 warnings\n") {
		t.Errorf("stdout does not end with the summary:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("stderr does not say the run was interrupted: %q", errb.String())
	}
}
