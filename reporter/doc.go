// Package reporter writes the results of aghcheck in the formats people and
// CI read. Five results, one Writer interface, one Registry per command:
//
//   - Validate: the documents of `aghcheck validate` (validate.Document, then
//     validate.Summary) as text, JSON, JUnit XML, GitHub annotations or
//     SARIF;
//   - Run: a live run (each report.ScenarioResult as it ends, then the
//     report.Report) as text, JSON, JUnit XML, one self-contained HTML
//     page, GitHub annotations or the self-certification record (JSON or
//     YAML);
//   - Rules: the rule catalogue of `aghcheck rules` as text, Markdown or JSON;
//   - Diff and Matrix: `aghcheck diff` of two runs, and of any number of
//     runs side by side (--matrix), as text, JSON or Markdown.
//
// The command line only picks a name from a registry; a new format is one
// entry in the registry of its command (reporter.go).
//
// # Public names
//
// The five registries above, each a Registry whose Get returns a Format
// and whose New returns a Writer (a Flusher too when it can push out what
// it has written so far), and the Options every writer takes, with the
// RecordInput of the self-certification record. For aghcheck run:
// RecordFormat (the record's format from its file name) and VerdictLine
// (the line a run whose report goes to files leaves on standard error).
// For aghtest: Sections, the run's text report cut into the sections a
// front end reports one by one (TextSections). Nothing else is exported:
// TestPublicNames fails for an exported name this list does not give.
package reporter
