// Command aghcheck validates AGH Network v0 envelopes (and two other agent
// message formats) and certifies live peers against the protocol.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// Exit codes are part of the CLI contract: 0 all good, 1 the thing checked is
// not conformant, 2 the check itself could not be done (usage, I/O, harness).
const (
	exitOK       = 0
	exitInvalid  = 1
	exitUsageErr = 2
)

// exitError carries an exit code out of a command without printing twice.
type exitError struct {
	code int
	err  error // nil when the command already reported everything
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI with the given streams and maps errors to exit codes.
// Tests call it directly, in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			printErr(stderr, ee.err)
		}
		return ee.code
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command") {
		// cobra's words, and where to find the commands there are.
		first, rest, _ := strings.Cut(msg, "\n")
		err = errors.New(strings.TrimRight(first+" (see aghcheck --help)\n"+rest, "\n"))
	}
	printErr(stderr, err)
	return exitUsageErr
}

// printErr prints err as lines "aghcheck: ...": one per error joined in it
// (errors.Join), each on one line with what an input controls (a file
// name, a peer's text) escaped, so no file name can add a line or a
// workflow command.
func printErr(w io.Writer, err error) {
	for _, line := range errorLines(err) {
		fmt.Fprintln(w, "aghcheck:", line)
	}
}

func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, errorLines(e)...)
		}
		return out
	}
	return []string{sanitize.Text(err.Error())}
}
