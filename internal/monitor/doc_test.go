package monitor

import (
	"os"
	"strings"
	"testing"
)

// TestDocShowsTheTestedConfig: the broker configuration docs/monitor.md
// gives for sharded monitors is, byte for byte, the one the cluster test
// loads (testdata), each in a code block of its own.
func TestDocShowsTheTestedConfig(t *testing.T) {
	doc, err := os.ReadFile("../../docs/monitor.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{shardConf, shardStream} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```\n"+string(b)+"```\n") && !strings.Contains(string(doc), "```json\n"+string(b)+"```\n") {
			t.Errorf("docs/monitor.md does not show %s as a code block of its own", f)
		}
	}
}
