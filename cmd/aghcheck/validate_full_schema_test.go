package main

import "testing"

// --full-schema runs the JSON Schema validator on every envelope; the
// verdicts and findings must be exactly those of the default, which never
// runs it (agh's TestFullSchemaSameFindings does the same over the mutants).
func TestValidateFullSchemaSameVerdicts(t *testing.T) {
	args := []string{"validate", "--format", "json", "../../fixtures/agh/valid", "../../fixtures/agh/invalid", "../../fixtures/agh/seed"}
	code, def, _ := runCLI(t, "", args...)
	fcode, full, _ := runCLI(t, "", append(args, "--full-schema")...)
	if code != exitInvalid || fcode != code {
		t.Fatalf("exit codes %d and %d, want %d for both", code, fcode, exitInvalid)
	}
	if def != full {
		t.Fatalf("--full-schema changed the report:\n--- default\n%s\n--- full\n%s", def, full)
	}
}
