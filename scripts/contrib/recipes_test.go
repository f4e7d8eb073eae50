package contrib

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestRecipes applies every recipe of CONTRIBUTING.md to a copy of the
// tree, a dummy change of each kind (dummies_test.go), then does what the
// recipes say: make regen-fast (make regen without the mutation matrix,
// which the checks do not read), then each recipe's Check command, which
// must pass. Every file the changes touched, by hand or through make
// regen, must be named by the recipes, so a recipe that leaves out a file
// or names a check that no longer holds fails here. The changes share one
// copy and one make regen-fast, and the checks are targeted, so that this
// costs make test little; RECIPES_EACH=1 applies each recipe to a copy of
// its own and logs the files it touched.
func TestRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("applies every recipe to a copy of the tree and checks it: seconds of CPU")
	}
	for _, tool := range []string{"make", "git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: make regen needs it", tool)
		}
	}
	if out, code := runIn(t, root, "git", "rev-parse", "--is-inside-work-tree"); code != 0 || strings.TrimSpace(out) != "true" {
		t.Skip("not a git checkout: the tree to copy is the files git knows of")
	}
	if os.Getenv("RECIPES_EACH") != "" {
		for _, r := range recipes {
			t.Run(r.heading, func(t *testing.T) { applyAndCheck(t, []recipe{r}) })
		}
		return
	}
	applyAndCheck(t, recipes)
}

func applyAndCheck(t *testing.T, rs []recipe) {
	tree := copyTree(t)
	doc, err := os.ReadFile(filepath.Join(tree, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	regenSection := section(t, string(doc), "Regenerate: make regen")
	var named []string // what the applied recipes (and make regen's section) name
	named = append(named, pathPatterns(regenSection)...)
	for _, r := range rs {
		text := section(t, string(doc), r.heading)
		pats := pathPatterns(text)
		named = append(named, pats...)
		hand := map[string]bool{}
		for _, e := range r.edits {
			apply(t, tree, e)
			hand[e.file] = true
		}
		for f := range hand {
			if !matchesAny(pats, f) {
				t.Errorf("CONTRIBUTING.md, %q: the change edits %s, which the recipe does not name", r.heading, f)
			}
		}
		t.Logf("%s: %d files edited by hand", r.heading, len(hand))
	}
	start, cpu := time.Now(), cpuSpent.Load()
	if out, code := runIn(t, tree, "make", "--no-print-directory", "regen-fast"); code != 0 {
		t.Fatalf("make regen-fast after the changes: exit %d\n%s", code, out)
	}
	t.Logf("make regen-fast: %v (CPU %v)", time.Since(start).Round(time.Second), time.Duration(cpuSpent.Load()-cpu).Round(time.Second))
	changed := gitChanged(t, tree)
	t.Logf("after make regen-fast, %d files changed in all: %s", len(changed), strings.Join(changed, " "))
	for _, f := range changed {
		if !matchesAny(named, f) {
			t.Errorf("the changes touched %s, which no recipe names", f)
		}
	}
	for _, r := range rs {
		check := checkCommand(t, section(t, string(doc), r.heading), r)
		start, cpu := time.Now(), cpuSpent.Load()
		out, code := runIn(t, tree, "sh", "-c", check)
		if code != 0 {
			t.Errorf("CONTRIBUTING.md, %q: its check `%s` fails on the dummy change: exit %d\n%s", r.heading, check, code, out)
		}
		t.Logf("%s: %s (%v, CPU %v)", r.heading, check, time.Since(start).Round(time.Second), time.Duration(cpuSpent.Load()-cpu).Round(time.Second))
		if testing.Verbose() {
			t.Log(out)
		}
	}
}

// copyTree copies the files git knows of (tracked or not ignored, as they
// are in the working tree) into a temporary directory and commits them
// there, so that git status shows what the recipes changed.
func copyTree(t *testing.T) string {
	t.Helper()
	out, code := runIn(t, root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if code != 0 {
		t.Fatalf("git ls-files: %s", out)
	}
	tree := filepath.Join(t.TempDir(), "tree")
	for _, f := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		src := filepath.Join(root, f)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(tree, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=recipes", "-c", "user.email=recipes@localhost", "commit", "-q", "-m", "tree"},
	} {
		if out, code := runIn(t, tree, "git", args...); code != 0 {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	return tree
}

// apply makes one edit in the copy.
func apply(t *testing.T, tree string, e edit) {
	t.Helper()
	p := filepath.Join(tree, e.file)
	if e.anchor == "" {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("dummy change: %s exists already", e.file)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("dummy change: %v", err)
	}
	s := string(b)
	if n := strings.Count(s, e.anchor); n != 1 {
		t.Fatalf("dummy change: %s holds %q %d times, want once: the code moved; read the recipe again and update dummies_test.go", e.file, e.anchor, n)
	}
	i := strings.Index(s, e.anchor)
	j := i
	switch {
	case e.replace:
		j += len(e.anchor)
	case e.after:
		i += len(e.anchor)
		j = i
	}
	if err := os.WriteFile(p, []byte(s[:i]+e.text+s[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// section is the text of the ## section of doc whose heading is heading.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("CONTRIBUTING.md has no section ## %s", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

var (
	backtick = regexp.MustCompile("`([^`\n]+)`")
	// placeholder is a word of a recipe's text that stands for a name:
	// in a path it matches any name, in a Check command the dummy's value.
	placeholder = regexp.MustCompile(`RULE-ID|FAULT-NAME|COMMAND|GROUP|NAME|FILE|EXT|ID|what|\*`)
	pathLike    = regexp.MustCompile(`^[A-Za-z0-9_.*/-]+\.[a-z]+$`)
)

// pathPatterns are the paths a recipe's text names in backticks, as
// regular expressions: its placeholders (NAME, GROUP, RULE-ID, what, *)
// match any part of a name.
func pathPatterns(text string) []string {
	var out []string
	for _, m := range backtick.FindAllStringSubmatch(text, -1) {
		w := m[1]
		if !pathLike.MatchString(w) {
			continue
		}
		parts := placeholder.Split(w, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		out = append(out, "^"+strings.Join(parts, ".+")+"$")
	}
	return out
}

func matchesAny(patterns []string, file string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return regexp.MustCompile(p).MatchString(file) })
}

// checkCommand is the recipe's "Check: `...`" command with the dummy's
// values in place of the placeholders in the values of its NAME=VALUE
// words (make check-rule RULE=RULE-ID).
func checkCommand(t *testing.T, text string, r recipe) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\nCheck: `")
	if !ok {
		t.Fatalf("CONTRIBUTING.md, %q: no line starting Check: `COMMAND`", r.heading)
	}
	cmd, _, _ := strings.Cut(rest, "`")
	words := strings.Fields(cmd)
	for i, w := range words {
		key, val, ok := strings.Cut(w, "=")
		if !ok {
			continue
		}
		val = placeholder.ReplaceAllStringFunc(val, func(p string) string {
			if v, ok := r.params[p]; ok {
				return v
			}
			t.Errorf("CONTRIBUTING.md, %q: its check %q has a placeholder %s the dummy gives no value", r.heading, cmd, p)
			return p
		})
		words[i] = key + "=" + val
	}
	return strings.Join(words, " ")
}

// gitChanged lists the files that differ from the copy's commit.
func gitChanged(t *testing.T, tree string) []string {
	t.Helper()
	out, code := runIn(t, tree, "git", "status", "--porcelain", "--untracked-files=all")
	if code != 0 {
		t.Fatalf("git status: %s", out)
	}
	var files []string
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 3 {
			files = append(files, strings.TrimSpace(line[3:]))
		}
	}
	sort.Strings(files)
	return files
}

// A recipe's paths match the files they stand for, placeholders and all,
// and nothing else.
func TestPathPatterns(t *testing.T) {
	pats := pathPatterns("edit `internal/agh/rules.go`, write `reporter/NAME.go` and `suites/GROUP/NAME.yaml`; " +
		"`fixtures/agh/invalid/RULE-ID__what.json`, `reporter/testdata/*.golden`, not `make regen` or `SAY-*`")
	for file, want := range map[string]bool{
		"internal/agh/rules.go":                         true,
		"internal/agh/rules_test.go":                    false,
		"reporter/run_tap.go":                           true,
		"suites/core/delivery/recipe-probe.yaml":        true,
		"fixtures/agh/invalid/SAY-RECIPE-PROBE__x.json": true,
		"fixtures/agh/invalid/README.md":                false,
		"reporter/testdata/run_tap.golden":              true,
		"docs/rules.md":                                 false,
	} {
		if got := matchesAny(pats, file); got != want {
			t.Errorf("%s: named %v, want %v (patterns %q)", file, got, want, pats)
		}
	}
}
