package broker

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/nats-io/nats-server/v2/server"
)

// Violation is a publish or subscription the broker refused the confined
// IUT user: the harness never sees the message, so without this a peer
// that publishes outside the run's subjects would only go quiet.
type Violation struct {
	Publish bool   // a publish (else a subscription)
	Subject string // what it tried
}

// maxViolations bounds what is kept: a peer that loops on a refused
// subject says so in the first few.
const maxViolations = 64

// violationLog is the embedded server's logger: it keeps the permission
// violations (only the IUT's user has permissions to violate) and drops
// everything else (the server logs nothing otherwise).
type violationLog struct {
	mu    sync.Mutex
	seen  map[Violation]bool
	list  []Violation
	total int
}

// violation matches the server's own words for a refusal. The line starts
// with the client's description, which holds the name the client chose,
// but quoted (%q): a name cannot hold `Subject "` unescaped, so a client
// cannot forge or hide a refusal by naming itself.
var violation = regexp.MustCompile(`(Publish|Subscription) Violation - (?:Subject|Reply) ("(?:[^"\\]|\\.)*")`)

func (l *violationLog) Errorf(format string, v ...any) {
	msg := format
	if len(v) > 0 {
		msg = fmt.Sprintf(format, v...)
	}
	m := violation.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	subject, err := strconv.Unquote(m[2])
	if err != nil {
		return
	}
	vi := Violation{Publish: m[1] == "Publish", Subject: subject}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total++
	if l.seen[vi] || len(l.list) >= maxViolations {
		return
	}
	if l.seen == nil {
		l.seen = map[Violation]bool{}
	}
	l.seen[vi] = true
	l.list = append(l.list, vi)
}

func (l *violationLog) Noticef(string, ...any) {}
func (l *violationLog) Warnf(string, ...any)   {}
func (l *violationLog) Fatalf(string, ...any)  {}
func (l *violationLog) Debugf(string, ...any)  {}
func (l *violationLog) Tracef(string, ...any)  {}

var _ server.Logger = (*violationLog)(nil)

// Violations lists the distinct publishes and subscriptions the broker
// refused the confined IUT (at most maxViolations), and how many refusals
// there were in all.
func (b *Broker) Violations() ([]Violation, int) {
	if b == nil || b.vlog == nil {
		return nil, 0
	}
	b.vlog.mu.Lock()
	defer b.vlog.mu.Unlock()
	return append([]Violation(nil), b.vlog.list...), b.vlog.total
}

// RefusedSubscription reports a subscription the broker refused the
// confined IUT whose pattern covers subject (a literal subject outside
// what the IUT may hear): the IUT asked to hear what was published there,
// and was not let. A subject the IUT may hear is never reported: a wide
// pattern refused for its other subjects did not keep this one from it.
func (b *Broker) RefusedSubscription(subject string) (pattern string, ok bool) {
	if b == nil || slices.ContainsFunc(b.iutAllow, func(a string) bool { return server.SubjectMatchesFilter(subject, a) }) {
		return "", false
	}
	vs, _ := b.Violations()
	for _, v := range vs {
		if !v.Publish && server.SubjectMatchesFilter(subject, v.Subject) {
			return v.Subject, true
		}
	}
	return "", false
}
