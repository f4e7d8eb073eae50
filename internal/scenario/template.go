package scenario

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
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
	head, args := parts[0], parts[1:]
	one := func() (string, error) {
		if len(args) != 1 || args[0] == "" {
			return "", fmt.Errorf("{{%s}} needs exactly one name after %q", expr, head)
		}
		return args[0], nil
	}
	peer := func(name string) (*TestPeer, error) {
		p, ok := c.Peers[name]
		if !ok {
			return nil, fmt.Errorf("{{%s}}: no test peer %q", expr, name)
		}
		return p, nil
	}
	switch head {
	case "ws":
		return c.Workspace, nil
	case "channel":
		return c.Channel, nil
	case "broadcast":
		return c.derive(func() string { return agh.BroadcastSubject(c.Workspace, c.Channel) }), nil
	case "iut":
		switch {
		case len(args) == 0:
			return c.IUT, nil
		case len(args) == 1 && args[0] == "route":
			return c.derive(func() string { return agh.RouteToken(c.IUT) }), nil
		case len(args) == 1 && args[0] == "subject":
			return c.derive(func() string { return agh.PeerSubject(c.Workspace, c.Channel, c.IUT) }), nil
		}
	case "peer", "route", "subject":
		name, err := one()
		if err != nil {
			return nil, err
		}
		p, err := peer(name)
		if err != nil {
			return nil, err
		}
		switch head {
		case "peer":
			return p.ID, nil
		case "route":
			return c.derive(func() string { return agh.RouteToken(p.ID) }), nil
		default:
			return c.derive(func() string { return agh.PeerSubject(c.Workspace, c.Channel, p.ID) }), nil
		}
	case "direct":
		if len(args) < 1 || len(args) > 2 {
			return nil, fmt.Errorf("{{%s}}: direct.P or direct.P.Q", expr)
		}
		a, err := peer(args[0])
		if err != nil {
			return nil, err
		}
		other := c.IUT
		if len(args) == 2 {
			b, err := peer(args[1])
			if err != nil {
				return nil, err
			}
			other = b.ID
		}
		if c.Dry {
			return "direct_x", nil
		}
		return agh.DirectID(c.Workspace, c.Channel, a.ID, other)
	case "id", "work", "thread":
		name, err := one()
		if err != nil {
			return nil, err
		}
		prefix := map[string]string{"id": "msg_", "work": "work_", "thread": "thread_"}[head]
		return prefix + c.Tag + "_" + name, nil
	case "pad":
		n, err := one()
		if err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(n)
		if err != nil || size < 0 || size > maxPad {
			return nil, fmt.Errorf("{{%s}}: pad.N needs a size from 0 to %d", expr, maxPad)
		}
		return strings.Repeat("x", size), nil
	case "byte":
		// One byte, that may be no text at all: in a raw send, the way to
		// write a byte that is not UTF-8 into a scenario file.
		n, err := one()
		if err != nil {
			return nil, err
		}
		b, err := strconv.ParseUint(n, 16, 8)
		if err != nil || len(n) != 2 {
			return nil, fmt.Errorf("{{%s}}: byte.HH needs two hex digits", expr)
		}
		return string([]byte{byte(b)}), nil
	case "capture":
		name, err := one()
		if err != nil {
			return nil, err
		}
		v, ok := c.Captures[name]
		if !ok {
			return nil, fmt.Errorf("{{%s}}: nothing captured as %q yet", expr, name)
		}
		return v, nil
	}
	return nil, fmt.Errorf("unknown template {{%s}}", expr)
}
