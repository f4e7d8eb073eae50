package harness

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// A scenario timeout shorter than a silence window (or a wait) is a
// harness setting that leaves the step undecided: an error, never a
// failure blamed on an IUT that stayed correctly silent. A message that
// did break the silence before the cut still fails.
func TestTimeoutInsideSilenceIsError(t *testing.T) {
	rep := runAgainst(t, "peer", Config{
		Select:        regexp.MustCompile(`^(envelope\.kind-direct-refused|envelope\.malformed-work-refused)$`),
		Timeout:       150 * time.Millisecond,
		SilenceWindow: 2 * time.Second,
	})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	n := 0
	for _, sc := range rep.Scenarios {
		if sc.Outcome == Skip {
			continue
		}
		n++
		if sc.Outcome != Error || !strings.Contains(sc.Message, "timeout") {
			t.Errorf("%s: %s %q, want error (the scenario timeout cut its silence window)", sc.ID, sc.Outcome, sc.Message)
		}
	}
	if n != 2 {
		t.Fatalf("%d scenarios played, want 2", n)
	}

	// The broken peer answers the malformed work at once: still a failure.
	rep = runAgainst(t, "peer:accept-malformed", Config{
		Select:        regexp.MustCompile(`^envelope\.malformed-work-refused$`),
		Timeout:       150 * time.Millisecond,
		SilenceWindow: 2 * time.Second,
	})
	for _, sc := range rep.Scenarios {
		if sc.ID == "envelope.malformed-work-refused" && sc.Outcome != Fail {
			t.Errorf("%s against accept-malformed: %s %q, want fail", sc.ID, sc.Outcome, sc.Message)
		}
	}
}
