package harness

import "github.com/aghcheck/aghcheck/internal/agh"

// confine is what the IUT may publish and subscribe on when the run's
// embedded broker carries it: the protocol subjects of the run's
// workspace, nothing else (the broker adds the inboxes its client needs).
// Without a workspace yet there is nothing to confine it to.
func confine(ws string) []string {
	if ws == "" {
		return nil
	}
	return []string{agh.SubjectPrefix + "." + ws + ".>"}
}
