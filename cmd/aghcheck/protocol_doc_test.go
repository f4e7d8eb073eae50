package main

import (
	"bufio"
	"fmt"
	"github.com/aghcheck/aghcheck/internal/catalogue"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/iut"
)

const protocolDoc = "../../docs/protocol.md"

// docCommand is one "$ aghcheck derive ..." line of a sh block of
// docs/protocol.md and the lines printed under it.
type docCommand struct {
	line  int
	stdin string
	args  []string
	want  string
}

// name names the vector's subtest: its derivation and arguments, file
// arguments by their base name ("route-token echo.demo"); standard input
// by the line of the page that gives it ("digest stdin@line116").
func (c docCommand) name() string {
	var parts []string
	for _, a := range c.args[1:] {
		if a == "-" && c.stdin != "" {
			a = fmt.Sprintf("stdin@line%d", c.line)
		}
		parts = append(parts, filepath.Base(a))
	}
	return strings.Join(parts, " ")
}

// echoPipe is the one shell form the page uses: a JSON document given on
// standard input.
var echoPipe = regexp.MustCompile(`^echo '([^']*)' \| (aghcheck .*)$`)

func docCommands(t *testing.T, doc string) []docCommand {
	t.Helper()
	var (
		cmds []docCommand
		inSh bool
	)
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "```sh":
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case !inSh:
		case strings.HasPrefix(line, "$ "):
			c := docCommand{line: n}
			cmdline := strings.TrimPrefix(line, "$ ")
			if m := echoPipe.FindStringSubmatch(cmdline); m != nil {
				c.stdin, cmdline = m[1]+"\n", m[2]
			}
			argv, err := iut.Split(cmdline)
			if err != nil || argv[0] != "aghcheck" {
				t.Fatalf("%s:%d: not an aghcheck command: %s", protocolDoc, n, line)
			}
			for _, a := range argv[1:] {
				if strings.HasPrefix(a, "fixtures/") {
					a = "../../" + a // the test runs in cmd/aghcheck
				}
				c.args = append(c.args, a)
			}
			cmds = append(cmds, c)
		case len(cmds) > 0:
			cmds[len(cmds)-1].want += line + "\n"
		}
	}
	return cmds
}

// The test vectors of docs/protocol.md are what aghcheck derive prints.
func TestProtocolDocVectors(t *testing.T) {
	raw, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	cmds := docCommands(t, string(raw))
	for _, want := range []string{"route-token", "direct-id", "digest", "subject", "signing-input"} {
		if !slices.ContainsFunc(cmds, func(c docCommand) bool { return len(c.args) > 1 && c.args[1] == want }) {
			t.Errorf("%s has no vector of aghcheck derive %s", protocolDoc, want)
		}
	}
	for _, c := range cmds {
		t.Run(c.name(), func(t *testing.T) {
			code, out, stderr := runCLI(t, c.stdin, c.args...)
			if code != 0 || out != c.want {
				t.Errorf("%s:%d: aghcheck %s: exit %d, printed\n%s%s\nthe page says\n%s", protocolDoc, c.line, strings.Join(c.args, " "), code, out, stderr, c.want)
			}
		})
	}
}

// The page's rules-by-page section is generated from the catalogue.
func TestProtocolDocRules(t *testing.T) {
	raw, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	const begin, end = "<!-- BEGIN rules-by-page", "<!-- END rules-by-page -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the rules-by-page markers", protocolDoc)
	}
	i += strings.Index(doc[i:], "\n") + 1
	got := rulesByPage()
	if doc[i:j] == got {
		return
	}
	if golden.Updating() {
		if err := golden.Write(protocolDoc, []byte(doc[:i]+got+doc[j:])); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the rules-by-page section is out of date with the catalogue; %s", protocolDoc, golden.Command(t))
}

// protocolPages are the public pages of AGH Network v0, as rule sources
// name them (some sources use a short form, matched too).
var protocolPages = []struct{ name, match string }{
	{"Envelope", "Envelope"},
	{"Message Kinds", "Message Kinds"},
	{"Work Lifecycle", "Work Lifecycle"},
	{"Delivery Guarantees", "Delivery Guarantees"},
	{"NATS Transport Binding", "NATS"},
	{"Peer Discovery", "Peer Discovery"},
	{"Capability Discovery", "Capability Discovery"},
	{"Signature Verification", "Signature Verification"},
	{"Ed25519 + JCS", "Ed25519 + JCS"},
	{"Conformance Levels", "Conformance Levels"},
}

// rulesByPage renders the AGH rules grouped by the page each one's source
// names first; a rule that names no page (the input rules and aghcheck's
// own limits) is listed under its source.
func rulesByPage() string {
	byPage := map[string][]string{}
	var other []string
	for _, r := range catalogue.All() {
		if r.Profile != "input" && !strings.HasPrefix(r.Profile, "agh") {
			continue
		}
		page, at := "", len(r.Source)+1
		for _, p := range protocolPages {
			if k := strings.Index(r.Source, p.match); k >= 0 && k < at {
				page, at = p.name, k
			}
		}
		if page == "" {
			other = append(other, fmt.Sprintf("`%s` (%s)", r.ID, r.Source))
			continue
		}
		byPage[page] = append(byPage[page], "`"+r.ID+"`")
	}
	var b strings.Builder
	b.WriteString("| page | rules |\n| --- | --- |\n")
	for _, p := range protocolPages {
		if ids := byPage[p.name]; len(ids) > 0 {
			slices.Sort(ids)
			fmt.Fprintf(&b, "| %s | %s |\n", p.name, strings.Join(ids, ", "))
		}
	}
	if len(other) > 0 {
		slices.Sort(other)
		fmt.Fprintf(&b, "| not from a page (the JSON RFCs, the reference runtime's erratum, aghcheck's own limits) | %s |\n", strings.Join(other, ", "))
	}
	return b.String()
}
