package fuzz

import (
	_ "embed"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"gopkg.in/yaml.v3"
)

// The generator makes each case from one seed and one mutation (two, now
// and then, so that faults which need two things wrong at once show too).
// A mutation knows the protocol: it removes, nulls or retypes a member,
// puts a value of mutations.yaml in its place (broken grammars, enums,
// times, digests, signatures, sizes; valid edge values too), sets together
// members that exclude each other or parts one from its partner, adds an
// extension, makes the message huge, sends it where it is not addressed,
// changes a signed message after signing, or changes the bytes themselves
// (a BOM, a repeated member, deep nesting, a number no double holds,
// trailing bytes, two envelopes in one payload, bytes that are not an
// object or not UTF-8). Every random choice comes from one PCG stream
// seeded by --seed, in order, so the same seed gives the same cases.

//go:embed mutations.yaml
var mutationsYAML []byte

// dictionary is mutations.yaml: values by JSON pointer.
type dictionary struct {
	Values map[string][]any `yaml:"values"`
}

func loadDictionary() (map[string][]any, error) {
	var d dictionary
	if err := yaml.Unmarshal(mutationsYAML, &d); err != nil {
		return nil, fmt.Errorf("mutations.yaml: %w", err)
	}
	for ptr, vals := range d.Values {
		if !strings.HasPrefix(ptr, "/") || len(vals) == 0 {
			return nil, fmt.Errorf("mutations.yaml: %q: want a JSON pointer with at least one value", ptr)
		}
		for i, v := range vals {
			vals[i] = jsonx.FromYAML(v)
		}
	}
	return d.Values, nil
}

// draft is a case while it is being made.
type draft struct {
	seed *seed
	send scenario.Send
	ops  []string // what was done, in words
	keys []string // what was done, as op@pointer (the case's signature)
	// accept is the requirement a peer breaks by not taking the message,
	// when a mutation keeps it valid on purpose ("" when none names it).
	accept string
	// bystander: the message is addressed to another peer and seen by the
	// IUT on the broadcast subject only.
	bystander bool
	// replay: the message is published twice, the same bytes back to back
	// (a retry, or a duplicate delivery).
	replay bool
	// pre is the send before its bytes were changed by bytesOps[bytesOp]
	// (-1: not UTF-8); nil when they were not.
	pre     *scenario.Send
	bytesOp int
	// unmutated: the seed itself, played first (fuzzer.seeds).
	unmutated bool
}

type generator struct {
	rng    *rand.Rand
	seeds  []seed
	signed int // how many seeds are signed
	dict   map[string][]any
	ptrs   []string // the dictionary's pointers, sorted
	// maxSend is the largest payload the broker carries: no message is
	// made larger (the same seed makes the same cases on the same broker).
	maxSend int64
}

func newGenerator(seed uint64, seeds []seed, dict map[string][]any, maxSend int64) *generator {
	ptrs := make([]string, 0, len(dict))
	for p := range dict {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	signed := 0
	for _, s := range seeds {
		if s.sign {
			signed++
		}
	}
	return &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seeds: seeds, signed: signed, dict: dict, ptrs: ptrs, maxSend: maxSend}
}

// mutation is one way to change a draft; it reports whether it applied.
type mutation struct {
	name   string
	weight int
	apply  func(g *generator, d *draft) bool
}

var mutations = []mutation{
	{"set", 30, (*generator).set},
	{"remove", 12, (*generator).remove},
	{"null", 6, (*generator).null},
	{"retype", 12, (*generator).retype},
	{"container", 5, (*generator).container},
	{"bytes", 10, (*generator).bytes},
	{"ext", 4, (*generator).ext},
	{"size", 1, (*generator).size},
	{"bystander", 3, (*generator).misroute},
	{"replay", 3, (*generator).replay},
	{"tamper", 12, (*generator).tamper},
}

// signedShare is the percentage of drafts made from a signed seed (when
// the IUT takes verified senders): the trust rules are a few of many, and
// a signed case costs a dozen signatures and verifications.
const signedShare = 8

// draft makes one mutant of a random seed.
func (g *generator) draft() *draft {
	s := g.pickSeed()
	d := &draft{seed: s, send: s.send}
	d.send.Envelope = jsonx.Copy(s.send.Envelope).(map[string]any)
	d.send.Drop = slices.Clone(s.send.Drop)
	n := 1
	if g.rng.IntN(100) < 15 {
		n = 2
	}
	total := 0
	for _, m := range mutations {
		total += m.weight
	}
	for tries := 0; len(d.ops) < n && tries < 20; tries++ {
		if d.send.Envelope == nil {
			break // the bytes were changed: nothing member-wise applies
		}
		r := g.rng.IntN(total)
		for _, m := range mutations {
			if r -= m.weight; r < 0 {
				m.apply(g, d)
				break
			}
		}
	}
	return d
}

// pickSeed chooses the seed of the next draft.
func (g *generator) pickSeed() *seed {
	signed := g.signed > 0 && g.rng.IntN(100) < signedShare
	for {
		s := &g.seeds[g.rng.IntN(len(g.seeds))]
		if s.sign == signed {
			return s
		}
	}
}

// note records what a mutation did.
func (d *draft) note(key, words string) {
	d.keys = append(d.keys, key)
	d.ops = append(d.ops, words)
}

// mutable lists the members of d's envelope a change before signing can
// reach: signing sets from and proof anew.
func (d *draft) mutable() []string {
	ms := members(d.send.Envelope)
	if d.seed.sign {
		ms = slices.DeleteFunc(ms, func(p string) bool { return p == "/from" || p == "/proof" })
	}
	return ms
}

// members lists the JSON pointers of the envelope's members down to
// body.capability's, sorted.
func members(env map[string]any) []string {
	var out []string
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		for k, v := range m {
			p := prefix + "/" + escape(k)
			out = append(out, p)
			if sub, ok := v.(map[string]any); ok && depth < 2 && (p == "/body" || p == "/body/capability" || p == "/ext") {
				walk(p, sub, depth+1)
			}
		}
	}
	walk("", env, 0)
	sort.Strings(out)
	return out
}

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

func escape(k string) string { return escaper.Replace(k) }

func unescape(k string) string { return unescaper.Replace(k) }

// parent is the object holding ptr's last token in env (created on the
// way when create is set) and that token.
func parent(env map[string]any, ptr string, create bool) (map[string]any, string) {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	m := env
	for _, t := range toks[:len(toks)-1] {
		t = unescape(t)
		next, ok := m[t].(map[string]any)
		if !ok {
			if _, taken := m[t]; taken || !create {
				return nil, ""
			}
			next = map[string]any{}
			m[t] = next
		}
		m = next
	}
	return m, unescape(toks[len(toks)-1])
}

// defaults are the members Compose fills when a step leaves them out: to
// remove one, the step drops it.
var defaults = map[string]bool{"protocol": true, "id": true, "workspace_id": true, "channel": true, "from": true, "ts": true, "proof": true, "to": true}

// put sets v at ptr, before signing or (after, for a signed draft, when
// after) as tampering.
func (d *draft) put(ptr string, v any, after bool) bool {
	target := d.send.Envelope
	if after {
		if d.send.Tamper == nil {
			d.send.Tamper = map[string]any{}
		}
		target = d.send.Tamper
	}
	m, k := parent(target, ptr, after || strings.HasPrefix(ptr, "/ext/"))
	if m == nil {
		return false
	}
	m[k] = v
	if !after && strings.Count(ptr, "/") == 1 {
		d.send.Drop = slices.DeleteFunc(d.send.Drop, func(s string) bool { return s == k })
	}
	if strings.HasPrefix(ptr, "/body/capability/digest") {
		d.send.Digest = false // the digest given stands
	}
	return true
}

// pick chooses a pointer the draft can take: a dictionary entry whose
// parent exists (an /ext/ member may create ext), a proof member only
// after signing, from only after signing (signing sets it).
func (g *generator) pick(d *draft, after bool) (string, bool) {
	var ok []string
	for _, p := range g.ptrs {
		switch {
		case strings.HasPrefix(p, "/proof/"):
			if after && d.seed.sign {
				ok = append(ok, p)
			}
		case p == "/from" && d.seed.sign && !after:
		case strings.HasPrefix(p, "/ext/"):
			ok = append(ok, p)
		default:
			if m, _ := parent(d.send.Envelope, p, false); m != nil {
				ok = append(ok, p)
			}
		}
	}
	if len(ok) == 0 {
		return "", false
	}
	return ok[g.rng.IntN(len(ok))], true
}

// after decides whether a change to a signed draft comes after signing.
func (g *generator) after(d *draft) bool { return d.seed.sign && g.rng.IntN(2) == 0 }

func (g *generator) set(d *draft) bool {
	after := g.after(d)
	p, ok := g.pick(d, after)
	if !ok {
		return false
	}
	vals := g.dict[p]
	v := jsonx.Copy(vals[g.rng.IntN(len(vals))])
	if !d.put(p, v, after) {
		return false
	}
	d.note("set@"+p, fmt.Sprintf("%s %s to %s", setWord(after), p, short(v)))
	return true
}

func setWord(after bool) string {
	if after {
		return "after signing, set"
	}
	return "set"
}

func (g *generator) remove(d *draft) bool {
	if d.seed.sign && g.rng.IntN(2) == 0 {
		return g.null(d) // nothing can be removed after signing
	}
	ms := d.mutable()
	if len(ms) == 0 {
		return false
	}
	p := ms[g.rng.IntN(len(ms))]
	m, k := parent(d.send.Envelope, p, false)
	delete(m, k)
	if strings.Count(p, "/") == 1 && defaults[k] {
		d.send.Drop = append(d.send.Drop, k)
	}
	if p == "/body/capability/digest" {
		d.send.Digest = false
	}
	d.note("remove@"+p, "remove "+p)
	return true
}

func (g *generator) null(d *draft) bool {
	ms := d.mutable()
	if len(ms) == 0 {
		return false
	}
	p := ms[g.rng.IntN(len(ms))]
	after := g.after(d)
	if !d.put(p, nil, after) {
		return false
	}
	d.note("null@"+p, setWord(after)+" "+p+" to null")
	return true
}

// others are values of every JSON type, one of which replaces a member of
// another type.
var others = []any{"x", 7, true, []any{}, map[string]any{}}

func (g *generator) retype(d *draft) bool {
	ms := d.mutable()
	if len(ms) == 0 {
		return false
	}
	p := ms[g.rng.IntN(len(ms))]
	m, k := parent(d.send.Envelope, p, false)
	cur := typeOf(m[k])
	var choices []any
	for _, o := range others {
		if typeOf(o) != cur {
			choices = append(choices, o)
		}
	}
	v := jsonx.Copy(choices[g.rng.IntN(len(choices))])
	after := g.after(d)
	if !d.put(p, v, after) {
		return false
	}
	d.note("retype@"+p+":"+typeOf(v), fmt.Sprintf("%s %s to %s (a %s)", setWord(after), p, short(v), typeOf(v)))
	return true
}

func typeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// container sets together the members the surface rules keep apart, or
// parts one from the member it goes with.
func (g *generator) container(d *draft) bool {
	env := d.send.Envelope
	type change struct {
		words string
		set   map[string]any
		drop  []string
	}
	var cs []change
	switch agh.Str(env, "surface") {
	case "thread":
		cs = append(cs, change{"add direct_id beside thread_id", map[string]any{"direct_id": "{{direct.tester}}"}, nil},
			change{"surface direct with thread_id", map[string]any{"surface": "direct"}, nil},
			change{"thread_id without surface", nil, []string{"surface"}})
	case "direct":
		cs = append(cs, change{"add thread_id beside direct_id", map[string]any{"thread_id": "{{thread.t}}"}, nil},
			change{"surface thread with direct_id", map[string]any{"surface": "thread"}, nil},
			change{"direct_id without surface", nil, []string{"surface"}})
	default:
		cs = append(cs, change{"a surface on a discovery message", map[string]any{"surface": "thread", "thread_id": "{{thread.t}}"}, nil},
			change{"a work_id on a discovery message", map[string]any{"work_id": "{{work.w}}"}, nil})
	}
	if agh.Str(env, "kind") == agh.KindReceipt {
		cs = append(cs, change{"reason_code on an accepted receipt", map[string]any{"body": map[string]any{"status": "accepted", "reason_code": "malformed"}}, nil})
	}
	if agh.Str(env, "kind") == agh.KindWhois {
		cs = append(cs, change{"a peer_card in a whois request", map[string]any{"body": map[string]any{"type": "request", "query": "", "peer_card": map[string]any{"peer_id": "{{peer.tester}}"}}}, nil})
	}
	c := cs[g.rng.IntN(len(cs))]
	if d.seed.sign && len(c.drop) > 0 {
		return false
	}
	for k, v := range c.set {
		if sub, ok := v.(map[string]any); ok {
			body, _ := env[k].(map[string]any)
			if body == nil {
				return false
			}
			for bk, bv := range sub {
				body[bk] = bv
			}
			continue
		}
		env[k] = v
	}
	for _, k := range c.drop {
		delete(env, k)
	}
	d.note("container:"+c.words, c.words)
	return true
}

// ext adds an extension member no receiver knows, under a namespace: valid,
// so the peer must take the work as without it.
func (g *generator) ext(d *draft) bool {
	vals := []any{"high", 0.5, map[string]any{"nested": []any{1, "two", nil}}, []any{}, "{{pad.1024}}"}
	v := jsonx.Copy(vals[g.rng.IntN(len(vals))])
	if !d.put("/ext/org.example.extra", v, false) {
		return false
	}
	d.accept = requirements.ExtUnknownIgnored.ID
	d.note("ext@/ext/org.example.extra", "add the unknown extension org.example.extra: "+short(v))
	return true
}

// size makes directed work large: valid up to 1 MiB, which every NATS
// peer must accept, and past it when the broker carries more (the
// embedded one does, for the fuzzer: Config.Target.MaxPayload), where a
// peer may take the message or refuse it (INPUT-SIZE is the sender's) and
// must survive it. Nothing goes past what the broker carries: it would
// refuse the payload before any peer saw it.
func (g *generator) size(d *draft) bool {
	if !d.seed.work() {
		return false
	}
	sizes := []int{64 << 10, 300 << 10, agh.MaxEnvelopeSize - 8<<10}
	if g.maxSend >= oversize+64<<10 {
		sizes = append(sizes, agh.MaxEnvelopeSize+4<<10, oversize)
	}
	n := sizes[g.rng.IntN(len(sizes))]
	// The bytes go into a member of the work's own body, not an
	// extension (a refusal must be the size's, not an unknown
	// extension's: EXT-UNKNOWN-IGNORED has cases of its own), and not one
	// a peer echoes in its answer (the text: its answer would then be too
	// large itself), as nats.max-payload does.
	at := "/body/intent"
	if d.seed.kind == agh.KindCapability {
		at = "/body/capability/outcome"
	}
	if !d.put(at, fmt.Sprintf("{{pad.%d}}", n), false) {
		return false
	}
	if n < agh.MaxEnvelopeSize {
		d.accept = requirements.NATSPayload.ID
	}
	d.note(fmt.Sprintf("size@%d", n), fmt.Sprintf("pad %s to %d bytes", at, n))
	return true
}

// oversize is the largest message the fuzzer sends: half as large again as
// what every peer must take.
const oversize = agh.MaxEnvelopeSize * 3 / 2

// bystanderID is the peer a misrouted message is addressed to: nobody the
// IUT is, and no test peer.
const bystanderID = "bystander.fuzz"

// misroute addresses directed work to another peer and publishes it on the
// broadcast subject, where the IUT sees it but must not take it.
func (g *generator) misroute(d *draft) bool {
	if !d.seed.work() || d.bystander {
		return false
	}
	d.send.Envelope["to"] = bystanderID
	if agh.Str(d.send.Envelope, "surface") == "direct" {
		d.send.Envelope["direct_id"] = "{{direct.tester}}" // derived for the IUT, as it saw it
	}
	d.send.Subject = "{{broadcast}}"
	d.bystander = true
	d.note("bystander", "address it to "+bystanderID+" and publish it on the broadcast subject")
	return true
}

// replay publishes the message twice, byte for byte: a receiver SHOULD
// process it once (DELIV-DEDUPE); a broken one is refused twice.
func (g *generator) replay(d *draft) bool {
	if d.replay || d.bystander {
		return false
	}
	d.send.Repeat, d.replay = 2, true
	d.note("replay", "publish it twice, the same bytes")
	return true
}

// tamper changes a signed draft after signing.
func (g *generator) tamper(d *draft) bool {
	if !d.seed.sign {
		return false
	}
	p, ok := g.pick(d, true)
	if !ok {
		return false
	}
	vals := g.dict[p]
	v := jsonx.Copy(vals[g.rng.IntN(len(vals))])
	if !d.put(p, v, true) {
		return false
	}
	d.note("tamper@"+p, fmt.Sprintf("after signing, set %s to %s", p, short(v)))
	return true
}
