package testwait

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	t.Parallel()
	n := 0
	if !Until(time.Second, func() bool { n++; return n == 3 }) {
		t.Fatal("a condition true on the third poll was not seen")
	}
	start := time.Now()
	if Until(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds was reported to hold")
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("gave up after %s, want the 30ms limit", d)
	}
}

func TestEventuallyFails(t *testing.T) {
	t.Parallel()
	ft := &fakeT{TB: t}
	done := make(chan struct{})
	go func() { // Fatalf ends the goroutine, as in a real test
		defer close(done)
		Eventually(ft, 10*time.Millisecond, func() bool { return false }, "the %s", "thing")
	}()
	<-done
	if want := "timed out after 10ms waiting for the thing"; ft.msg != want {
		t.Fatalf("message %q, want %q", ft.msg, want)
	}
}

// fakeT records the message Fatalf is given instead of failing the test.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
