package agh

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/jsontest"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// decode decodes b as the tool does.
func decode(t testing.TB, b []byte) any { t.Helper(); return jsontest.Decode(t, b) }

func mustChecker(t testing.TB, o Options) *Checker {
	t.Helper()
	c, err := NewChecker(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkFile(t testing.TB, c *Checker, path string) Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// CheckBytes, not CheckValue: some invalid fixtures break the bytes
	// (INPUT-UTF8, INPUT-JSON-SYNTAX) and hold no JSON value.
	return c.CheckBytes(b)
}

// ids lists the distinct rule ids of the findings, sorted.
func ids(fs []rules.Finding) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fs {
		if !seen[f.Rule.ID] {
			seen[f.Rule.ID] = true
			out = append(out, f.Rule.ID)
		}
	}
	sort.Strings(out)
	return out
}

func dump(fs []rules.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}

func fixtureFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "agh", dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s (%v)", dir, err)
	}
	return files
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
