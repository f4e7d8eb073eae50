package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/reporter"
)

// hostile is what a peer or a file would use against aghcheck's outputs:
// an OSC 8 link, a screen clear and a window-title change, C1 CSI, a bare
// CR, a backspace, a bidi override, HTML, Markdown, and workflow commands
// after line breaks (LF, CRLF, blanks first).
const hostile = "\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07\x1b[2J\x1b]0;pwned\x07\u009b31m\rCR\bBS\u202egnp.exe" +
	" <img src=x onerror=alert(1)> **bold** [l](http://evil.example) `c` | cell" +
	"\n::error title=forged::injected\r\n::stop-commands::tok\n  ::warning::w\n### no regression"

// forged are the lines the hostile string would add to a GitHub Actions
// log: none may start a line of any output.
var forged = []string{"::error title=forged", "::stop-commands", "::warning::w"}

// checkOutput fails t when out holds a raw control character (other than
// the line breaks and tabs aghcheck writes itself), a C1 or bidi control,
// a workflow command the data wrote, or Markdown/HTML structure from it.
func checkOutput(t *testing.T, what string, out []byte) {
	t.Helper()
	checkOutputAs(t, what, "", out)
}

// checkOutputAs is checkOutput for a format: in Markdown and HTML, the
// data's markup must be escaped too.
func checkOutputAs(t *testing.T, what, format string, out []byte) {
	t.Helper()
	s := string(out)
	for i, r := range s {
		bad := r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029
		if bad {
			t.Errorf("%s: raw %U at byte %d: …%q…", what, r, i, s[max(0, i-40):min(len(s), i+40)])
			return
		}
	}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " \t")
		for _, f := range forged {
			if strings.HasPrefix(l, f) {
				t.Errorf("%s: the data starts a workflow command: %q", what, l)
			}
		}
		if format == "markdown" && strings.HasPrefix(l, "### no regression") {
			t.Errorf("%s: the data starts a Markdown heading: %q", what, l)
		}
	}
	structures := map[string][]string{
		"markdown": {"<img", "[l](http", "`c`"},
		"html":     {"<img", `href="http://evil`},
	}[format]
	for _, structure := range structures {
		if strings.Contains(s, structure) {
			t.Errorf("%s: the data's %q reached the output as structure", what, structure)
		}
	}
}

// aghcheckBin is the test binary as the aghcheck command testscript.Main
// puts on $PATH, for an IUT command line.
func aghcheckBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("aghcheck")
	if err != nil {
		t.Skip("no aghcheck on $PATH (testscript.Main sets it up)")
	}
	return p
}

func hostileCLI(t *testing.T, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return o.Bytes(), e.Bytes(), code
}

// TestHostileStringsEveryFormat sends one hostile string through every
// format of every command: a run against a peer whose display_name is the
// string and which prints it (and its broker password) on stdout and stderr;
// its --write-baseline and --record; diff and diff --matrix of reports
// whose every string is the string; validate of a file whose name,
// member names and values are the string; fuzz against the same peer; and
// monitor's errors for a URL with a password.
func TestHostileStringsEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the IUT once per format")
	}
	dir := t.TempDir()
	iut := hostileIUT(t, dir, aghcheckBin(t))
	jsonReport := hostileRun(t, dir, iut)
	hostileDiff(t, dir, jsonReport)
	hostileValidate(t, dir)
	hostileFuzz(t, dir, iut)

	// monitor: a password in --nats-url is in no line it prints.
	_, errOut, _ := hostileCLI(t, "monitor", "--nats-url", "nats://alice:hunter2-secret@127.0.0.1:1", "--duration", "1s", "-f", "json")
	if bytes.Contains(errOut, []byte("hunter2-secret")) || !bytes.Contains(errOut, []byte("aghcheck:")) {
		t.Errorf("monitor error: %q", errOut)
	}
	_ = sanitize.Redacted
}

// hostileIUT writes the IUT of TestHostileStringsEveryFormat into dir and
// returns its command line: the built-in peer under the hostile name,
// printing it (and its broker password) on stdout and stderr.
func hostileIUT(t *testing.T, dir, bin string) string {
	// A failure is not needed: every string in the report is the peer's.
	hfile := filepath.Join(dir, "hostile.txt")
	if err := os.WriteFile(hfile, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "iut.sh")
	body := "cat '" + hfile + "' >&2; echo >&2; cat '" + hfile + "'; echo; echo \"password=$AGH_NATS_PASSWORD\"; echo \"password=$AGH_NATS_PASSWORD\" >&2\n" +
		"exec '" + bin + "' peer --fault receipt-on-broadcast --display-name \"$(cat '" + hfile + "')\"\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return "sh " + script
}

// hostileRun runs iut in every run format, with --write-baseline and
// --record beside the text, and returns the JSON report.
func hostileRun(t *testing.T, dir, iut string) []byte {
	const sel = `^nats\.directed-replies`

	var jsonReport []byte
	for _, format := range reporter.Run.Names() {
		args := []string{"run", "--iut", iut, "--run", sel, "-f", format, "--implementation-version", hostile}
		if format == "text" {
			args = append(args, "-v", "--write-baseline", filepath.Join(dir, "baseline.yaml"), "--record", filepath.Join(dir, "record.yaml"))
		}
		out, errOut, code := hostileCLI(t, args...)
		if code == 2 {
			t.Fatalf("run -f %s: exit 2, the run was not carried out\n%s", format, errOut)
		}
		checkOutputAs(t, "run -f "+format, format, out)
		checkOutput(t, "run -f "+format+" (stderr)", errOut)
		checkFormat(t, "run -f "+format, format, out)
		if bytes.Contains(out, []byte("click")) == false && format != "record-json" && format != "record-yaml" {
			t.Errorf("run -f %s: the display_name is not in the report at all", format)
		}
		if format == "json" {
			jsonReport = out
			var rep struct {
				IUT struct{ Stdout, Stderr string }
			}
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatal(err)
			}
			// On the embedded broker the IUT's secret is its own user's
			// password (it is given no token).
			if !strings.Contains(rep.IUT.Stdout, "password=[redacted]") || !strings.Contains(rep.IUT.Stderr, "password=[redacted]") {
				t.Errorf("the password the IUT printed is not redacted: stdout %q, stderr %q", rep.IUT.Stdout, rep.IUT.Stderr)
			}
		}
	}
	for _, f := range []string{"baseline.yaml", "record.yaml"} {
		t.Run(f, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, f, b)
			if st, _ := os.Stat(filepath.Join(dir, f)); st.Mode().Perm()&^0o644 != 0 {
				t.Errorf("%s has mode %v, want 0644 at most", f, st.Mode().Perm())
			}
		})
	}

	return jsonReport
}

// hostileDiff diffs jsonReport with a copy whose every string is hostile,
// in every diff and matrix format.
func hostileDiff(t *testing.T, dir string, jsonReport []byte) {
	// diff: two reports (untrusted files too) whose strings are all hostile.
	oldPath, newPath := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	if err := os.WriteFile(oldPath, jsonReport, 0o600); err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(jsonReport, &rep); err != nil {
		t.Fatal(err)
	}
	rep["version"] = hostile
	iutInfo := rep["iut"].(map[string]any)
	iutInfo["implementation"], iutInfo["implementation_version"] = hostile, hostile
	for _, sc := range rep["scenarios"].([]any) {
		m := sc.(map[string]any)
		m["message"], m["level"] = hostile, hostile
		if m["outcome"] != "skip" {
			m["outcome"] = "error" // judged before, not played now: fails the gate
		}
	}
	rep["scenarios"] = append(rep["scenarios"].([]any), map[string]any{"id": hostile, "outcome": "fail", "message": hostile, "level": "MUST"})
	b, _ := json.Marshal(rep)
	if err := os.WriteFile(newPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range reporter.Diff.Names() {
		t.Run("diff/"+format, func(t *testing.T) {
			out, errOut, code := hostileCLI(t, "diff", "-f", format, oldPath, newPath)
			if code != 1 {
				t.Errorf("diff -f %s: exit %d, want 1 (a scenario judged before could not be played)\n%s", format, code, errOut)
			}
			checkOutputAs(t, "diff -f "+format, format, out)
			checkFormat(t, "diff -f "+format, format, out)
			if format == "markdown" && !strings.HasPrefix(string(out), "### aghcheck diff: 1 could not be played (judged before)\n") {
				t.Errorf("diff -f markdown: heading %q", strings.SplitN(string(out), "\n", 2)[0])
			}
		})
	}
	for _, format := range reporter.Matrix.Names() {
		t.Run("matrix/"+format, func(t *testing.T) {
			out, _, _ := hostileCLI(t, "diff", "--matrix", "-f", format, oldPath, newPath)
			checkOutputAs(t, "diff --matrix -f "+format, format, out)
			checkFormat(t, "diff --matrix -f "+format, format, out)
		})
	}

}

// hostileValidate validates a file whose name, member names and values are
// hostile, in every format.
func hostileValidate(t *testing.T, dir string) {
	// validate: a file whose name, member names and values are hostile.
	name := filepath.Join(dir, strings.ReplaceAll(hostile, "/", "_")+".json")
	doc, _ := json.Marshal(map[string]any{"protocol": hostile, hostile: hostile, "kind": "say", "from": hostile, "body": map[string]any{hostile: 1}})
	if err := os.WriteFile(name, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range reporter.Validate.Names() {
		t.Run("validate/"+format, func(t *testing.T) {
			out, errOut, code := hostileCLI(t, "validate", "-f", format, name)
			if code != 1 {
				t.Errorf("validate -f %s: exit %d, want 1\n%s", format, code, errOut)
			}
			if !bytes.Contains(out, []byte("click")) {
				t.Errorf("validate -f %s: the file name or members are not in the output at all:\n%s", format, out)
			}
			checkOutput(t, "validate -f "+format, out)
			checkOutput(t, "validate -f "+format+" (stderr)", errOut)
			checkFormat(t, "validate -f "+format, format, out)
		})
	}
	// A file that cannot be read names itself in an error line.
	_, errOut, _ := hostileCLI(t, "validate", name+".missing")
	checkOutput(t, "validate of a missing hostile file (stderr)", errOut)
	if n := bytes.Count(errOut, []byte("\n")); n != 1 {
		t.Errorf("validate of a missing hostile file: %d lines, want 1: %q", n, errOut)
	}

}

// hostileFuzz fuzzes iut in both formats, reproducers written.
func hostileFuzz(t *testing.T, dir, iut string) {
	// fuzz against the same peer, both formats, reproducers written.
	for _, format := range []string{"text", "json"} {
		t.Run("fuzz/"+format, func(t *testing.T) {
			out, errOut, _ := hostileCLI(t, "fuzz", "--iut", iut, "--cases", "30", "-f", format, "--repro-dir", filepath.Join(dir, "repro"))
			checkOutput(t, "fuzz -f "+format, out)
			checkOutput(t, "fuzz -f "+format+" (stderr)", errOut)
			checkFormat(t, "fuzz -f "+format, format, out)
		})
	}

}

// checkFormat checks what each kind of format must be: JSON parses, XML
// parses (XML 1.0 carries what it holds), HTML has no peer markup.
func checkFormat(t *testing.T, what, format string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s: not UTF-8", what)
	}
	switch format {
	case "json", "record-json", "sarif":
		d := json.NewDecoder(bytes.NewReader(out))
		for {
			var v any
			if err := d.Decode(&v); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Errorf("%s: not JSON: %v", what, err)
				break
			}
		}
	case "junit":
		d := xml.NewDecoder(bytes.NewReader(out))
		for {
			if _, err := d.Token(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Errorf("%s: not XML: %v", what, err)
				break
			}
		}
	}
}
