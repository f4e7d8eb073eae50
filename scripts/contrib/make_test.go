package contrib

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aghcheck/aghcheck/internal/iut"
)

// root is the repository root, from this package's directory.
const root = "../.."

// targetRun is how TestMakeTargets runs one Makefile target: its cheapest
// real form (vars, then want: the exit status and a piece of its output),
// or, when the real one needs what a test machine may lack (node, npm,
// chromium, the reference runtime's repository) or takes minutes, its dry
// run (make -n) alone, whose commands are checked: the packages they name
// exist, their -run and -bench patterns name tests of those packages, the
// scripts they run parse. why says which, and why not more.
type targetRun struct {
	real bool
	vars []string // NAME=value; $TMP is a temporary directory
	exit int
	want string // in the combined output
	why  string
}

var targets = map[string]targetRun{
	"all":               {why: "build, below"},
	"build":             {real: true, vars: []string{"BIN=$TMP/aghcheck"}},
	"test":              {why: "this test runs inside it"},
	"stability":         {why: "an hour of mutation runs"},
	"bench":             {why: "every benchmark of the module, minutes"},
	"bench-compare":     {why: "needs node and npm (ajv-cli)"},
	"bench-process":     {real: true, vars: []string{"BIN=$TMP/aghcheck", "N=20", "RUNS=1"}, want: "ndjson-quiet"},
	"bench-run":         {why: "plays every scenario five times, and two faulty peers"},
	"bench-guard":       {why: "builds the last release and times four figures of both builds in turn: minutes"},
	"bench-guard-quick": {why: "times 100,000 envelopes against the scan floor; .ci/run runs it for real"},
	"bench-monitor":     {real: true, vars: []string{"MONITOR_N=50"}, want: "BenchmarkMonitor"},
	"html-check":        {why: "needs chromium"},
	"fuzz":              {why: "every fuzz target for FUZZTIME"},
	"lint":              {why: "make test runs go vet; gofmt is the lint of a commit"},
	"docs":              {why: "TestMakeDocsKeepsPagesWhole runs it failing, recipes_test.go through make regen-fast"},
	"regen":             {why: "the mutation matrix takes minutes; regen-fast is the rest"},
	"regen-fast":        {why: "recipes_test.go runs it in a copy of the tree"},
	"check-rule":        {why: "recipes_test.go runs it on a new rule"},
	"check-scenario":    {why: "recipes_test.go runs it on a new scenario"},
	"check-format":      {why: "recipes_test.go runs it on a new format"},
	"check-fault":       {why: "recipes_test.go runs it on a new fault"},
	"check-play":        {real: true, vars: []string{"BIN=$TMP/aghcheck", `RUN=^delivery\.expired-refused$`, "FAULT=accept-expired"}, want: "the correct peer passes"},
	"reference":         {real: true, vars: []string{"REF=/nonexistent"}, exit: 2, want: "REF=/nonexistent is not a directory"},
	"reference-gotest":  {real: true, vars: []string{"REF=/nonexistent"}, exit: 2, want: "REF=/nonexistent is not a directory"},
	"reference-matrix":  {real: true, exit: 2, want: "REF is empty"},
	"example-peer":      {why: "needs node and npm"},
	"clean":             {why: "would remove bin/ of the tree under test"},
}

// Every target of the Makefile runs: each in its cheapest real form or its
// checked dry run, as targets says; a target the table does not know
// fails, so a new one comes with its check. The targets are declared
// .PHONY, each.
func TestMakeTargets(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	names, phony := makeTargets(t)
	for _, n := range names {
		if !slices.Contains(phony, n) {
			t.Errorf("Makefile: target %s is not in .PHONY", n)
		}
		if _, ok := targets[n]; !ok {
			t.Errorf("Makefile: target %s has no entry in make_test.go's targets: give it its cheapest run", n)
		}
	}
	for n := range targets {
		if !slices.Contains(names, n) {
			t.Errorf("make_test.go names a target %s the Makefile does not have", n)
		}
	}
	for _, n := range names {
		tr, ok := targets[n]
		if !ok {
			continue
		}
		t.Run(n, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			var vars []string
			for _, v := range tr.vars {
				vars = append(vars, strings.ReplaceAll(v, "$TMP", tmp))
			}
			checkDryRun(t, n, vars)
			if !tr.real {
				return
			}
			out, code := runMake(t, append([]string{n}, vars...)...)
			if code != tr.exit || !strings.Contains(out, tr.want) {
				t.Errorf("make %s %s: exit %d, want %d and %q in:\n%s", n, strings.Join(vars, " "), code, tr.exit, tr.want, out)
			}
		})
	}
}

// makeTargets reads the Makefile's rule names and its .PHONY list.
func makeTargets(t *testing.T) (names, phony []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`^([a-z][a-z0-9-]*):([^=]|$)`)
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, ".PHONY:"); ok {
			phony = append(phony, strings.Fields(rest)...)
		}
		if m := rule.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	if len(names) < 10 {
		t.Fatalf("found %d targets in the Makefile", len(names))
	}
	return names, phony
}

// runMake runs make in the repository root with args, outside any make
// that runs this test (its jobserver and flags are not inherited), and
// with -trimpath, so what it builds is shared with recipes_test.go's
// copies of the tree.
func runMake(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runIn(t, root, "make", append([]string{"--no-print-directory"}, args...)...)
}

func runIn(t *testing.T, dir, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = toolEnv()
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil {
		cpuSpent.Add(int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()))
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out), 0
}

// cpuSpent is the CPU time of every command run so far (and of their
// children): what this package costs make test, whatever the load.
var cpuSpent atomic.Int64

// toolEnv is the environment of the tools a test here runs: this
// process's, without what a calling make passes down, with -trimpath.
func toolEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GOFLAGS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOFLAGS=-trimpath")
}

var goCommand = regexp.MustCompile(`(^|[\s;(|&])go (test|build|vet|run|list) `)

// checkDryRun runs make -n TARGET: it must succeed, and the go commands and
// scripts it would run must name what exists.
func checkDryRun(t *testing.T, target string, vars []string) {
	t.Helper()
	out, code := runMake(t, append([]string{"-n", target}, vars...)...)
	if code != 0 {
		t.Fatalf("make -n %s: exit %d\n%s", target, code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		words, err := iut.Split(line)
		if err != nil {
			continue // a shell construct Split does not read; the real run or the recipes test covers it
		}
		for _, w := range words {
			if strings.HasPrefix(w, "./scripts/") && !isDir(w) {
				checkScript(t, target, w)
			}
		}
		if goCommand.MatchString(line) {
			checkGoCommand(t, target, words)
		}
	}
}

func checkScript(t *testing.T, target, script string) {
	t.Helper()
	p := filepath.Join(root, script)
	fi, err := os.Stat(p)
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("make %s runs %s, which is not an executable file (%v)", target, script, err)
		return
	}
	if out, code := runIn(t, root, "bash", "-n", script); code != 0 {
		t.Errorf("make %s runs %s, which does not parse:\n%s", target, script, out)
	}
}

// checkGoCommand checks the package arguments of one go command (they
// list as packages) and its -run and -bench patterns (each names a test,
// benchmark or fuzz target of the package).
func checkGoCommand(t *testing.T, target string, words []string) {
	t.Helper()
	var pkgs, patterns []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "./") && (!strings.HasPrefix(w, "./scripts/") || isDir(w)) || w == ".":
			pkgs = append(pkgs, w)
		case w == "-run" || w == "-bench" || w == "-fuzz":
			if i+1 < len(words) {
				patterns = append(patterns, words[i+1])
				i++
			}
		case strings.HasPrefix(w, "-run=") || strings.HasPrefix(w, "-bench=") || strings.HasPrefix(w, "-fuzz="):
			_, p, _ := strings.Cut(w, "=")
			patterns = append(patterns, p)
		}
	}
	for _, p := range pkgs {
		if strings.Contains(p, "...") {
			continue // a pattern; go list ./... runs in every go command the tests start
		}
		if !modulePackages(t)[filepath.Clean(p)] {
			t.Errorf("make %s: %s is no package of the module", target, p)
			continue
		}
		funcs := testFuncs(t, filepath.Join(root, p))
		for _, pat := range patterns {
			for _, alt := range alternatives(pat) {
				if alt == "^$" || alt == "." {
					continue
				}
				re, err := regexp.Compile(alt)
				if err != nil {
					t.Errorf("make %s: pattern %q: %v", target, pat, err)
					continue
				}
				if !slices.ContainsFunc(funcs, re.MatchString) {
					t.Errorf("make %s: %q names no test, benchmark or fuzz target of %s", target, alt, p)
				}
			}
		}
	}
}

var (
	packagesOnce sync.Once
	packages     map[string]bool
)

// modulePackages are the module's packages as ./relative directories,
// listed once (go list is not cheap, and every dry run asks).
func modulePackages(t *testing.T) map[string]bool {
	t.Helper()
	packagesOnce.Do(func() {
		out, code := runIn(t, root, "go", "list", "-f", "{{.Dir}}", "./...")
		if code != 0 {
			t.Fatalf("go list ./...: %s", out)
		}
		abs, _ := filepath.Abs(root)
		packages = map[string]bool{}
		for _, dir := range strings.Fields(out) {
			if rel, err := filepath.Rel(abs, dir); err == nil {
				packages[filepath.Clean("./"+rel)] = true
			}
		}
	})
	return packages
}

// alternatives splits ^(A|B|C)$ into ^A$, ^B$, ^C$, so that each name of
// such a list must exist; any other pattern stands whole.
func alternatives(pat string) []string {
	inner, ok := strings.CutPrefix(pat, "^(")
	if !ok {
		return []string{pat}
	}
	inner, ok = strings.CutSuffix(inner, ")$")
	if !ok || strings.ContainsAny(inner, "()") {
		return []string{pat}
	}
	var out []string
	for _, a := range strings.Split(inner, "|") {
		out = append(out, "^"+a+"$")
	}
	return out
}

var testFunc = regexp.MustCompile(`(?m)^func ((Test|Benchmark|Fuzz)\w*)\(`)

// testFuncs are the names of the test, benchmark and fuzz functions of the
// package in dir.
func testFuncs(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testFunc.FindAllSubmatch(b, -1) {
			out = append(out, string(m[1]))
		}
	}
	return out
}

// make docs never leaves a page half-written: when aghcheck rules fails
// (here: a BIN that prints half a page and exits 1), the pages stay as
// they were and no temporary file is left. It runs in a copy of the
// Makefile and docs/, with the build taken as done (-o build).
func TestMakeDocsKeepsPagesWhole(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dir := t.TempDir()
	for _, f := range []string{"Makefile", "docs/rules.md", "docs/coverage.md"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "broken-aghcheck")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho '# half a page'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "docs/rules.md"))
	out, code := runIn(t, dir, "make", "--no-print-directory", "-o", "build", "docs", "BIN="+bin)
	if code == 0 {
		t.Fatalf("make docs with a failing aghcheck succeeded:\n%s", out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "docs/rules.md")); !bytes.Equal(before, after) {
		t.Errorf("a failed make docs changed docs/rules.md to %q", after)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "docs"))
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("a failed make docs left %v in docs/, want rules.md and coverage.md", names)
	}
}

// isDir reports whether path, from the repository root, is a directory: a
// Go package under scripts/ (go run ./scripts/NAME), not a shell script.
func isDir(path string) bool {
	fi, err := os.Stat(filepath.Join(root, path))
	return err == nil && fi.IsDir()
}
