// Command bench-guard compares aghcheck's headline speed figures with the
// last release's build, side by side in one run, and exits 1 when one got
// more than 10% slower (docs/validate.md#speed-guard):
//
//   - validate: aghcheck validate --quiet on 100,000 generated envelopes
//     (scripts/gen-envelopes), wall time of the whole process;
//   - run: aghcheck run against the built-in peer, wall time per scenario
//     played (a suite that grew is not a slowdown);
//   - monitor: BenchmarkMonitor/flat-out, envelopes judged a second;
//   - fuzz: BenchmarkFuzzReferencePeer, cases a second.
//
// The last release is the nearest v* tag (git describe --tags --abbrev=0
// --match 'v*'), else the commit scripts/bench-baseline names. Both trees
// are built here; each figure's runs alternate between the two builds
// (old, new, new, old, ...), so that the machine's load falls on both.
//
// -quick needs no old build: aghcheck validate against the json.Valid byte
// scan (scripts/bytescan) of the same corpus in the same run, a ratio that
// must stay within 10% of the one scripts/bench-baseline records, in CPU
// time (the wall-time ratio moves with the cores other jobs leave free). It is the
// form CI runs (.ci/run: no network beyond the Go module proxy, no node).
//
//	go run ./scripts/bench-guard          (make bench-guard)
//	go run ./scripts/bench-guard -quick   (make bench-guard-quick)
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	var o options
	flag.BoolVar(&o.quick, "quick", false, "validate against the byte-scan floor only (no old build)")
	flag.StringVar(&o.base, "base", "", "baseline commit or tag (default: the nearest v* tag, else scripts/bench-baseline)")
	flag.IntVar(&o.rounds, "rounds", 0, "interleaved rounds per figure (default 7; 9 with -quick; 5 for fuzz)")
	flag.IntVar(&o.n, "n", 100000, "envelopes in the generated corpus")
	flag.Float64Var(&o.limit, "limit", 1.10, "slowest allowed ratio to the baseline")
	flag.StringVar(&o.figures, "figures", "validate,run,monitor,fuzz", "figures to compare")
	flag.BoolVar(&o.keep, "keep", false, "keep the work directory (builds, corpus)")
	flag.Parse()
	code, err := guard(o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-guard:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

type options struct {
	quick         bool
	base, figures string
	rounds, n     int
	limit         float64
	keep          bool
}

// A tree is one build of aghcheck: the binary, and the test binaries of
// the packages whose benchmarks are figures.
type tree struct {
	label, src, out string
	bin             string
	tests           map[string]testBin // by benchmark function
}

type testBin struct{ exe, dir string }

// A figure is one headline figure, measured one run at a time.
type figure struct {
	name, what string
	bench      string // the Go benchmark it runs, "" for a command of the binary
	rounds     int    // default rounds, when fewer than the others' are enough
	run        func(e *env, t *tree) (sample, error)
}

type env struct {
	corpus string
	floor  string // the byte-scan binary
}

var figures = []figure{
	{name: "validate", what: "aghcheck validate --quiet, the generated corpus (wall s)", run: func(e *env, t *tree) (sample, error) {
		s, _, err := timed(t.src, []int{0, 1}, t.bin, "validate", "--quiet", e.corpus)
		return s, err
	}},
	{name: "run", what: "aghcheck run, the built-in peer (wall s per scenario)", run: runFigure},
	{name: "monitor", what: "monitor flat out (s per 1M envelopes)", bench: "BenchmarkMonitor", run: func(e *env, t *tree) (sample, error) {
		return benchFigure(t, "BenchmarkMonitor", "^BenchmarkMonitor$/^flat-out$", "200000x", "envelopes/s", 1e6)
	}},
	{name: "fuzz", what: "fuzz, the built-in peer (s per 10k cases)", bench: "BenchmarkFuzzReferencePeer", rounds: 5, run: func(e *env, t *tree) (sample, error) {
		return benchFigure(t, "BenchmarkFuzzReferencePeer", "^BenchmarkFuzzReferencePeer$", "1x", "cases/s", 1e4)
	}},
}

func guard(o options, w io.Writer) (int, error) {
	root, err := gitOut(".", "rev-parse", "--show-toplevel")
	if err != nil {
		if !o.quick {
			return 0, fmt.Errorf("not in a git checkout: %w", err)
		}
		root = "." // -quick builds only this tree (a CI copy may have no .git)
	}
	work, err := os.MkdirTemp("", "bench-guard-")
	if err != nil {
		return 0, err
	}
	if o.keep {
		fmt.Fprintln(w, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	baseline := map[string]string{}
	if raw, err := os.ReadFile(filepath.Join(root, "scripts", "bench-baseline")); err == nil {
		baseline = parseBaseline(string(raw))
	}
	cur := &tree{label: "today", src: root, out: filepath.Join(work, "today")}
	e := &env{corpus: filepath.Join(work, "corpus", "envelopes.ndjson")}
	if err := run(root, "go", "run", "./scripts/gen-envelopes", "-n", strconv.Itoa(o.n), "-o", filepath.Dir(e.corpus)); err != nil {
		return 0, err
	}
	today, err := gitOut(root, "describe", "--tags", "--always", "--dirty")
	if err != nil {
		today = "(no git)"
	}
	if o.quick {
		return quick(o, w, e, cur, baseline, today)
	}
	ref, why, err := baselineRef(root, o.base, baseline)
	if err != nil {
		return 0, err
	}
	old := &tree{label: "baseline", src: filepath.Join(work, "baseline-src"), out: filepath.Join(work, "baseline")}
	if err := export(root, ref, old.src); err != nil {
		return 0, err
	}
	var chosen []figure
	for _, f := range figures {
		if slices.Contains(strings.Split(o.figures, ","), f.name) {
			chosen = append(chosen, f)
		}
	}
	for _, t := range []*tree{old, cur} {
		if err := t.build(chosen); err != nil {
			return 0, fmt.Errorf("building %s: %w", t.label, err)
		}
	}
	fmt.Fprintf(w, "baseline %s (%s) against today %s; %d envelopes; a figure fails above %.2fx in both the median of paired runs and best against best\n",
		ref, why, today, o.n, o.limit)
	warnLoad(w)
	var slower []string
	for _, f := range chosen {
		if _, ok := old.tests[f.bench]; f.bench != "" && !ok {
			fmt.Fprintf(w, "%-9s not in the baseline (no %s): not compared\n", f.name, f.bench)
			continue
		}
		rounds := o.rounds
		if rounds == 0 {
			rounds = cmp.Or(f.rounds, 7)
		}
		p, err := interleave(rounds, func(t *tree) (sample, error) { return f.run(e, t) }, old, cur)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f.name, err)
		}
		v := judge(p, o.limit)
		report(w, f.name, f.what, p, v, "")
		if v.slower {
			slower = append(slower, fmt.Sprintf("%s %.2fx", f.name, v.median))
		}
	}
	return conclude(w, slower, o.limit)
}

// warnLoad says when other work keeps every core busy: the pairs still
// share the load, but wall times of a machine that busy vary by half, and
// a figure can fail on noise (the CPU-time ratio beside it then stays under
// the limit).
func warnLoad(w io.Writer) {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return
	}
	if load, err := strconv.ParseFloat(f[0], 64); err == nil && load > float64(runtime.NumCPU()) {
		fmt.Fprintf(w, "warning: load %.1f on %d cores: wall times are noisy; a figure that fails with its CPU ratio under the limit is worth a rerun on a quieter machine\n", load, runtime.NumCPU())
	}
}

// quick is -quick: validate against the byte-scan floor, no old build.
func quick(o options, w io.Writer, e *env, cur *tree, baseline map[string]string, today string) (int, error) {
	recorded, err := strconv.ParseFloat(baseline["validate-floor"], 64)
	if err != nil {
		return 0, errors.New("scripts/bench-baseline records no validate-floor ratio")
	}
	if err := cur.build(nil); err != nil {
		return 0, err
	}
	e.floor = filepath.Join(cur.out, "bytescan")
	if err := run(cur.src, "go", "build", "-o", e.floor, "./scripts/bytescan"); err != nil {
		return 0, err
	}
	warnLoad(w)
	floor := &tree{label: "floor", src: cur.src}
	rounds := cmp.Or(o.rounds, 9)
	p, err := interleave(rounds, func(t *tree) (sample, error) {
		if t == floor {
			s, _, err := timed(t.src, []int{0}, e.floor, e.corpus)
			return s, err
		}
		return figures[0].run(e, t)
	}, floor, cur)
	if err != nil {
		return 0, err
	}
	// Judged in CPU time: the floor scans on every core, so how many of
	// them other jobs leave free moves the wall-time ratio (1.4 idle, 1.7
	// under load on the 2-core CI machine); the CPU-time ratio stays put.
	limit := recorded * o.limit
	wall := judge(p, limit)
	v := judge(cpuPairs(p), limit)
	fmt.Fprintf(w, "today %s; %d envelopes; aghcheck validate against the json.Valid byte scan of the same lines, %d rounds in turn\n", today, o.n, rounds)
	report(w, "validate", "aghcheck validate --quiet / byte-scan floor (CPU s)", cpuPairs(p), v,
		fmt.Sprintf("; wall %.2f median, %.2f best; limit %.2f = %.2f recorded x %.2f", wall.median, wall.best, limit, recorded, o.limit))
	var slower []string
	if v.slower {
		slower = append(slower, fmt.Sprintf("validate %.2fx the floor", v.median))
	}
	return conclude(w, slower, o.limit)
}

// cpuPairs is p with CPU time as the cost.
func cpuPairs(p pairs) pairs {
	conv := func(ss []sample) []sample {
		out := make([]sample, len(ss))
		for i, s := range ss {
			out[i] = sample{cost: s.cpu}
		}
		return out
	}
	return pairs{old: conv(p.old), cur: conv(p.cur)}
}

func report(w io.Writer, name, what string, p pairs, v verdict, extra string) {
	state := "ok"
	if v.slower {
		state = "SLOWER"
	}
	fmt.Fprintf(w, "%-9s %s: %.4g -> %.4g (medians); ratio %.2f median of %d pairs, %.2f best to best", name, what,
		medianCost(p.old), medianCost(p.cur), v.median, len(p.cur), v.best)
	if v.cpu > 0 {
		fmt.Fprintf(w, ", CPU %.2f", v.cpu)
	}
	fmt.Fprintf(w, "%s  %s\n", extra, state)
}

func conclude(w io.Writer, slower []string, limit float64) (int, error) {
	if len(slower) > 0 {
		fmt.Fprintf(w, "bench-guard: FAIL: more than %.0f%% slower: %s\n", (limit-1)*100, strings.Join(slower, ", "))
		return 1, nil
	}
	fmt.Fprintf(w, "bench-guard: ok: no figure more than %.0f%% slower\n", (limit-1)*100)
	return 0, nil
}

// interleave runs measure on a and b in turn (a b, b a, a b, ...) after
// one run of each that is not counted (it loads the binaries and the corpus
// into memory).
func interleave(rounds int, measure func(*tree) (sample, error), a, b *tree) (pairs, error) {
	var p pairs
	for _, t := range []*tree{a, b} {
		if _, err := measure(t); err != nil {
			return p, fmt.Errorf("%s: %w", t.label, err)
		}
	}
	for r := range rounds {
		order := []*tree{a, b}
		if r%2 == 1 {
			order = []*tree{b, a}
		}
		for _, t := range order {
			s, err := measure(t)
			if err != nil {
				return p, fmt.Errorf("%s: %w", t.label, err)
			}
			if t == a {
				p.old = append(p.old, s)
			} else {
				p.cur = append(p.cur, s)
			}
		}
	}
	return p, nil
}

// build builds the aghcheck binary of t and the test binaries of the
// benchmarks among figs (a benchmark t does not have is left out).
func (t *tree) build(figs []figure) error {
	t.bin = filepath.Join(t.out, "aghcheck")
	if err := run(t.src, "go", "build", "-o", t.bin, "./cmd/aghcheck"); err != nil {
		return err
	}
	t.tests = map[string]testBin{}
	for _, f := range figs {
		if f.bench == "" {
			continue
		}
		// Packages move between releases: the benchmark is found by name.
		out, _ := exec.Command("grep", "-rl", "--include=*_test.go", "func "+f.bench+"(", t.src).Output()
		files := strings.Fields(string(out))
		if len(files) == 0 {
			continue
		}
		dir := filepath.Dir(files[0])
		exe := filepath.Join(t.out, f.name+".test")
		if err := run(dir, "go", "test", "-c", "-o", exe, "."); err != nil {
			return err
		}
		t.tests[f.bench] = testBin{exe: exe, dir: dir}
	}
	return nil
}

func runFigure(_ *env, t *tree) (sample, error) {
	s, out, err := timed(t.src, []int{0, 1}, t.bin, "run", "--format", "json")
	if err != nil {
		return s, err
	}
	var rep struct {
		Summary struct{ Pass, Fail, Warn, Skip, Error int }
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return s, fmt.Errorf("aghcheck run --format json: %w", err)
	}
	n := rep.Summary.Pass + rep.Summary.Fail + rep.Summary.Warn + rep.Summary.Skip + rep.Summary.Error
	if n == 0 {
		return s, errors.New("aghcheck run played no scenario")
	}
	return sample{cost: s.cost / float64(n), cpu: s.cpu / float64(n)}, nil
}

// benchFigure runs one benchmark of t's test binary; the cost is per of
// the units the metric counts (seconds per 1M envelopes, per 10k cases).
func benchFigure(t *tree, fn, pattern, benchtime, unit string, per float64) (sample, error) {
	tb := t.tests[fn]
	s, out, err := timed(tb.dir, []int{0}, tb.exe, "-test.run=^$", "-test.bench="+pattern, "-test.benchtime="+benchtime)
	if err != nil {
		return s, err
	}
	v, err := benchMetric(string(out), unit)
	if err != nil {
		return s, fmt.Errorf("%s: %w", fn, err)
	}
	return sample{cost: per / v, cpu: s.cpu}, nil
}

// timed runs name args in dir and returns its wall and CPU time (user and
// system, its own) and its standard output; an exit status not in ok is an
// error.
func timed(dir string, ok []int, name string, args ...string) (sample, []byte, error) {
	out, err := os.CreateTemp("", "bench-guard-out-")
	if err != nil {
		return sample{}, nil, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start).Seconds()
	if cmd.ProcessState == nil {
		return sample{}, nil, err
	}
	if code := cmd.ProcessState.ExitCode(); !slices.Contains(ok, code) {
		return sample{}, nil, fmt.Errorf("%s %s: exit %d: %s", filepath.Base(name), strings.Join(args, " "), code, lastLine(stderr.String()))
	}
	var cpu float64
	if ru, isRU := cmd.ProcessState.SysUsage().(*syscall.Rusage); isRU {
		cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	data, err := os.ReadFile(out.Name())
	return sample{cost: wall, cpu: cpu}, data, err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// baselineRef is the commit to compare with, and how it was chosen.
func baselineRef(root, flagged string, baseline map[string]string) (ref, why string, err error) {
	if flagged != "" {
		return flagged, "-base", nil
	}
	if tag, err := gitOut(root, "describe", "--tags", "--abbrev=0", "--match", "v*"); err == nil && tag != "" {
		return tag, "the nearest v* tag", nil
	}
	if c := baseline["commit"]; c != "" {
		return c, "scripts/bench-baseline: no v* tag yet", nil
	}
	return "", "", errors.New("no v* tag and no commit in scripts/bench-baseline")
}

// export writes the tree of ref into dir (git archive: no worktree to
// clean up).
func export(root, ref, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.Command("git", "archive", "--format=tar", ref)
	archive.Dir = root
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	untar.Stdin = pipe
	var aerr bytes.Buffer
	archive.Stderr = &aerr
	if err := untar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", ref, err, lastLine(aerr.String()))
	}
	return untar.Wait()
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLine(string(out)))
	}
	return nil
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
