package scenario

import (
	"errors"
	"github.com/aghcheck/aghcheck/internal/requirements"
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

// A reading that changes scenarios only through forms of their own has
// at least one in the built-in suites: else naming it changes nothing.
func TestFormReadingsHaveForms(t *testing.T) {
	builtin, err := LoadSuites(suites.FS(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range requirements.Readings() {
		if !r.Forms {
			continue
		}
		found := false
		for _, sc := range builtin {
			found = found || sc.Readings[r.Name] != nil
		}
		if !found {
			t.Errorf("reading %s has no scenario form in the built-in suites", r.Name)
		}
	}
}
