package termline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/harness"
)

func TestWaitLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		w     harness.Wait
		width int
		want  string
	}{
		{"greet", harness.Wait{Elapsed: 1200 * time.Millisecond, For: "the IUT's greet on agh.network.v0.ws.ch.broadcast"}, 100,
			"  1.2s waiting for the IUT's greet on agh.network.v0.ws.ch.broadcast"},
		{"stderr-controls", harness.Wait{Elapsed: 12 * time.Second, For: "the IUT's greet", LastStderr: "connecting\r\x1b[2Kto nats"}, 100,
			" 12.0s waiting for the IUT's greet | IUT: connecting  [2Kto nats"},
		{"narrow", harness.Wait{Elapsed: 3 * time.Second, For: "the IUT's greet", LastStderr: "dialing nats://127.0.0.1:4222 (attempt 7 of 10) …"}, 40,
			"  3.0s waiting for the IUT's greet | I…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := waitLine(tc.w, tc.width)
			if got != tc.want {
				t.Errorf("WaitLine = %q, want %q", got, tc.want)
			}
			if n := len([]rune(got)); n >= tc.width {
				t.Errorf("%q is %d columns, width %d", got, n, tc.width)
			}
		})
	}
}

// The live line redraws in place and leaves nothing behind.
func TestLiveWait(t *testing.T) {
	var b bytes.Buffer
	live := LiveWait(&b, 80)
	live(harness.Wait{Elapsed: time.Second, For: "the IUT's greet", LastStderr: "a long line from the IUT"})
	live(harness.Wait{Elapsed: 2 * time.Second, For: "the IUT's greet"})
	live(harness.Wait{Done: true})
	out := b.String()
	frames := strings.Split(out, "\r")
	if strings.Contains(out, "\n") || len(frames) != 5 {
		t.Fatalf("frames %q", frames)
	}
	first := len([]rune(frames[1]))
	if len([]rune(frames[2])) != first || strings.TrimSpace(frames[3]) != "" || len([]rune(frames[3])) != first {
		t.Errorf("a shorter line must blank the longer one before it, and the end erase it: %q", frames)
	}
	var quiet bytes.Buffer
	LiveWait(&quiet, 80)(harness.Wait{Done: true})
	if quiet.Len() != 0 {
		t.Errorf("an end with nothing shown wrote %q", quiet.String())
	}
}

// A log that is not a terminal hears a wait once it has lasted the given
// span, and again each span while it lasts; a shorter wait goes untold.
func TestLogWait(t *testing.T) {
	var b bytes.Buffer
	log := LogWait(&b, 10*time.Second)
	log(harness.Wait{Elapsed: 2 * time.Second, Run: 3 * time.Second, For: "a step"})
	log(harness.Wait{Done: true})
	if b.Len() != 0 {
		t.Fatalf("a short wait printed %q", b.String())
	}
	log(harness.Wait{Elapsed: 10 * time.Second, Run: 12 * time.Second, For: "kinds.x step 2: a matching receipt", Others: 3})
	log(harness.Wait{Elapsed: 10200 * time.Millisecond, Run: 12200 * time.Millisecond, For: "kinds.x step 2: a matching receipt", Others: 3})
	want := "aghcheck: 12s into the run, 10.0s waiting for kinds.x step 2: a matching receipt (and 3 more)\n"
	if b.String() != want {
		t.Errorf("printed %q, want %q (once within the span)", b.String(), want)
	}
}
