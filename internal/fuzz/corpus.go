package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/scenario"
)

// A corpus directory (--corpus DIR) keeps interesting cases between runs,
// one JSON file each: a case that showed a finding, and the first case to
// cover a verdict (shape, seed kind, rules broken, refusal class) no kept
// case covers. A run plays the kept cases first, then generates; it adds
// what it found interesting. The file holds what the case was made of (the
// seed's name and the mutated send step), so a kept case is judged again
// by the engine of the aghcheck that plays it.
//
// A corpus file is data, maybe from a pull request: it says what the
// message holds, never where it goes. A kept case's send is rebuilt from
// its seed (who sends, to whom, on which subject, signed or not) and its
// mutations (the envelope they made; a bystander case goes to the
// broadcast subject, a replay twice; changed bytes are made again from the
// envelope they were changed from, by the bytes operation named). A file
// that names a subject, a reply subject, raw bytes of its own or a
// JetStream publish is refused: the fuzzer never writes one.

// corpusEntry is one kept case.
type corpusEntry struct {
	Seed      string        `json:"seed"`
	Ops       []string      `json:"ops"`
	Keys      []string      `json:"keys,omitempty"`
	Accept    string        `json:"accept,omitempty"`
	Bystander bool          `json:"bystander,omitempty"`
	Replay    bool          `json:"replay,omitempty"`
	Send      scenario.Send `json:"send"`
	// Pre is the send before its bytes were changed (BytesOp names how:
	// an index into bytesOps, -1 for a byte that is not UTF-8), so that a
	// kept case is minimized as a fresh one is: the envelope first, then
	// the bytes changed again.
	Pre     *scenario.Send `json:"pre,omitempty"`
	BytesOp int            `json:"bytes_op,omitempty"`
	// Why it was kept (the verdict it covers, "found:" for a finding):
	// for a reader.
	Why string `json:"why"`
}

type corpus struct {
	dir   string
	files map[string]bool   // file names already in dir
	add   map[string]*Case  // file name → case to add
	why   map[string]string // file name → why, for the cases to add
	seen  map[string]bool   // keys of the cases played
	kept  []corpusEntry     // read from dir, in file name order
}

// openCorpus reads dir (created when missing); nil for none.
func openCorpus(dir string) (*corpus, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	c := &corpus{dir: dir, files: map[string]bool{}, add: map[string]*Case{}, seen: map[string]bool{}, why: map[string]string{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	sort.Strings(names)
	for _, p := range names {
		base := filepath.Base(p)
		c.files[base] = true
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		var e corpusEntry
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&e); err != nil || e.Seed == "" {
			return nil, fmt.Errorf("corpus: %s is not a kept case: %v", p, cmpErr(err, "no seed"))
		}
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("corpus: %s: %w (a kept case is replayed from its seed and mutations; remove the file)", p, err)
		}
		c.kept = append(c.kept, e)
	}
	return c, nil
}

// check refuses an entry that says where its message goes, or what its
// bytes are, otherwise than the fuzzer writes it.
func (e *corpusEntry) check() error {
	for _, send := range []*scenario.Send{&e.Send, e.Pre} {
		if send == nil {
			continue
		}
		switch {
		case send.Subject != "" && (send.Subject != broadcastTemplate || !e.Bystander):
			return fmt.Errorf("send.subject %q is not one the fuzzer sends on", rules.Clip(send.Subject, 120, "…"))
		case send.Reply != "":
			return fmt.Errorf("send.reply %q: the fuzzer sends no reply subject", rules.Clip(send.Reply, 120, "…"))
		case send.RawBase64 != "":
			return errors.New("send.raw_base64: the fuzzer writes no raw bytes of their own")
		case send.JetStream:
			return errors.New("send.jetstream: the fuzzer publishes on NATS Core")
		}
	}
	if e.Send.Raw != nil && e.Pre == nil {
		return errors.New("send.raw without pre, the envelope it was made from: the fuzzer writes no raw bytes of their own")
	}
	if e.Pre != nil && (e.Pre.Raw != nil || e.BytesOp < -1 || e.BytesOp >= len(bytesOps)) {
		return fmt.Errorf("pre and bytes_op %d do not say how the bytes were made", e.BytesOp)
	}
	return nil
}

// broadcastTemplate is where a bystander case is published.
const broadcastTemplate = "{{broadcast}}"

// rebuild is the send of entry e from seed s: where it goes and how, from
// the seed and the mutations; what it holds, from the entry.
func (e *corpusEntry) rebuild(s *seed) (*draft, bool) {
	d := &draft{seed: s, ops: e.Ops, keys: e.Keys, accept: e.Accept, bystander: e.Bystander, replay: e.Replay}
	content := e.Send
	if e.Pre != nil {
		content = *e.Pre
	}
	d.send = s.send
	d.send.Envelope, d.send.Drop, d.send.Digest, d.send.Tamper = content.Envelope, content.Drop, content.Digest, content.Tamper
	if d.send.Envelope == nil {
		return nil, false // bytes with no envelope: nothing to make them from
	}
	if e.Bystander {
		d.send.Subject = broadcastTemplate
	}
	if e.Replay {
		d.send.Repeat = 2
	}
	if e.Pre != nil {
		// The bytes are made again, as the generator made them.
		if !d.applyBytes(e.BytesOp) {
			return nil, false
		}
		d.ops, d.keys = e.Ops, e.Keys // applyBytes noted the operation again
	}
	return d, true
}

func cmpErr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// drafts are the kept cases, remade from the seeds they name (a case whose
// seed this aghcheck no longer has, that needs signing the IUT does not
// take, or whose bytes cannot be made again, is left out).
func (c *corpus) drafts(seeds []seed) []*draft {
	if c == nil {
		return nil
	}
	var out []*draft
	for _, e := range c.kept {
		i := -1
		for k := range seeds {
			if seeds[k].name == e.Seed {
				i = k
				break
			}
		}
		if i < 0 {
			continue
		}
		if d, ok := e.rebuild(&seeds[i]); ok {
			out = append(out, d)
		}
	}
	return out
}

// consider notes a played case and keeps it when it is interesting.
func (c *corpus) consider(k *Case) {
	if c == nil {
		return
	}
	key, why := k.coverage(), "covers "+k.coverage()
	if len(k.found) > 0 {
		found := slices.Clone(k.found)
		sort.Strings(found)
		found = slices.Compact(found)
		key = "found|" + strings.Join(found, ",")
		why = "found " + strings.Join(found, ", ")
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	name := fileName(key)
	if !c.files[name] {
		c.add[name], c.why[name] = k, why
	}
}

// fileName is the file a kept case with this key goes to.
func fileName(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("%016x.json", h.Sum64())
}

// save writes the cases to add.
func (c *corpus) save(fz *fuzzer) error {
	if c == nil {
		return nil
	}
	names := make([]string, 0, len(c.add))
	for n := range c.add {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		k := c.add[n]
		d := k.draft
		e := corpusEntry{Seed: d.seed.name, Ops: d.ops, Keys: d.keys, Accept: d.accept, Bystander: d.bystander, Replay: d.replay,
			Send: d.send, Pre: d.pre, BytesOp: d.bytesOp, Why: c.why[n]}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(e); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(c.dir, n), b.Bytes(), 0o644); err != nil {
			return err
		}
		if fz.rep.Corpus != nil {
			fz.rep.Corpus.Added++
		}
	}
	return nil
}
