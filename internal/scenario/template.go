package scenario

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// TestPeer is a test peer as played in one scenario run.
type TestPeer struct {
	Name string
	ID   string
	Key  ed25519.PrivateKey // nil for an unsigned peer
}

// Context is what templates can see while one scenario runs.
type Context struct {
	Workspace, Channel string
	IUT                string // the IUT's peer id
	Tag                string // unique per scenario run: keeps ids apart
	Peers              map[string]*TestPeer
	Captures           map[string]any
	Now                func() time.Time // nil means time.Now
	// Dry makes derivations return placeholders: lint checks templates
	// without a run.
	Dry bool
}

func (c *Context) derive(f func() string) string {
	if c.Dry {
		return "x"
	}
	return f()
}

func (c *Context) now() int64 {
	if c.Now != nil {
		return c.Now().Unix()
	}
	return time.Now().Unix()
}

// Render returns a deep copy of v with every {{ expr }} in its strings
// (and map keys) expanded. A string that is exactly one template takes the
// value's own type, so "{{now}}" is a number and "{{capture.card}}" an object.
func (c *Context) Render(v any) (any, error) {
	return mapStrings(v, c.renderString, func(k string) (string, error) {
		rk, err := c.renderString(k)
		if err != nil {
			return "", err
		}
		if ks, ok := rk.(string); ok {
			return ks, nil
		}
		return fmt.Sprint(rk), nil
	})
}

// RenderMap is Render for an object.
func (c *Context) RenderMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	v, err := c.Render(m)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// RenderString expands s and formats the result as text.
func (c *Context) RenderString(s string) (string, error) {
	v, err := c.renderString(s)
	if err != nil {
		return "", err
	}
	return text(v), nil
}

func (c *Context) renderString(s string) (any, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	trim := strings.TrimSpace(s)
	if strings.HasPrefix(trim, "{{") && strings.HasSuffix(trim, "}}") && strings.Count(trim, "{{") == 1 {
		return c.Eval(strings.TrimSpace(trim[2 : len(trim)-2]))
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("unclosed {{ in %q", s)
		}
		b.WriteString(rest[:i])
		v, err := c.Eval(strings.TrimSpace(rest[i+2 : i+j]))
		if err != nil {
			return nil, err
		}
		b.WriteString(text(v))
		rest = rest[i+j+2:]
	}
	return b.String(), nil
}

func text(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case nil:
		return "null"
	case map[string]any, []any:
		b, _ := json.Marshal(t)
		return string(b)
	}
	return fmt.Sprint(v)
}

// maxPad is the largest {{pad.N}}: past the 1 MiB every peer must take,
// for a broker that carries more (aghcheck fuzz).
const maxPad = 4 << 20

// Eval computes one template expression:
//
//	now, now+N, now-N          Unix seconds (N in seconds)
//	ws, channel, broadcast     the run's workspace, channel, broadcast subject
//	iut, iut.route, iut.subject
//	peer.P, route.P, subject.P a test peer's id, route token, peer subject
//	direct.P, direct.P.Q       direct-room id of P and the IUT, or of P and Q
//	id.X, work.X, thread.X     fresh message, work and thread ids of this run
//	capture.X                  a value captured by an earlier expect
//	pad.N                      a string of N "x" (for size tests)
//	byte.HH                    the one byte HH (hex), UTF-8 or not
func (c *Context) Eval(expr string) (any, error) {
	if expr == "" {
		return nil, fmt.Errorf("empty template")
	}
	if rest, ok := strings.CutPrefix(expr, "now"); ok {
		n := c.now()
		if rest != "" {
			off, err := strconv.ParseInt(strings.ReplaceAll(rest, " ", ""), 10, 64)
			if err != nil || (rest[0] != '+' && rest[0] != '-') {
				return nil, fmt.Errorf("bad time offset in {{%s}}", expr)
			}
			n += off
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	parts := strings.Split(expr, ".")
	x := tmplExpr{expr: expr, head: parts[0], args: parts[1:]}
	switch x.head {
	case "ws", "channel", "broadcast", "iut":
		if v, ok := c.evalRun(x); ok {
			return v, nil
		}
	case "peer", "route", "subject", "direct":
		return c.evalPeer(x)
	case "id", "work", "thread", "pad", "byte", "capture":
		return c.evalValue(x)
	}
	return nil, fmt.Errorf("unknown template {{%s}}", expr)
}

// tmplExpr is a template expression split at its dots: head.args...
type tmplExpr struct {
	expr, head string
	args       []string
}

// one is the expression's only name after its head.
func (x tmplExpr) one() (string, error) {
	if len(x.args) != 1 || x.args[0] == "" {
		return "", fmt.Errorf("{{%s}} needs exactly one name after %q", x.expr, x.head)
	}
	return x.args[0], nil
}

// peer is the test peer name names.
func (c *Context) peer(x tmplExpr, name string) (*TestPeer, error) {
	p, ok := c.Peers[name]
	if !ok {
		return nil, fmt.Errorf("{{%s}}: no test peer %q", x.expr, name)
	}
	return p, nil
}

// evalRun is the run's own names: ws, channel, broadcast, iut[.route|.subject].
func (c *Context) evalRun(x tmplExpr) (any, bool) {
	switch x.head {
	case "ws":
		return c.Workspace, true
	case "channel":
		return c.Channel, true
	case "broadcast":
		return c.derive(func() string { return agh.BroadcastSubject(c.Workspace, c.Channel) }), true
	}
	switch {
	case len(x.args) == 0:
		return c.IUT, true
	case len(x.args) == 1 && x.args[0] == "route":
		return c.derive(func() string { return agh.RouteToken(c.IUT) }), true
	case len(x.args) == 1 && x.args[0] == "subject":
		return c.derive(func() string { return agh.PeerSubject(c.Workspace, c.Channel, c.IUT) }), true
	}
	return nil, false
}

// evalPeer is a test peer's names: peer.P, route.P, subject.P, direct.P[.Q].
func (c *Context) evalPeer(x tmplExpr) (any, error) {
	if x.head == "direct" {
		if len(x.args) < 1 || len(x.args) > 2 {
			return nil, fmt.Errorf("{{%s}}: direct.P or direct.P.Q", x.expr)
		}
		a, err := c.peer(x, x.args[0])
		if err != nil {
			return nil, err
		}
		other := c.IUT
		if len(x.args) == 2 {
			b, err := c.peer(x, x.args[1])
			if err != nil {
				return nil, err
			}
			other = b.ID
		}
		if c.Dry {
			return "direct_x", nil
		}
		return agh.DirectID(c.Workspace, c.Channel, a.ID, other)
	}
	name, err := x.one()
	if err != nil {
		return nil, err
	}
	p, err := c.peer(x, name)
	if err != nil {
		return nil, err
	}
	switch x.head {
	case "peer":
		return p.ID, nil
	case "route":
		return c.derive(func() string { return agh.RouteToken(p.ID) }), nil
	default:
		return c.derive(func() string { return agh.PeerSubject(c.Workspace, c.Channel, p.ID) }), nil
	}
}

// evalValue is a value of the run: id.X, work.X, thread.X, pad.N, byte.HH,
// capture.X.
func (c *Context) evalValue(x tmplExpr) (any, error) {
	n, err := x.one()
	if err != nil {
		return nil, err
	}
	switch x.head {
	case "pad":
		size, err := strconv.Atoi(n)
		if err != nil || size < 0 || size > maxPad {
			return nil, fmt.Errorf("{{%s}}: pad.N needs a size from 0 to %d", x.expr, maxPad)
		}
		return strings.Repeat("x", size), nil
	case "byte":
		// One byte, that may be no text at all: in a raw send, the way to
		// write a byte that is not UTF-8 into a scenario file.
		b, err := strconv.ParseUint(n, 16, 8)
		if err != nil || len(n) != 2 {
			return nil, fmt.Errorf("{{%s}}: byte.HH needs two hex digits", x.expr)
		}
		return string([]byte{byte(b)}), nil
	case "capture":
		v, ok := c.Captures[n]
		if !ok {
			return nil, fmt.Errorf("{{%s}}: nothing captured as %q yet", x.expr, n)
		}
		return v, nil
	}
	prefix := map[string]string{"id": "msg_", "work": "work_", "thread": "thread_"}[x.head]
	return prefix + c.Tag + "_" + n, nil
}

// captureRef is a {{capture.NAME}} expression.
var captureRef = regexp.MustCompile(`\{\{\s*capture\.([^\s{}]+)\s*\}\}`)

// NeedsCapture returns the first of names step st refers to ("" for none):
// a step that cannot be rendered while that capture is missing.
func NeedsCapture(st *Step, names map[string]int) string {
	if len(names) == 0 {
		return ""
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return ""
	}
	for _, m := range captureRef.FindAllSubmatch(raw, -1) {
		if _, ok := names[string(m[1])]; ok {
			return string(m[1])
		}
	}
	return ""
}
