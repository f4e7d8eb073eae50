package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Loading is pure: a scenario file's scenarios depend only on its name,
// its suite and its bytes, and a family's on its file with its template
// merged in (and on the fixture corpus, which is embedded). So a process
// parses a file once: aghtest's TestPeer, called many times in one test
// binary, and every harness test load the suites in a fraction of the
// first load's time. Callers get copies of the scenarios (steps are
// shared: nothing writes to a loaded scenario's steps).
//
// A Snapshot carries both memos to other processes of the same binary
// (Prime), for tests that start the CLI many times.
var parsed sync.Map // fileKey → []*Scenario of a plain scenario file

var expanded sync.Map // family file → expansion

type expansion struct {
	scs   []*Scenario
	probs []Problem
}

func fileKey(name, suite string, data []byte) string {
	sum := sha256.Sum256(data)
	return name + "\x00" + suite + "\x00" + hex.EncodeToString(sum[:])
}

func copies(scs []*Scenario) []*Scenario {
	out := make([]*Scenario, len(scs))
	for i, sc := range scs {
		c := *sc
		out[i] = &c
	}
	return out
}

// stored is a scenario with what the loader filled in beside its JSON
// (JudgedBy is a reading's, set after loading).
type stored struct {
	S      *Scenario `json:"s"`
	Suite  string    `json:"suite"`
	File   string    `json:"file"`
	Line   int       `json:"line,omitempty"`
	Column int       `json:"column,omitempty"`
}

type storedEntry struct {
	Key       string    `json:"key"`
	Scenarios []stored  `json:"scenarios"`
	Problems  []Problem `json:"problems,omitempty"`
}

type snapshot struct {
	Files    []storedEntry `json:"files"`
	Families []storedEntry `json:"families"`
}

func store(key string, scs []*Scenario, probs []Problem) storedEntry {
	e := storedEntry{Key: key, Problems: probs}
	for _, sc := range scs {
		e.Scenarios = append(e.Scenarios, stored{S: sc, Suite: sc.Suite, File: sc.File, Line: sc.Line, Column: sc.Column})
	}
	return e
}

func (e storedEntry) load() []*Scenario {
	out := make([]*Scenario, len(e.Scenarios))
	for i, s := range e.Scenarios {
		sc := s.S
		sc.Suite, sc.File, sc.Line, sc.Column = s.Suite, s.File, s.Line, s.Column
		out[i] = sc
	}
	return out
}

// Snapshot writes down every file and family this process has parsed.
func Snapshot() ([]byte, error) {
	var snap snapshot
	parsed.Range(func(k, v any) bool {
		snap.Files = append(snap.Files, store(k.(string), v.([]*Scenario), nil))
		return true
	})
	expanded.Range(func(k, v any) bool {
		e := v.(expansion)
		snap.Families = append(snap.Families, store(k.(string), e.scs, e.probs))
		return true
	})
	sort.Slice(snap.Files, func(i, j int) bool { return snap.Files[i].Key < snap.Files[j].Key })
	sort.Slice(snap.Families, func(i, j int) bool { return snap.Families[i].Key < snap.Families[j].Key })
	return json.Marshal(snap)
}

// Prime hands this process a Snapshot of a process of the same binary:
// what it parsed is not parsed again here. The snapshot is read when the
// first file is parsed, so a process that loads no scenario (a peer, a
// validation) pays nothing for it; one that cannot be read is ignored,
// and the files are parsed as if there were none.
func Prime(b []byte) {
	primed.Lock()
	defer primed.Unlock()
	primed.pending = append(primed.pending, b)
}

var primed struct {
	sync.Mutex
	pending [][]byte
}

// takePrimed moves what Prime was given into the memos.
func takePrimed() {
	primed.Lock()
	defer primed.Unlock()
	for _, b := range primed.pending {
		_ = prime(b) // a snapshot that cannot be read only costs time
	}
	primed.pending = nil
}

// readSnapshot decodes a Snapshot as the loader decodes files: numbers in
// patterns stay json.Number.
func readSnapshot(b []byte) (snapshot, error) {
	var snap snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&snap); err != nil {
		return snap, fmt.Errorf("scenario snapshot: %w", err)
	}
	return snap, nil
}

func prime(b []byte) error {
	snap, err := readSnapshot(b)
	if err != nil {
		return err
	}
	for _, e := range snap.Files {
		parsed.LoadOrStore(e.Key, e.load())
	}
	for _, e := range snap.Families {
		expanded.LoadOrStore(e.Key, expansion{e.load(), e.Problems})
	}
	return nil
}
