package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/proctest"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/schematest"
	"github.com/aghcheck/aghcheck/internal/testiut"
	"github.com/aghcheck/aghcheck/internal/testwait"
	"github.com/aghcheck/aghcheck/suites"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the expected outputs in testdata/script/*.txtar")

// TestMain lets testscript run this test binary as the aghcheck command, so
// the end-to-end scripts exercise the real CLI (flags, exit codes, stdout
// and stderr) without a separate build.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"aghcheck": func() {
			primeSuites()
			os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// snapshotEnv names the file through which the scripts' aghcheck
// processes get the built-in suites this test binary already loaded: a
// race-enabled process takes over a second of CPU to load them, and the
// scripts start a hundred. The CLI never reads it; only this binary's
// entry point as aghcheck does.
const snapshotEnv = "AGHCHECK_TEST_SUITES_SNAPSHOT"

func primeSuites() {
	p := os.Getenv(snapshotEnv)
	if p == "" {
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "aghcheck (test binary):", err)
		os.Exit(2)
	}
	scenario.Prime(b)
}

// writeSnapshot loads the built-in suites here, once, and writes them
// down for the scripts' processes (primeSuites).
func writeSnapshot(t *testing.T) string {
	t.Helper()
	if _, err := scenario.LoadSuites(suites.FS(), nil); err != nil {
		t.Fatal(err)
	}
	b, err := scenario.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "suites.snapshot.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScripts runs testdata/script/*.txtar: the CLI end to end. validate_*:
// golden outputs for every format, exit codes, every input form and bad
// input; run_*: flag checking and how a run reports its IUT.
func TestScripts(t *testing.T) {
	snap := writeSnapshot(t)
	plain := plainCommand(t)
	p := testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			// A script's environment starts empty: carry the runtime's
			// options (make test turns off the race runtime's exit sleep
			// and lets the heap grow further between collections).
			for _, k := range []string{"GORACE", "GOGC"} {
				if v, ok := os.LookupEnv(k); ok {
					env.Setenv(k, v)
				}
			}
			env.Setenv(snapshotEnv, snap)
			if plain != "" {
				env.Setenv("PATH", plain+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"genbad":   genBad,
			"schema":   schemaValid,
			"waitfile": waitFile,
			"dead":     deadPID,
			"digestof": digestOf,
		},
	}
	if *updateScripts {
		// Only a cmp's expected output can be rewritten: play just the
		// scripts that have one.
		p.Dir, p.Files = "", withCmp(t, "testdata/script")
	}
	// A cmp against an archive's expected output is a golden file too.
	// The scripts run in parallel, after this function returns: say it
	// once they are done.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("where a script's cmp of an expected output in its archive failed: run `make regen` (or: %s), then review the diff", golden.Direct(t, "-update-scripts"))
		}
	})
	testscript.Run(t, p)
}

// plainCommand is a directory whose aghcheck is this package's tests built
// without the race detector, for the scripts' processes, or "" when this
// binary has no race detector (or the copy cannot be built: then the
// scripts run this binary, only slower).
//
// Why: a script starts aghcheck a hundred times, and the runs it starts
// start aghcheck peer; instrumented, those processes took most of this
// package's CPU time. The scripts check what the command prints and how it
// exits; the race detector watches the same code in this package's other
// tests and in harness's, which run it in their own process.
func plainCommand(t *testing.T) string {
	t.Helper()
	exe, err := testiut.Binary()
	own, _ := os.Executable()
	if err != nil || exe == own {
		if err != nil {
			t.Logf("the scripts run this race-enabled binary: %v", err)
		}
		return ""
	}
	t.Cleanup(testiut.Cleanup)
	dir := t.TempDir()
	// A link, not a symbolic one: the process must find itself (os.Executable)
	// under the name aghcheck, which is how it knows to be the command.
	if err := os.Link(exe, filepath.Join(dir, "aghcheck")); err != nil {
		t.Logf("the scripts run this race-enabled binary: %v", err)
		return ""
	}
	return dir
}

// withCmp lists the scripts of dir that compare an output with a file of
// their archive (a cmp or cmpenv line).
func withCmp(t *testing.T, dir string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "cmp ") || strings.HasPrefix(line, "cmpenv ") || strings.HasPrefix(line, "! cmp ") {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// genBad KIND FILE [SIZE_MB] writes hostile input that a txtar archive
// cannot hold (raw bytes, huge files) into the script's work directory.
func genBad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: genbad KIND FILE [SIZE_MB]")
	}
	f, err := os.Create(ts.MkAbs(args[1]))
	ts.Check(err)
	defer func() { ts.Check(f.Close()) }()
	w := bufio.NewWriterSize(f, 1<<20)
	mb := 1
	if len(args) > 2 {
		mb, err = strconv.Atoi(args[2])
		ts.Check(err)
	}
	const env = `{"protocol":"agh-network/v0","workspace_id":"ws_alpha","channel":"builders","id":"s%d","kind":"say","surface":"thread","thread_id":"thread_release","from":"ops-coordinator.session-42","to":null,"ts":1776366120,"body":{"text":"%s"},"proof":null}`
	switch args[0] {
	case "utf8": // invalid UTF-8 inside a string, then a good line
		fmt.Fprintf(w, env+"\n", 1, "caf\xe9")
		fmt.Fprintf(w, env+"\n", 2, "ok")
	case "binary": // ELF-like junk with NUL bytes
		for i := range 4096 {
			w.WriteByte(byte(i*7 + i/3))
		}
	case "deep": // 200 levels of arrays inside the body
		fmt.Fprintf(w, env+"\n", 1, "x")
		w.WriteString(`{"protocol":"agh-network/v0","body":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "}\n")
	case "huge-line": // one line of SIZE_MB megabytes: a giant string member
		w.WriteString(`{"protocol":"agh-network/v0","body":{"text":"`)
		chunk := strings.Repeat("a", 1<<20)
		for range mb {
			w.WriteString(chunk)
		}
		w.WriteString("\"}}\n")
		fmt.Fprintf(w, env+"\n", 2, "after the giant")
	case "many": // SIZE_MB megabytes of valid envelopes, one per line
		n := 0
		for size := 0; size < mb<<20; n++ {
			k, _ := fmt.Fprintf(w, env+"\n", n, "hello "+strconv.Itoa(n))
			size += k
		}
	default:
		ts.Fatalf("genbad: unknown kind %q", args[0])
	}
	ts.Check(w.Flush())
}

// waitFile FILE waits (at most thirty seconds: a ceiling for a loaded,
// shared machine, where starting aghcheck and its IUT under -race can take
// more than ten) until FILE holds a line.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	written := func() bool {
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		return err == nil && strings.HasSuffix(string(b), "\n")
	}
	if !testwait.Until(30*time.Second, written) {
		ts.Fatalf("%s: nothing written within 30s", args[0])
	}
}

// deadPID PIDFILE waits (at most ten seconds) until the process whose id
// PIDFILE holds has ended, and kills it if it has not.
func deadPID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dead PIDFILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	if !testwait.Until(10*time.Second, func() bool { return !proctest.Running(pid) }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		ts.Fatalf("process %d still runs 10s later", pid)
	}
}

// schemaValid SCHEMA FILE checks FILE (JSON, or YAML by its extension)
// against one of the schemas aghcheck publishes for what it writes.
func schemaValid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: schema SCHEMA FILE")
	}
	doc := []byte(ts.ReadFile(args[1]))
	ext := filepath.Ext(args[1])
	if err := schematest.Check(args[0], doc, ext == ".yaml" || ext == ".yml"); err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
}

// digestOf REPORT RECORD checks that the record's report_sha256 is the
// SHA-256 of the report file.
func digestOf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: digestof REPORT RECORD")
	}
	sum := sha256.Sum256([]byte(ts.ReadFile(args[0])))
	want := hex.EncodeToString(sum[:])
	if rec := ts.ReadFile(args[1]); !strings.Contains(rec, "report_sha256: "+want) && !strings.Contains(rec, `"report_sha256": "`+want+`"`) {
		ts.Fatalf("%s does not carry report_sha256 %s, the digest of %s", args[1], want, args[0])
	}
}
