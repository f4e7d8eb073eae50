package scenario

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/aghcheck/aghcheck/suites"
)

// A snapshot must give back exactly what the loader made: a process
// primed with it plays the same scenarios as one that parsed the files.
func TestSnapshotRoundTrip(t *testing.T) {
	want, err := LoadSuites(suites.FS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap, err := readSnapshot(b)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]*Scenario{}
	for _, e := range append(snap.Files, snap.Families...) {
		for _, sc := range e.load() {
			byFile[sc.File+"#"+sc.ID] = sc
		}
	}
	for _, sc := range want {
		t.Run(sc.ID, func(t *testing.T) {
			got, ok := byFile[sc.File+"#"+sc.ID]
			if !ok {
				t.Fatalf("%s of %s is not in the snapshot", sc.ID, sc.File)
			}
			if !reflect.DeepEqual(got, sc) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(sc)
				t.Errorf("changed by the snapshot:\n got %s\nwant %s", gj, wj)
			}
		})
	}
	if err := prime(b); err != nil {
		t.Errorf("prime: %v", err)
	}
	if err := prime([]byte("{")); err == nil {
		t.Error("a broken snapshot primed nothing and said nothing")
	}
	// Handed over, a broken one costs only time: the files are parsed.
	Prime([]byte("{"))
	if again, err := LoadSuites(suites.FS(), nil); err != nil || len(again) != len(want) {
		t.Errorf("after a broken snapshot: %d scenarios (want %d), %v", len(again), len(want), err)
	}
}

// What the memo hands out is the caller's to change, and a file whose
// bytes changed is read again.
func TestMemoHandsOutCopies(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.yaml")
	write := func(title string) {
		t.Helper()
		doc := "scenarios:\n  - id: memo.one\n    title: " + title + "\n    requirements: [LIFE-TERMINAL-FINAL]\n    level: MUST\n    claim: core-receiver\n    steps:\n      - send: {to: iut, envelope: {kind: say, surface: thread, thread_id: thread_memo, body: {text: hi}}}\n      - expect: {match: {kind: receipt}}\n"
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func() *Scenario {
		t.Helper()
		scs, err := LoadSuites(nil, []string{dir})
		if err != nil || len(scs) != 1 {
			t.Fatalf("load: %d scenarios, %v", len(scs), err)
		}
		return scs[0]
	}
	write("first")
	a := load()
	a.Title = "changed by its caller"
	if b := load(); b.Title != "first" {
		t.Errorf("a caller's change reached the next load: %q", b.Title)
	}
	write("second")
	if c := load(); c.Title != "second" {
		t.Errorf("a changed file was not read again: %q", c.Title)
	}
}
