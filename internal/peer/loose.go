package peer

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
)

// A peer with an overlook fault accepts a message that breaks the rules it
// overlooks. So that accepting shows, it then acts on the message as a
// lenient implementation would: an unknown kind is taken for a say, an
// empty to on its own subject names itself, and work is bound to the
// conversation members as the message has them, echoed on every reply.
// The correct peer never gets here: it refuses such messages first.

// overlooking reports whether an overlook fault is on.
func (p *peer) overlooking() bool {
	for name := range p.faults {
		if strings.HasPrefix(name, FaultOverlook) {
			return true
		}
	}
	return false
}

// loosen adjusts an accepted message's kind and addressee the lenient way
// and returns the addressee.
func (p *peer) loosen(env map[string]any, subject, to string) string {
	if !p.overlooking() {
		return to
	}
	if kind, _ := env["kind"].(string); !slices.Contains(agh.Kinds, kind) {
		env["kind"] = agh.KindSay
	}
	if env["to"] == "" && subject == p.ownSubject {
		return p.self
	}
	return to
}

// containerOf is the container work is bound to: the message's, or, for a
// peer overlooking a rule that leaves it none, its members as they are.
func (p *peer) containerOf(env map[string]any) *container {
	if c := containerOf(env); c != nil || !p.overlooking() {
		return c
	}
	members := map[string]any{}
	for _, k := range []string{"surface", "thread_id", "direct_id"} {
		if v, ok := env[k]; ok {
			members[k] = v
		}
	}
	b, _ := json.Marshal(members)
	return &container{loose: string(b)}
}

// dropNullBody removes the body members set to null, as a decoder into a
// typed struct reads them (the null-body-as-absent fault); bytes without
// such a member are returned as they are.
func dropNullBody(raw []byte) []byte {
	var env map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&env) != nil {
		return raw
	}
	body, _ := env["body"].(map[string]any)
	dropped := false
	for k, v := range body {
		if v == nil {
			delete(body, k)
			dropped = true
		}
	}
	if !dropped {
		return raw
	}
	out, err := json.Marshal(env)
	if err != nil {
		return raw
	}
	return out
}
