package scenario

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// A scenario file, like a fuzz corpus entry, is data: whatever it says, a
// run publishes only on its own subjects. With --nats-url the harness
// connects with the user's credentials to the user's broker, where a
// subject such as $JS.API.STREAM.DELETE.ORDERS or orders.new would act on
// someone else's streams and services.
//
// The run's subjects are those of its workspace (agh.network.v0.WS., which
// its JetStream stream, when it has one, captures), those of a workspace
// named after it (WS-other: the run makes its workspace's name, so such a
// workspace is its own too; a scenario uses one to show that the IUT keeps
// to its own workspace), and the two subjects of the obsolete channel-only
// binding of the run's channel (agh.network.v0.CHANNEL.broadcast and
// .peer.TOKEN, where a scenario shows that the IUT does not listen). A NATS
// reply subject may also be an inbox (_INBOX.…).

// Confined reports whether subject is one a run in workspace ws and
// channel ch may publish on.
func Confined(subject, ws, ch string) bool {
	if !wellFormed(subject) || ws == "" {
		return false
	}
	rest, ok := strings.CutPrefix(subject, agh.SubjectPrefix+".")
	if !ok {
		return false
	}
	first, after, _ := strings.Cut(rest, ".")
	switch {
	case after == "":
		return false
	case first == ws, strings.HasPrefix(first, ws+"-"):
		return true
	case first == ch:
		return after == "broadcast" || (strings.HasPrefix(after, "peer.") && !strings.Contains(strings.TrimPrefix(after, "peer."), "."))
	}
	return false
}

// ReplyConfined reports whether reply is a NATS reply subject a run may
// send: one of its subjects, or an inbox.
func ReplyConfined(reply, ws, ch string) bool {
	return Confined(reply, ws, ch) || (strings.HasPrefix(reply, "_INBOX.") && wellFormed(reply))
}

// wellFormed reports whether subject is one a publish may name: tokens
// that are not empty, no wildcard, no white space or control character.
func wellFormed(subject string) bool {
	if subject == "" || len(subject) > 1024 {
		return false
	}
	for _, tok := range strings.Split(subject, ".") {
		if tok == "" || tok == "*" || tok == ">" {
			return false
		}
	}
	for _, r := range subject {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// ErrUnconfined is the error of a publish the run refuses.
func ErrUnconfined(what, subject string) error {
	return fmt.Errorf("%s %q is not one of the run's subjects (agh.network.v0.WORKSPACE.…)", what, rules.Clip(subject, 120, "…"))
}
