// Command gen-envelopes writes a deterministic corpus of realistic AGH
// Network v0 envelopes (all six kinds, a few signed, a few broken) as NDJSON
// and as one JSON array, for benchmarks and the ajv-cli comparison.
//
//	go run ./scripts/gen-envelopes -n 100000 -o /tmp/agh-bench
package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/trust"
)

func main() {
	n := flag.Int("n", 100000, "number of envelopes")
	seed := flag.Uint64("seed", 1, "random seed (same seed, same bytes)")
	out := flag.String("o", ".", "output directory (writes envelopes.ndjson and envelopes.json)")
	signed := flag.Float64("signed", 0.01, "share of envelopes signed with the trust profile")
	broken := flag.Float64("invalid", 0.02, "share of envelopes that break a rule")
	flag.Parse()
	if err := run(*n, *seed, *out, *signed, *broken); err != nil {
		fmt.Fprintln(os.Stderr, "gen-envelopes:", err)
		os.Exit(1)
	}
}

func run(n int, seed uint64, dir string, signed, broken float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	nd, err := os.Create(filepath.Join(dir, "envelopes.ndjson"))
	if err != nil {
		return err
	}
	defer nd.Close()
	arr, err := os.Create(filepath.Join(dir, "envelopes.json"))
	if err != nil {
		return err
	}
	defer arr.Close()
	ndw, arw := bufio.NewWriterSize(nd, 1<<20), bufio.NewWriterSize(arr, 1<<20)
	g := newGen(seed)
	arw.WriteString("[\n")
	var total int
	for i := range n {
		env := g.envelope(i)
		if g.r.Float64() < broken {
			g.breakRule(env)
		} else if g.r.Float64() < signed {
			if err := trust.Sign(env, g.key, "signer"); err != nil {
				return err
			}
		}
		b := marshal(env)
		total += len(b) + 1
		ndw.Write(b)
		ndw.WriteByte('\n')
		if i > 0 {
			arw.WriteString(",\n")
		}
		arw.Write(b)
	}
	arw.WriteString("\n]\n")
	if err := ndw.Flush(); err != nil {
		return err
	}
	if err := arw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen-envelopes: %d envelopes, %.1f MB, in %s\n", n, float64(total)/1e6, dir)
	return nil
}

type gen struct {
	r       *rand.Rand
	key     ed25519.PrivateKey
	peers   []string
	chans   []string
	spaces  []string
	threads []string
	words   []string
	t       int64
}

func newGen(seed uint64) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), t: 1776366000}
	ks := make([]byte, ed25519.SeedSize)
	for i := range ks {
		ks[i] = byte(i) ^ byte(seed)
	}
	g.key = ed25519.NewKeyFromSeed(ks)
	roles := []string{"ops-coordinator", "patch-worker", "review-bot", "deploy-agent", "triage", "docs-writer", "qa-runner", "planner"}
	for i, r := range roles {
		g.peers = append(g.peers, fmt.Sprintf("%s.session-%d", r, 10+i*7))
	}
	g.chans = []string{"builders", "release", "incidents", "research", "general", "ops_eu-1"}
	g.spaces = []string{"ws_alpha", "ws_beta", "acme-prod"}
	for i := range 40 {
		g.threads = append(g.threads, fmt.Sprintf("thread_%s-%d", []string{"release", "smoke", "triage", "docs", "infra"}[i%5], i))
	}
	g.words = strings.Fields(`the build failed on staging because a migration timed out please rerun the smoke
test after the patch lands I reviewed the diff and left two comments about error handling deploy window opens
at noon UTC rollback plan is attached the flaky test is quarantined latency is back under budget can you take
the next ticket summary of findings follows cache hit ratio dropped after the config change ready for review`)
	return g
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) text(min, max int) string {
	n := min + g.r.IntN(max-min+1)
	w := make([]string, n)
	for i := range w {
		w[i] = g.pick(g.words)
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *gen) card(peer string) map[string]any {
	return map[string]any{
		"peer_id":               peer,
		"display_name":          strings.ReplaceAll(strings.SplitN(peer, ".", 2)[0], "-", " "),
		"profiles_supported":    []any{"agh-network/v0"},
		"capabilities":          []any{"code.patch", "code.review", "ci.rerun"}[:1+g.r.IntN(3)],
		"artifacts_supported":   []any{"capability", "git-ref"},
		"trust_modes_supported": []any{"unverified", "agh-network.trust.ed25519-jcs/v1"}[:1+g.r.IntN(2)],
	}
}

// envelope makes the i-th envelope: kinds in a realistic proportion, every
// field consistent (derived direct ids, canonical capability digests).
func (g *gen) envelope(i int) map[string]any {
	g.t += int64(g.r.IntN(3))
	from := g.pick(g.peers)
	to := g.pick(g.peers)
	for to == from {
		to = g.pick(g.peers)
	}
	ws, ch := g.pick(g.spaces), g.pick(g.chans)
	env := map[string]any{
		"protocol": "agh-network/v0", "workspace_id": ws, "channel": ch,
		"id": fmt.Sprintf("msg_%08d_%04x", i, g.r.IntN(1<<16)), "from": from, "ts": g.t, "proof": nil,
	}
	conv := func(directOK bool) {
		if directOK && g.r.IntN(4) == 0 {
			env["surface"] = "direct"
			env["direct_id"], _ = agh.DirectID(ws, ch, from, to)
			env["to"] = to
			return
		}
		env["surface"] = "thread"
		env["thread_id"] = g.pick(g.threads)
		if g.r.IntN(2) == 0 {
			env["to"] = to
		} else {
			env["to"] = nil
		}
	}
	work := func() string {
		return fmt.Sprintf("work_%s-%d", g.pick([]string{"smoke", "deploy", "review", "triage"}), g.r.IntN(500))
	}
	switch k := g.r.IntN(100); {
	case k < 45:
		env["kind"] = "say"
		conv(true)
		body := map[string]any{"text": g.text(6, 40)}
		if g.r.IntN(3) == 0 {
			body["intent"] = g.pick([]string{"request", "inform", "handoff", "question"})
			env["work_id"] = work()
		}
		if g.r.IntN(5) == 0 {
			body["artifacts"] = []any{map[string]any{"type": "git-ref", "ref": "refs/heads/" + g.pick([]string{"main", "staging", "fix/cache"})}}
		}
		if g.r.IntN(4) == 0 {
			env["trace_id"] = fmt.Sprintf("trace_%d", g.r.IntN(9999))
			env["causation_id"] = fmt.Sprintf("msg_%08d", g.r.IntN(i+1))
		}
		env["body"] = body
	case k < 65:
		env["kind"] = "receipt"
		conv(true)
		env["to"] = to
		env["work_id"] = work()
		body := map[string]any{"for_id": fmt.Sprintf("msg_%08d", g.r.IntN(i+1))}
		switch s := g.r.IntN(10); {
		case s < 7:
			body["status"] = "accepted"
		case s < 9:
			body["status"] = "rejected"
			body["reason_code"] = g.pick([]string{"busy", "not_target", "malformed", "work_closed"})
			body["detail"] = g.text(3, 10)
		default:
			body["status"] = "duplicate"
			body["reason_code"] = "duplicate"
		}
		env["body"] = body
	case k < 80:
		env["kind"] = "trace"
		conv(true)
		env["to"] = to
		env["work_id"] = work()
		st := g.pick([]string{"submitted", "working", "working", "needs_input", "completed", "failed"})
		body := map[string]any{"state": st, "message": g.text(4, 20)}
		if st == "completed" {
			body["result"] = map[string]any{"passed": g.r.IntN(5) > 0, "duration_ms": g.r.IntN(90000)}
			body["artifact_refs"] = []any{map[string]any{"uri": fmt.Sprintf("agh://artifacts/%d", g.r.IntN(1e6))}}
		}
		env["body"] = body
	case k < 85:
		env["kind"] = "capability"
		conv(false)
		c := map[string]any{
			"id": g.pick([]string{"build-site", "run-smoke", "review-diff", "triage-alert"}), "summary": g.text(4, 10),
			"outcome": g.text(4, 10), "version": fmt.Sprintf("1.%d.0", g.r.IntN(9)),
			"context_needed": []any{"repo", "ci-logs"}[:1+g.r.IntN(2)], "execution_outline": []any{"Inspect", "Plan", "Execute", "Report"},
			"requirements": []any{"lint-site", "collect-assets"}[:g.r.IntN(3)],
		}
		c["digest"], _ = agh.CapabilityDigest(c)
		env["body"] = map[string]any{"capability": c}
	case k < 93:
		env["kind"] = "greet"
		env["to"] = nil
		env["expires_at"] = g.t + 300
		env["body"] = map[string]any{"peer_card": g.card(from), "summary": g.text(2, 8)}
		if g.r.IntN(3) == 0 {
			env["ext"] = map[string]any{"acme.region": g.pick([]string{"eu", "us", "ap"})}
		}
	default:
		env["kind"] = "whois"
		if g.r.IntN(2) == 0 {
			env["to"] = nil
			env["body"] = map[string]any{"type": "request", "query": g.pick([]string{"who can patch code?", "reviewers online", "ci.rerun"})}
		} else {
			env["to"] = to
			env["reply_to"] = fmt.Sprintf("msg_%08d", g.r.IntN(i+1))
			env["body"] = map[string]any{"type": "response", "peer_card": g.card(from)}
		}
	}
	return env
}

// breakRule makes one realistic mistake.
func (g *gen) breakRule(env map[string]any) {
	switch g.r.IntN(6) {
	case 0:
		env["channel"] = strings.ToUpper(env["channel"].(string))
	case 1:
		delete(env, "ts")
	case 2:
		env["interaction_id"] = "int_1"
	case 3:
		env["kind"] = "direct"
	case 4:
		if b, ok := env["body"].(map[string]any); ok {
			b["status"] = "ok"
			b["text"] = "  "
		}
	default:
		env["from"] = "Not A Peer"
	}
}

var order = []string{"protocol", "workspace_id", "channel", "id", "kind", "surface", "thread_id", "direct_id",
	"from", "to", "work_id", "reply_to", "trace_id", "causation_id", "ts", "expires_at", "body", "proof", "ext"}

// marshal writes the envelope members in the order people write them;
// nested objects keep encoding/json's sorted order.
func marshal(env map[string]any) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	keys := make([]string, 0, len(env))
	rank := map[string]int{}
	for i, k := range order {
		rank[k] = i + 1
	}
	for k := range env {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank[keys[i]], rank[keys[j]]
		if ri == 0 {
			ri = 1000
		}
		if rj == 0 {
			rj = 1000
		}
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(env[k])
		if err != nil {
			panic(err) // only our own values, all marshalable
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}
