package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A baseline that cannot be used is a usage error (exit 2) with one line,
// before anything starts (an id naming nothing is not: it is retired, and
// stale in the run); the scripts in testdata/script/run_baseline.txtar
// cover the runs themselves.
func TestBaselineUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, src, want string }{
		{"malformed.yaml", "entries: [{id: nats.large-envelope, outcome: fail}]", "has no reason"},
		{"notyaml.yaml", "entries: [", "malformed baseline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, "", "run", "--baseline", path)
			if code != exitUsageErr || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, errOut, tt.want)
			}
		})
	}
	if code, _, _ := runCLI(t, "", "run", "--baseline", filepath.Join(dir, "missing.yaml")); code != exitUsageErr {
		t.Errorf("missing file: exit %d", code)
	}
}
