package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aghcheck/aghcheck/suites"
)

func TestLoadSuites(t *testing.T) {
	builtin, err := LoadSuites(suites.FS(), nil)
	if err != nil || len(builtin) == 0 || !strings.HasPrefix(builtin[0].File, "embedded:") {
		t.Fatalf("built-in suites: %d scenarios, %v", len(builtin), err)
	}
	empty := t.TempDir()
	if _, err := LoadSuites(nil, []string{empty}); err == nil || err.Error() != "no scenarios to play" {
		t.Errorf("no scenario at all: %v", err)
	}
	file := filepath.Join(empty, "x.yaml")
	if err := os.WriteFile(file, []byte("scenarios: [}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSuites(suites.FS(), []string{empty}); err == nil || !strings.Contains(err.Error(), "x.yaml") {
		t.Errorf("a broken file: %v", err)
	}
	if _, err := LoadSuites(suites.FS(), []string{file}); !errors.Is(err, ErrNotDir) || !strings.HasPrefix(err.Error(), file+": ") {
		t.Errorf("a file for a directory: %v", err)
	}
}
