package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCLI runs the whole CLI in-process exactly as main does (same exit-code
// mapping, same one-line errors) with stdin given and stdout and stderr
// captured.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}
