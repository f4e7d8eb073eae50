package report

import (
	"fmt"
	"time"
)

// Kinds of LifeEvent.
const (
	LifeExited       = "exited"       // the process ended
	LifeDisconnected = "disconnected" // its broker connection closed
	LifeDeaf         = "deaf"         // it stopped answering probes
	LifeBack         = "back"         // it reconnected on its own and is served again
	LifeRestarted    = "restarted"    // the harness started it again and it greeted
	LifeGone         = "gone"         // it did not come back: the rest of the run cannot be played
)

// LifeEvent is one change in the IUT's liveness during the run.
type LifeEvent struct {
	At    Millis `json:"at_ms"` // since the run started
	Kind  string `json:"kind"`
	Cause string `json:"cause,omitempty"` // "exit status 0", "Client Closed", ...
	// InFlight are the scenarios the death interrupted.
	InFlight []string `json:"in_flight,omitempty"`
	// Last is what a scenario sent last before a death, and when.
	Last string `json:"last_sent,omitempty"`
	// Stdout and Stderr are the IUT's last lines when it happened.
	Stdout []string `json:"stdout_tail,omitempty"`
	Stderr []string `json:"stderr_tail,omitempty"`
	// Said is the IUT's latest stderr line that names a panic or an error
	// (a stack trace's tail rarely says what went wrong).
	Said string `json:"error_line,omitempty"`
	// Blame says why a death blames no scenario, once that is known: it
	// followed no input closely, or it comes at the same uptime whatever
	// is sent.
	Blame string `json:"blame,omitempty"`
}

// Says is what happened to the IUT, as a clause: "the IUT exited".
func (e LifeEvent) Says() string {
	switch e.Kind {
	case LifeExited:
		return "the IUT exited"
	case LifeDisconnected:
		return "the IUT's broker connection closed"
	case LifeDeaf:
		return "the IUT went deaf"
	case LifeBack:
		return "the IUT came back"
	case LifeRestarted:
		return "the IUT was started again"
	}
	return "the IUT is gone"
}

// String is the event in one line, as the run prints it.
func (e LifeEvent) String() string {
	s := fmt.Sprintf("IUT %s at %s", e.Kind, e.At.D().Round(time.Millisecond))
	if e.Cause != "" {
		s += " (" + e.Cause + ")"
	}
	if e.Last != "" {
		s += "; " + e.Last
	}
	return s
}

// Death reports whether the event is a death (exited, disconnected, deaf).
func (e LifeEvent) Death() bool {
	return e.Kind == LifeExited || e.Kind == LifeDisconnected || e.Kind == LifeDeaf
}
