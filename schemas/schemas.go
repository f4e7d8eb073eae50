// Package schemas holds every JSON Schema aghcheck enforces (the AGH Network
// v0 envelope from the seed, the per-kind bodies written for aghcheck, and the
// other formats' schemas), embedded so the binary needs no files at run time.
package schemas

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed *.json
var files embed.FS

// Read returns the bytes of one embedded schema, e.g. "agh-envelope.schema.json".
func Read(name string) ([]byte, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("schemas: %w", err)
	}
	return b, nil
}

// Names lists every embedded schema file, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// FS exposes the embedded files, e.g. for a compiler's loader.
func FS() fs.FS { return files }
