// Package testwait waits in tests for a condition to come true, within a
// deadline, instead of sleeping for a fixed time and hoping it has: a test
// goes on as soon as the condition holds, and a condition that never holds
// fails the test rather than hanging it.
package testwait

import (
	"testing"
	"time"
)

// maxInterval caps the pause between two polls: short enough that a test
// goes on soon after its condition holds, long enough not to spin a core
// the other packages' tests are using.
const maxInterval = 20 * time.Millisecond

// Until polls cond until it holds or limit has passed, and reports whether
// it held. The pause between polls starts at a millisecond and doubles up
// to maxInterval, so a condition that is true at once or soon costs little.
func Until(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	pause := time.Millisecond
	for !cond() {
		if !time.Now().Before(deadline) {
			return cond() // one last look: the pause may have been enough
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, maxInterval)
	}
	return true
}

// Eventually fails the test at once (t.Fatalf) when cond does not hold
// within limit; what says what was waited for, with fmt verbs filled from
// args.
func Eventually(t testing.TB, limit time.Duration, cond func() bool, what string, args ...any) {
	t.Helper()
	if !Until(limit, cond) {
		t.Fatalf("timed out after %s waiting for "+what, append([]any{limit}, args...)...)
	}
}
