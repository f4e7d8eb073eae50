package iut

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"regexp"
	"strings"
)

// The IUT is started directly, not through a shell: a command line that
// leans on a shell (an environment assignment, a pipe, a redirection, a
// variable) would start the wrong program or hand it the shell's syntax as
// arguments. CheckLine and Runnable catch that, and a program that is not
// there, before anything starts, in one line that says how to fix it.

var (
	assignment  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	variable    = regexp.MustCompile("\\$[A-Za-z_{(]|`")
	redirection = regexp.MustCompile(`^([0-9]*[<>]|&>)`)
)

// operators are the shell's control operators, as whole words.
var operators = map[string]string{
	"|": "a pipe", "|&": "a pipe", "||": "a list", "&&": "a list", ";": "a list", "&": "a background job",
}

// CheckLine refuses a --iut line (split into argv) that only a shell would
// run as meant, naming the word and how to wrap the line.
func CheckLine(line string, argv []string) error {
	if len(argv) == 0 {
		return errors.New("empty IUT command")
	}
	line = strings.TrimSpace(line)
	if assignment.MatchString(argv[0]) {
		return fmt.Errorf("%q is an environment assignment, but the IUT command is started directly, not by a shell; use %s (or set it in aghcheck's environment)", argv[0], quoteLine("env "+line))
	}
	for _, a := range argv[1:] {
		if what := shellWord(a); what != "" {
			return fmt.Errorf("%q is shell syntax (%s), but the IUT command is started directly, not by a shell; wrap it: %s", a, what, quoteLine("sh -c "+Join([]string{line})))
		}
	}
	return nil
}

// shellWord says what shell syntax a word is, or "".
func shellWord(a string) string {
	switch {
	case operators[a] != "":
		return operators[a]
	case redirection.MatchString(a):
		return "a redirection"
	case variable.MatchString(a):
		return "a variable or command substitution"
	}
	return ""
}

// quoteLine renders a suggested --iut value as the user would type it:
// in double quotes unless they would change it.
func quoteLine(s string) string {
	if !strings.ContainsAny(s, "\"\\$`") {
		return `--iut "` + s + `"`
	}
	return "--iut " + Join([]string{s})
}

// Runnable reports why prog cannot be started, in words.
func Runnable(prog string) error {
	_, err := exec.LookPath(prog)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, exec.ErrNotFound) && !strings.Contains(prog, "/"):
		return fmt.Errorf("%q is not a command on PATH", prog)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("%q: no such file", prog)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%q is not executable", prog)
	}
	return fmt.Errorf("%q cannot be started: %w", prog, err)
}
