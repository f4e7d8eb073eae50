package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// Compose builds the envelope a send step publishes, in this order: the
// members the sending test peer fills (protocol, the given id, workspace_id, channel,
// from, ts, proof null, and to as the step addresses it), the step's own
// members, its drops, the capability digest, the signature, then the
// tampering. The live harness and the family generator both build every
// envelope here, so a generated case is checked exactly as it is played.
func (c *Context) Compose(s *Send, from *TestPeer, id string) (map[string]any, error) {
	env := map[string]any{
		"protocol":     agh.Protocol,
		"id":           id,
		"workspace_id": c.Workspace,
		"channel":      c.Channel,
		"from":         from.ID,
		"ts":           json.Number(strconv.FormatInt(c.now(), 10)),
		"proof":        nil,
	}
	switch s.To {
	case "iut":
		env["to"] = c.IUT
	case "broadcast", "":
		env["to"] = nil
	default:
		p, ok := c.Peers[s.To]
		if !ok {
			return nil, fmt.Errorf("send to %q: no such test peer", s.To)
		}
		env["to"] = p.ID
	}
	over, err := c.RenderMap(s.Envelope)
	if err != nil {
		return nil, err
	}
	for k, v := range over {
		env[k] = v
	}
	for _, k := range s.Drop {
		delete(env, k)
	}
	if s.Digest {
		capDoc, _ := agh.CapabilityOf(env)
		if capDoc == nil {
			return nil, errors.New("digest: the envelope has no body.capability")
		}
		d, err := agh.CapabilityDigest(capDoc)
		if err != nil {
			return nil, fmt.Errorf("digest: %w", err)
		}
		capDoc["digest"] = d
	}
	if s.Sign {
		if err := trust.Sign(env, from.Key, from.Name); err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
	}
	if s.Tamper != nil {
		t, err := c.RenderMap(s.Tamper)
		if err != nil {
			return nil, err
		}
		Merge(env, t)
	}
	return env, nil
}

// Merge overlays src onto dst, recursing into objects.
func Merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				Merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}
