package peer

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// sweepDedupAt is how many dedup entries make the window be swept early
// (what has expired forgotten before its time to be swept comes). Past a
// sweep, the next is due at twice what was left: entries still within the
// replay window must be kept (forgetting one would take its replay), and
// sweeping a full table on every message made a busy peer answer ever
// later (a fuzz run's 100,000th message).
const sweepDedupAt = 100000

// handle runs one inbound message through the receiver's validation order:
// engine checks (parse, fields, freshness, kinds, body, trust), routing,
// dedup, then the kind's behaviour.
func (p *peer) handle(subject string, raw []byte) {
	ck, err := p.checker()
	if err != nil {
		p.log.Error("engine", "err", err)
		return
	}
	if p.faults[faultNullBodyAbsent] {
		raw = dropNullBody(raw)
	}
	res := ck.CheckBytes(raw)
	if res.Envelope == nil && p.faults[faultLenientJSON] && !utf8.Valid(raw) {
		// Read as Go's encoding/json and most decoders read it: each
		// bad byte a U+FFFD.
		res = ck.CheckBytes([]byte(strings.ToValidUTF8(string(raw), "\uFFFD")))
	}
	env := res.Envelope
	if env == nil {
		p.log.Debug("ignored: not a JSON object", "subject", subject, "bytes", len(raw))
		p.deaf = p.faults[faultDeafAfterGarbage]
		return
	}
	from, _ := env["from"].(string)
	if p.faults[faultShunOdd] {
		if p.shunned[from] {
			return
		}
		if odd(res, env) {
			if p.shunned == nil {
				p.shunned = map[string]bool{}
			}
			p.shunned[strings.Clone(from)] = true
		}
	}
	kind, _ := env["kind"].(string)
	id, _ := env["id"].(string)
	to, _ := env["to"].(string)
	if from == p.self {
		return
	}
	if ws, _ := env["workspace_id"].(string); ws != p.cfg.Workspace {
		p.log.Debug("ignored: other workspace", "id", id, "workspace", ws)
		return
	}
	if ch, _ := env["channel"].(string); ch != p.cfg.Channel {
		p.log.Debug("ignored: other channel", "id", id, "channel", ch)
		return
	}
	// Someone else's directed traffic seen on the broadcast subject is not
	// ours to judge.
	if to != "" && to != p.self && subject != p.ownSubject {
		if c := containerOf(env); p.faults[faultReportOthersWork] && c != nil && env["work_id"] != nil && (kind == agh.KindSay || kind == agh.KindCapability) {
			// Only work with a container: the fault is the misplaced
			// receipt, not a crash on one without (aghcheck fuzz found it).
			p.receipt(env, c, agh.StatusAccepted, "", "", true)
		}
		if !p.faults[faultBroadcastAddressed] {
			return
		}
		to = p.self
	}
	p.log.Debug("received", "kind", kind, "id", id, "from", from, "subject", subject)

	if p.faults[faultInitLax] && p.laxApply(env) {
		return
	}
	if p.faults[faultRouteBeforeValidate] && to != "" && to != p.self {
		p.refuse(env, "not_target", nil)
		return
	}
	reason, fs := p.refusal(res, env)
	reason, fs = p.unsortedRoom(env, reason, fs)
	if reason == agh.ReasonExpired && id != "" && p.faults[faultExpiredRemembered] {
		p.remember(dedupKey{from, id}, env)
	}
	p.helperRefuse(res, env, reason)
	if reason != "" {
		p.log.Debug("refused", "id", id, "reason", reason, "findings", len(fs))
		p.refuse(env, reason, fs)
		return
	}
	to = p.loosen(env, subject, to)
	kind, _ = env["kind"].(string)
	if to != "" && to != p.self {
		p.refuse(env, "not_target", nil)
		return
	}
	if id != "" && !p.faults[faultNoDedupe] {
		k := p.dedupKey(from, id)
		if _, dup := p.seen[k]; dup && !p.slipsThrough() {
			p.refuse(env, "duplicate", nil)
			return
		}
		p.remember(k, env)
	}

	p.dispatch(env, kind, from, subject, to == p.self)
}

// dispatch hands a message that passed every check to what it is for:
// discovery, a control request, the initiator's half or the lifecycle.
func (p *peer) dispatch(env map[string]any, kind, from, subject string, directed bool) {
	switch kind {
	case "greet":
		p.notePeer(env)
		if subject == p.broadcast {
			p.ordersFor(from)
		}
	case "whois":
		p.whois(env, directed)
	case "say", "capability", "receipt", "trace":
		// A control request is for the peer itself, not work: it never
		// reaches the lifecycle, whatever a fault does with a say.
		if p.controlRequest(env, directed) {
			return
		}
		if directed && env["work_id"] == nil && kind == "say" && p.faults[faultInventWork] {
			env["work_id"] = "work_" + randid.Hex(8)
		}
		if !directed || env["work_id"] == nil {
			return
		}
		if w := p.initiatedFor(env); w != nil {
			p.asInitiator(env, w)
			return
		}
		p.lifecycle(env)
	}
}

// smallPayload is the size above which faultSmallPayload drops a payload.
const smallPayload = 64 << 10

// receive takes one NATS message: its payload is one envelope, whatever
// reply subject it came with.
func (p *peer) receive(m *nats.Msg) {
	p.inbox = m.Reply
	defer func() { p.inbox = "" }()
	switch {
	case p.deaf:
		return
	case p.faults[faultSmallPayload] && len(m.Data) > smallPayload:
		p.log.Debug("ignored: oversized", "subject", m.Subject, "bytes", len(m.Data))
		return
	case p.faults[faultSplitPayload]:
		dec := json.NewDecoder(bytes.NewReader(m.Data))
		for {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return
			}
			p.handle(m.Subject, raw)
		}
	}
	p.handle(m.Subject, m.Data)
}

// refusal is the reason_code the engine's findings call for ("" to
// accept), with the findings a fault tells the peer to overlook removed,
// and every finding (trust included) the refusal is answered by.
func (p *peer) refusal(res agh.Result, env map[string]any) (string, []rules.Finding) {
	fs := res.Findings
	state := res.Trust
	// Trust is part of the engine's verdict; evaluate here only if the
	// engine left it out and there is a proof to judge.
	if state == "" {
		if pr, ok := env["proof"]; ok && pr != nil {
			st, tfs := trust.Evaluate(env)
			state = string(st)
			fs = append(append([]rules.Finding(nil), fs...), tfs...)
		}
	}
	all := fs
	// A peer without the trust profile owes no refusal for its rules.
	ignoreTrust := p.faults[faultAcceptBadSignature] || p.cfg.NoTrust
	ignore := map[string]bool{}
	if p.faults[faultAcceptExpired] {
		ignore["expired"] = true
	}
	if p.faults[faultAcceptMalformed] && env["kind"] == "say" && env["work_id"] != nil {
		ignore["malformed"] = true
	}
	overlooked := false
	if len(p.faults) > 0 || ignoreTrust {
		kept := fs[:0:0]
		for _, f := range fs {
			if p.faults.overlooks(f.Rule.ID) || (p.faults[faultLenientJSON] && lenient[f.Rule]) {
				overlooked = true
				continue
			}
			// The trust fault overlooks the proof only: a bad capability
			// digest is verification_failed too but stays refused.
			if ignore[f.Rule.Reason] || (ignoreTrust && f.Rule.Profile == trustRuleProfile) {
				continue
			}
			kept = append(kept, f)
		}
		fs = kept
	}
	// An overlooked trust rule takes its rejection with it; the correct
	// peer trusts the engine's verdict as is.
	rejected := state == string(trust.Rejected) && (!overlooked || hasProfile(fs, trustRuleProfile))
	reason := agh.RefusalReason(fs)
	if reason == "" && rejected && !ignoreTrust {
		reason = "verification_failed"
	}
	if reason == "" && p.faults[faultRejectVerified] && env["proof"] != nil {
		reason = "verification_failed"
	}
	if reason == "" && p.faults[faultRequireProof] && env["proof"] == nil && env["kind"] != "greet" {
		reason = "verification_failed"
	}
	if p.faults[faultProfileBadProof] && slices.ContainsFunc(all, func(f rules.Finding) bool { return f.Rule == trust.RuleProfileUnsupported }) {
		reason = "verification_failed"
	}
	if reason != "" && p.faults[faultOneFailureClass] {
		reason = agh.ReasonMalformed
	}
	return reason, all
}

// lenient are the input rules a lenient JSON decoder does not enforce
// (faultLenientJSON).
var lenient = map[*rules.Rule]bool{rules.InputDuplicateKey: true, rules.InputNumber: true}

// trustRuleProfile is the rules.Rule.Profile of the trust profile's rules.
const trustRuleProfile = "agh-trust"

func hasProfile(fs []rules.Finding, profile string) bool {
	for _, f := range fs {
		if f.Rule.Profile == profile {
			return true
		}
	}
	return false
}

// dedupKey is what the dedupe table knows a message by: its sender and id.
func (p *peer) dedupKey(from, id string) dedupKey {
	if p.faults[faultReferenceReadings] {
		return dedupKey{"", id} // one id space for every sender
	}
	return dedupKey{from, id}
}

// remember records (sender, id) for the replay window: at least the
// replay age, and as long as the message itself stays fresh.
func (p *peer) remember(k dedupKey, env map[string]any) {
	now := p.now().Unix()
	until := now + int64(p.cfg.MaxReplayAge/time.Second)
	if exp, ok := intField(env, "expires_at"); ok && exp > until {
		until = min(exp, now+24*3600)
	}
	if len(p.seen) >= max(p.sweepAt, sweepDedupAt) {
		p.sweep()
		p.sweepAt = 2 * len(p.seen)
	}
	// Its own copy: a decoded id shares the memory of the whole message.
	p.seen[dedupKey{strings.Clone(k.from), strings.Clone(k.id)}] = until
}

// refuse answers a refused message with a receipt when it carries a
// usable work context; otherwise it stays silent. A broken message (fs
// set) is answered as agh.Answerable says: a say or capability. A valid
// one refused for its place in the work (not_target, a container or id
// already taken: fs nil) is answered whenever it is sound work traffic, a
// trace or a cancel included: its sender acts on that work.
func (p *peer) refuse(env map[string]any, reason string, fs []rules.Finding) {
	answer := agh.Answerable(env, fs)
	if fs == nil && !answer {
		body, _ := env["body"].(map[string]any)
		kind := env["kind"]
		answer = (kind == "trace" || (kind == "receipt" && body["status"] == "canceled")) &&
			agh.Str(env, "id") != "" && agh.Str(env, "from") != "" && agh.Str(env, "to") != "" && agh.Str(env, "work_id") != "" && containerOf(env) != nil
	}
	if !answer || (reason == agh.ReasonExpired && p.faults[faultExpiredSilent]) || p.faults[faultRefuseSilent] {
		return
	}
	r := p.receiptFor(env, containerOf(env), agh.RefusalStatus(reason), reason, "")
	if p.faults[faultRefusalCopies] {
		// A sender defect: the receipt carries the refused envelope's
		// broken members as they came (the refusal itself is right).
		for k, v := range brokenMembers(env, fs) {
			r[k] = v
		}
	}
	if p.faults[faultRefusalChannel] {
		// A sender defect the work-unit tracker sees: the receipt is
		// sound on its own, and goes where a receipt should, but names
		// another channel than the message it refuses.
		r["channel"] = agh.Str(env, "channel") + "-refusals"
	}
	p.publish(r, p.faults[faultRefusalCopies] || p.faults[faultRefusalChannel], nil)
}

// brokenMembers are the top-level members of env that error findings
// point into, but for those a refusal receipt is built from (agh.Answerable
// vouches for them): what a careless peer copies into its answer.
func brokenMembers(env map[string]any, fs []rules.Finding) map[string]any {
	out := map[string]any{}
	for _, f := range fs {
		if f.Rule == nil || f.Rule.Severity != rules.Error {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(f.Pointer, "/"), "/")
		switch name {
		case "", "id", "from", "to", "work_id", "surface", "thread_id", "direct_id", "kind", "body", "protocol", "workspace_id", "channel", "proof":
			continue
		}
		if v, ok := env[name]; ok {
			out[name] = v
		}
	}
	return out
}

// container is the conversation surface and id a work unit is bound to;
// loose holds the members as received (JSON) where an overlook fault let
// the peer take a message without a sound container (loose.go).
type container struct{ surface, id, loose string }

func containerOf(env map[string]any) *container {
	s, _ := env["surface"].(string)
	var key string
	switch s {
	case "thread":
		key = "thread_id"
	case "direct":
		key = "direct_id"
	default:
		return nil
	}
	id, _ := env[key].(string)
	if id == "" {
		return nil
	}
	return &container{surface: s, id: id}
}

func (c *container) apply(env map[string]any) {
	if c.loose != "" {
		var members map[string]any
		_ = json.Unmarshal([]byte(c.loose), &members)
		for k, v := range members {
			env[k] = v
		}
		return
	}
	if c.surface == "thread" {
		env["surface"], env["thread_id"] = "thread", c.id
	} else {
		env["surface"], env["direct_id"] = "direct", c.id
	}
}

// receipt answers trigger with a receipt to its sender in container c.
func (p *peer) receipt(trigger map[string]any, c *container, status, reason, detail string, deliberate bool) {
	p.publish(p.receiptFor(trigger, c, status, reason, detail), deliberate, nil)
}

// receiptFor is the receipt answering trigger, not yet sent.
func (p *peer) receiptFor(trigger map[string]any, c *container, status, reason, detail string) map[string]any {
	id, _ := trigger["id"].(string)
	body := map[string]any{"for_id": id, "status": status}
	if reason != "" {
		body["reason_code"] = reason
	}
	if detail != "" {
		body["detail"] = detail
	}
	env := p.reply("receipt", trigger, c, body)
	env["reply_to"] = id
	return env
}

// reply starts a conversation envelope answering trigger: to its sender,
// same work and container, caused by it, on its trace.
func (p *peer) reply(kind string, trigger map[string]any, c *container, body map[string]any) map[string]any {
	env := p.envelope(kind, body)
	env["to"] = trigger["from"]
	env["work_id"] = trigger["work_id"]
	c.apply(env)
	if id, _ := trigger["id"].(string); id != "" {
		env["causation_id"] = id
	}
	if tid, _ := trigger["trace_id"].(string); tid != "" {
		env["trace_id"] = tid
	}
	return env
}

func intField(env map[string]any, key string) (int64, bool) {
	switch v := env[key].(type) {
	case interface{ Int64() (int64, error) }:
		n, err := v.Int64()
		return n, err == nil
	case float64:
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}

// odd reports whether a message is one a receiver may take or refuse but
// must survive: anything the rule engine finds (a broken member, a repeated
// one, a number past a double's range), or a ts ahead of the peer's clock.
func odd(res agh.Result, env map[string]any) bool {
	if len(res.Findings) > 0 {
		return true
	}
	ts, ok := intField(env, "ts")
	return ok && ts > time.Now().Unix()+60
}
