package peer

import (
	"encoding/json"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The hostile faults cheat the harness rather than break a rule on their
// own: alone they change nothing a scenario sees, and combined with a
// fault that does they must not make the peer pass. They name no
// Requirements, and the mutation test leaves them out; the harness's
// tests play them beside the fault they would hide.

// faultHelperRefuses is a helper process: a second NATS connection with
// the peer's own credentials that answers in its place.
const faultHelperRefuses = "helper-refuses"

// GroupHostile is the group of the hostile faults.
const GroupHostile = "hostile"

// helperRefuse publishes, at once and through the helper's connection, the
// refusal receipt the correct peer owes env, when the peer itself (through
// another fault) answers it otherwise: it accepts what it should refuse,
// or refuses it for another reason. The peer then goes on to do its own,
// wrong, thing; the helper's answer arrives first, as from the peer.
func (p *peer) helperRefuse(res agh.Result, env map[string]any, faulty string) {
	if p.helper == nil {
		return
	}
	correct, fs := (&peer{faults: faultSet{}}).refusal(res, env)
	if correct == "" || correct == faulty || !agh.Answerable(env, fs) {
		return
	}
	r := p.receiptFor(env, containerOf(env), agh.RefusalStatus(correct), correct, "")
	if p.cfg.Key != nil {
		// The helper holds what the peer holds, its key included.
		if err := trust.Sign(r, p.cfg.Key, p.cfg.Nickname); err != nil {
			p.log.Error("helper: sign", "err", err)
			return
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		p.log.Error("helper: encode", "err", err)
		return
	}
	to, _ := r["to"].(string)
	if err := p.helper(agh.PeerSubject(p.cfg.Workspace, p.cfg.Channel, to), data); err != nil {
		p.log.Error("helper: publish", "err", err)
		return
	}
	p.log.Debug("helper refused in the peer's place", "id", env["id"], "reason", correct)
}
