// Package validate turns inputs (files, directories, globs, stdin) into a
// stream of documents, applies the right format profile to each, and collects
// results for the reporters.
package validate

import "github.com/aghcheck/aghcheck/internal/rules"

// Profile checks one document format (AGH Network v0, Olympus, RedKey, ...).
// Profiles are built by cmd/ with their own options and handed to a Validator.
type Profile interface {
	// Name is the --profile value, e.g. "agh".
	Name() string
	// Detect reports whether a decoded top-level object has this format's shape.
	Detect(doc map[string]any) bool
	// Check returns every finding for one decoded document. raw is the exact
	// bytes the document was decoded from (signatures and size rules need
	// them); v is the decoded value: map[string]any, []any, string, bool,
	// nil and json.Number. Check must be safe for concurrent use.
	Check(raw []byte, v any) []rules.Finding
}
