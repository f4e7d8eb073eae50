package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// failsafe only keeps a broken pipeline from hanging the test: every wait
// below ends as soon as the event arrives.
const failsafe = 20 * time.Second

// TestLiveStream: on an input that stays open, every complete document is
// emitted (and Idle called) without waiting for more input or the end of
// the stream; cancelling the context then returns the summary of what was
// read, with the context's error.
func TestLiveStream(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	emitted := make(chan string, 6000)
	idle := make(chan struct{}, 1)
	v := newTestValidator(t, Options{Workers: 2, Stdin: pr, Idle: func() {
		select {
		case idle <- struct{}{}:
		default:
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		sum Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := v.Run(ctx, []Input{{Stdin: true}}, func(d *Document) error {
			emitted <- got(d)
			return nil
		})
		done <- result{sum, err}
	}()
	await := func(what string) string {
		t.Helper()
		select {
		case s := <-emitted:
			return s
		case <-time.After(failsafe):
			t.Fatalf("%s: not reported while the stream stayed open", what)
			return ""
		}
	}
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(pw, s); err != nil {
			t.Fatal(err)
		}
	}

	// A pretty-printed document with no newline after it, then NDJSON.
	send("{\n  \"tiny\": 1,\n  \"ok\": true\n}")
	if g := await("the first document"); g != "1#-1 tiny true []" {
		t.Errorf("first document: %s", g)
	}
	send("\n{\"tiny\":2}\n")
	if g := await("the second document"); g != "5#-1 tiny false [TEST-TINY-OK]" {
		t.Errorf("second document: %s", g)
	}
	select {
	case <-idle:
	case <-time.After(failsafe):
		t.Fatal("Idle was never called while the stream waited")
	}
	// A burst larger than a batch is not held back either.
	const burst = 5000
	var b strings.Builder
	for i := range burst {
		fmt.Fprintf(&b, "{\"tiny\":%d,\"ok\":true}\n", i)
	}
	send(b.String())
	for i := range burst {
		await(fmt.Sprintf("document %d of the burst", i+1))
	}

	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("interrupted Run: error %v, want context.Canceled", r.err)
		}
		if r.sum.Documents != burst+2 || r.sum.Invalid != 1 {
			t.Errorf("interrupted Run: summary %+v, want %d documents, 1 invalid", r.sum, burst+2)
		}
	case <-time.After(failsafe):
		t.Fatal("Run did not return after its context was cancelled")
	}
}
