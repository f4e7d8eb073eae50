package peer

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// The liveness faults make the peer slow, kill it or cut it off, so that
// the harness can show its verdicts hold for a peer that is not fast and
// healthy. They break no protocol rule (a peer may take its time; dying is
// judged by the harness, not by a requirement), so they name no
// Requirements and the mutation test leaves them out.

const (
	faultSlow         = "slow:"
	faultCrashOn      = "crash-on:"
	faultDisconnectOn = "disconnect-on:"
	faultDropAfter    = "drop-after-greet:"
	faultDeafAfter    = "deaf-after:"
	faultDeafOn       = "deaf-on:"
	faultHangUpAfter  = "hang-up-after:"
	faultFloodBytes   = "flood-bytes:"
	faultPace         = "pace:"
)

// GroupLiveness is the group of the liveness faults. They name no
// Requirements: the mutation test, which proves each fault is caught by a
// scenario citing a rule it breaks, leaves them out.
const GroupLiveness = "liveness"

// CrashExitCode is the status a process gives up with when its peer
// crashed (Run returned ErrCrashed): Go's for an unhandled panic.
const CrashExitCode = 2

// ErrCrashed is returned by Run when a crash-on fault fired: the peer has
// printed a panic and its stack trace to Config.Stderr, and its process
// should now exit with CrashExitCode.
var ErrCrashed = errors.New("peer crashed")

// liveness is the parsed parameters of the liveness faults.
type liveness struct {
	slow      time.Duration // every non-greet publication goes out this late
	pace      time.Duration // work it does on its own completes this long after its working trace
	dropAfter time.Duration // drops the connection this long after a join or reconnect greet
	hangUp    time.Duration // closes the connection for good this long after its join greet
	flood     int           // publishes envelopes of this many bytes without pause; 0: never
	deafAfter int           // processes this many messages, then none; -1: no limit
	crashOn   *input
	hangUpOn  *input
	deafOn    *input
}

// livenessFault is one parameterised liveness fault: its listing and how
// its parameter sets the peer's liveness.
type livenessFault struct {
	Fault
	set func(l *liveness, param string) error
}

// prefix is the fault's name up to its parameter ("slow:").
func (f livenessFault) prefix() string {
	i := strings.IndexByte(f.Name, ':')
	return f.Name[:i+1]
}

var livenessFaults = []livenessFault{
	{Fault{faultSlow + "DURATION", GroupLiveness, "publishes every envelope but its greets DURATION late (one delay line: order kept, delays overlap); judges what it receives at once; otherwise correct", nil},
		func(l *liveness, s string) (err error) { l.slow, err = positiveDuration(s); return err }},
	{Fault{faultPace + "DURATION", GroupLiveness, "works at its own pace: work it does on its own (no control script) completes DURATION after its working trace, on a timer, while the peer reads on (a message for the work meanwhile finds it open, a cancel cancels it); otherwise correct", nil},
		func(l *liveness, s string) (err error) { l.pace, err = positiveDuration(s); return err }},
	{Fault{faultCrashOn + "INPUT", GroupLiveness, "on receiving INPUT (" + inputNames() + ") prints a Go panic and stack trace to stderr and exits with status 2", nil},
		func(l *liveness, s string) (err error) { l.crashOn, err = lookupInput(s); return err }},
	{Fault{faultDisconnectOn + "INPUT", GroupLiveness, "on receiving INPUT prints an error and stack trace to stderr and closes its NATS connection for good; the process lingers until signalled", nil},
		func(l *liveness, s string) (err error) { l.hangUpOn, err = lookupInput(s); return err }},
	{Fault{faultDeafOn + "INPUT", GroupLiveness, "on receiving INPUT prints an error and stack trace to stderr, drops that message and closes its subscription to its own peer subject, keeping its connection, its broadcast subscription and its greets (as nats.js does when a subscription callback throws)", nil},
		func(l *liveness, s string) (err error) { l.deafOn, err = lookupInput(s); return err }},
	{Fault{faultDropAfter + "DURATION", GroupLiveness, "DURATION after its join greet and after each reconnect greet, drops its broker connection and reconnects at once (and greets again); presence greets do not restart the cycle", nil},
		func(l *liveness, s string) (err error) { l.dropAfter, err = positiveDuration(s); return err }},
	{Fault{faultHangUpAfter + "DURATION", GroupLiveness, "DURATION after its join greet, whatever it received, closes its NATS connection for good; the process lingers until signalled", nil},
		func(l *liveness, s string) (err error) { l.hangUp, err = positiveDuration(s); return err }},
	{Fault{faultFloodBytes + "SIZE", GroupLiveness, "from its join greet on, publishes valid say envelopes of SIZE bytes each (a number of bytes, or KiB or MiB: 1MiB is the broker's max payload) on the broadcast subject as fast as its connection takes them, while serving as usual", nil},
		func(l *liveness, s string) (err error) { l.flood, err = parseSize(s); return err }},
	{Fault{faultDeafAfter + "N", GroupLiveness, "after receiving N messages processes nothing more it receives (no replies), yet stays connected and keeps greeting", nil},
		func(l *liveness, s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return fmt.Errorf("N %q is not a whole number of messages (0 or more)", s)
			}
			l.deafAfter = n
			return nil
		}},
}

// livenessOf parses the liveness faults among names; a fault given twice
// with different parameters is an error.
func livenessOf(names []string) (liveness, error) {
	l := liveness{deafAfter: -1}
	given := map[string]string{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		for _, f := range livenessFaults {
			param, ok := strings.CutPrefix(n, f.prefix())
			if !ok {
				continue
			}
			if prev, twice := given[f.prefix()]; twice && prev != n {
				return l, fmt.Errorf("fault %s given twice (%s, %s)", f.Name, prev, n)
			}
			given[f.prefix()] = n
			if err := f.set(&l, param); err != nil {
				return l, fmt.Errorf("fault %q: %w", n, err)
			}
		}
	}
	return l, nil
}

// isLiveness reports whether name is an instance of a liveness fault.
func isLiveness(name string) bool {
	for _, f := range livenessFaults {
		if strings.HasPrefix(name, f.prefix()) {
			return true
		}
	}
	return false
}

// parseSize reads SIZE: a whole number of bytes, or of KiB or MiB.
func parseSize(s string) (int, error) {
	num, unit := s, 1
	for _, u := range []struct {
		suffix string
		n      int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, unit = v, u.n
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || n > 64<<20/unit {
		return 0, fmt.Errorf("SIZE %q is not a size from 1 byte to 64MiB (such as 1MiB, 512KiB or 4096)", s)
	}
	return n * unit, nil
}

func positiveDuration(s string) (time.Duration, error) {
	d, err := ParseSeconds(s)
	if err != nil {
		return 0, fmt.Errorf("DURATION %q is not a positive duration (such as 3s, 250ms or 1.5)", s)
	}
	return d, nil
}

// input is a kind of message a crash-on or disconnect-on fault trips on.
// env is the payload decoded as a JSON object, nil when it is not one.
type input struct {
	name, desc string
	match      func(env map[string]any) bool
}

var inputs = []input{
	{"whois-query-type", "a whois request whose body.query is present and not a string", func(env map[string]any) bool {
		body, _ := env["body"].(map[string]any)
		q, present := body["query"]
		_, text := q.(string)
		return env["kind"] == "whois" && body["type"] == "request" && present && !text
	}},
	{"garbage", "bytes that are not a JSON object", func(env map[string]any) bool { return env == nil }},
	{"any-say", "any say envelope", func(env map[string]any) bool { return env["kind"] == "say" }},
	{"deep-nesting", "an envelope whose arrays and objects nest more than 128 levels deep", func(env map[string]any) bool { return env != nil && depth(env) > 128 }},
}

// depth is how deeply v nests arrays and objects (a scalar: 0).
func depth(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			d = max(d, depth(e))
		}
	case []any:
		for _, e := range t {
			d = max(d, depth(e))
		}
	default:
		return 0
	}
	return d + 1
}

func inputNames() string {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.name
	}
	return strings.Join(names, ", ")
}

func lookupInput(name string) (*input, error) {
	for i := range inputs {
		if inputs[i].name == name {
			return &inputs[i], nil
		}
	}
	return nil, fmt.Errorf("unknown INPUT %q (known: %s)", name, inputNames())
}

// listening counts one delivered message and reports whether the peer
// still processes what it receives (deaf-after:N).
func (p *peer) listening() bool {
	if p.live.deafAfter < 0 {
		return true
	}
	p.received++
	if p.received == p.live.deafAfter+1 {
		p.log.Info("deaf from now on", "fault", fmt.Sprintf("%s%d", faultDeafAfter, p.live.deafAfter))
	}
	return p.received <= p.live.deafAfter
}

// tripped reports the crash-on, disconnect-on or deaf-on fault raw sets
// off (fault "" when none), what it received, for the report, and whether
// the fault is a crash. A crash wins over a disconnect, a disconnect over
// deafness, on the same input.
func (p *peer) tripped(raw []byte) (fault, what string, crash bool) {
	if p.live.crashOn == nil && p.live.hangUpOn == nil && p.live.deafOn == nil {
		return "", "", false
	}
	var env map[string]any
	if json.Unmarshal(raw, &env) != nil {
		env = nil
	}
	for _, f := range []struct {
		prefix string
		in     *input
	}{{faultCrashOn, p.live.crashOn}, {faultDisconnectOn, p.live.hangUpOn}, {faultDeafOn, p.live.deafOn}} {
		if f.in == nil || !f.in.match(env) {
			continue
		}
		what = f.in.desc
		if id, _ := env["id"].(string); id != "" {
			what += " (id " + id + ")"
		}
		return f.prefix + f.in.name, what, f.prefix == faultCrashOn
	}
	return "", "", false
}

// crash prints what an unhandled panic in a message callback prints, and
// the error Run returns for it.
func (p *peer) crash(fault, what string) error {
	fmt.Fprintf(p.cfg.Stderr, "panic: %s: received %s\n\n%s\n", fault, what, debug.Stack())
	return fmt.Errorf("%w: %s: received %s", ErrCrashed, fault, what)
}

// hangUp prints an error with its stack trace, as a runtime whose client
// dies on an exception in a callback does, and closes the connection
// without a reconnect.
func (p *peer) hangUp(close func(), fault, what string) {
	fmt.Fprintf(p.cfg.Stderr, "error in message handler: %s: received %s; closing the NATS connection\n%s\n", fault, what, debug.Stack())
	close()
	p.log.Info("connection closed for good; lingering until signalled", "fault", fault)
}

// goDeaf prints what a runtime prints for an exception thrown in a
// subscription callback and closes the subscription to the peer's own
// subject: nats.js stops a subscription whose callback throws and keeps the
// connection, so the peer stays connected, greets and hears broadcasts,
// and no longer hears what is addressed to it.
func (p *peer) goDeaf(unsubscribe func() error, fault, what string) {
	fmt.Fprintf(p.cfg.Stderr, "error in subscription callback: %s: received %s; the subscription to %s is closed\n%s\n", fault, what, p.ownSubject, debug.Stack())
	if err := unsubscribe(); err != nil {
		p.log.Error("unsubscribe", "subject", p.ownSubject, "err", err)
	}
	p.log.Info("deaf on its own subject from now on; still connected", "fault", fault)
}

// dropCycle is the drop-after-greet timer; with no duration it never fires.
type dropCycle struct {
	d time.Duration
	t *time.Timer
}

// arm starts the cycle again: the drop is due d from now.
func (c *dropCycle) arm() {
	switch {
	case c.d <= 0:
	case c.t == nil:
		c.t = time.NewTimer(c.d)
	default:
		c.t.Reset(c.d)
	}
}

// due fires when the connection is to be dropped (nil: never).
func (c *dropCycle) due() <-chan time.Time {
	if c.t == nil {
		return nil
	}
	return c.t.C
}

func (c *dropCycle) stop() {
	if c.t != nil {
		c.t.Stop()
	}
}
