package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var aghVar = regexp.MustCompile(`AGH_[A-Z_]+`)

func varsIn(s string) []string {
	vs := aghVar.FindAllString(s, -1)
	slices.Sort(vs)
	return slices.Compact(vs)
}

// TestEnvironmentContract: the variables an IUT really gets are the ones
// docs/harness.md's table and run --help name; peer --help names them too,
// and AGH_GREET_INTERVAL, which the peer reads but run does not set, is
// said to be so everywhere it appears.
func TestEnvironmentContract(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "env.txt")
	if code, _, errOut := runCLI(t, "", "run", "--run", `^kinds\.greet-announces-card$`, "--greet-timeout", "5s",
		"--iut", "sh -c 'env > "+dump+"; exit 3'"); code != exitUsageErr {
		t.Fatalf("exit %d (want 2: the IUT exits before greeting): %s", code, errOut)
	}
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(env), "\n") {
		if name, _, ok := strings.Cut(line, "="); ok && strings.HasPrefix(name, "AGH_") {
			got = append(got, name)
		}
	}
	slices.Sort(got)

	doc, err := os.ReadFile("../../docs/harness.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `AGH_") {
			cell, _, _ := strings.Cut(line[1:], "|")
			table = append(table, varsIn(cell)...)
		}
	}
	slices.Sort(table)
	if !slices.Equal(got, table) {
		t.Errorf("the IUT gets %v; docs/harness.md's table names %v", got, table)
	}
	_, runHelp, _ := runCLI(t, "", "run", "--help")
	if help := varsIn(runHelp); !slices.Equal(help, got) {
		t.Errorf("run --help names %v; the IUT gets %v", help, got)
	}
	_, peerHelp, _ := runCLI(t, "", "peer", "--help")
	if help := varsIn(peerHelp); !slices.Equal(help, varsIn(strings.Join(append(got, "AGH_GREET_INTERVAL"), " "))) {
		t.Errorf("peer --help names %v; want %v and AGH_GREET_INTERVAL", help, got)
	}
	for name, text := range map[string]string{"peer --help": peerHelp, "docs/harness.md": string(doc)} {
		if !regexp.MustCompile(`AGH_GREET_INTERVAL[^.]*\s+which\s+` + "`?run`?" + `\s+does\s+not\s+set`).MatchString(text) {
			t.Errorf("%s does not say that run does not set AGH_GREET_INTERVAL", name)
		}
	}
}
