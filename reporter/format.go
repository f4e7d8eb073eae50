package reporter

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// Writer writes one result in one format. Items arrive in order as they are
// produced (a checked document, a finished scenario, a catalogue rule),
// never concurrently; Finish gets the result once, then flushes. Formats
// that need the whole result before writing anything (JUnit, the run's JSON)
// ignore the items and write at Finish.
type Writer[I, R any] interface {
	Item(I) error
	Finish(R) error
}

// Flusher is a Writer that can push out what it has written so far: the
// line-oriented formats, whose output is useful before Finish.
type Flusher interface {
	Flush() error
}

// Options shape every writer; each format reads the fields that concern it.
type Options struct {
	// Strict reports every finding as an error (--strict).
	Strict bool
	// Quiet prints only the findings of invalid documents and the summary.
	Quiet bool
	// Color enables ANSI colours in text output (the caller decides: a
	// terminal, and NO_COLOR unset).
	Color bool
	// Verbose lists every skipped scenario and every reason a claim was not
	// earned, and prints envelopes whole instead of clipped (run text).
	Verbose bool
	// Level, Scenarios and Selected announce a run before it starts: the
	// text writer prints them at once, while the IUT is still starting. An
	// empty Level leaves the announcement out. Selected is how many of the
	// Scenarios the level and --run select.
	Level     string
	Scenarios int
	Selected  int
	// Version is aghcheck's, for formats that name the tool (SARIF).
	Version string
	// Record fills in the self-certification record (run record-json and
	// record-yaml).
	Record RecordInput
	// Rules is the catalogue a SARIF log describes (default: the whole catalogue, catalogue.All()).
	Rules []*rules.Rule
}

// Format is one --format value of one command.
type Format[I, R any] struct {
	Name    string
	Aliases []string // other names accepted for it ("md" for markdown)
	New     func(w io.Writer, o Options) Writer[I, R]
	// JSON marks a machine-readable JSON format: its strings are only
	// redacted (its encoder escapes them, and diff reads them back as they
	// were), and what JSON leaves raw that a terminal would obey is escaped
	// on the way out.
	JSON bool
}

// Registry holds the formats of one command in the order --help lists
// them, the default first. Adding a format to a command is one entry in its
// registry.
type Registry[I, R any] struct {
	formats []Format[I, R]
}

func newRegistry[I, R any](formats ...Format[I, R]) *Registry[I, R] {
	seen := map[string]bool{}
	for i, f := range formats {
		formats[i].New = sanitized(f.New, f.JSON)
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if seen[n] {
				panic("reporter: format " + n + " registered twice")
			}
			seen[n] = true
		}
	}
	return &Registry[I, R]{formats: formats}
}

// Names lists the formats, the default first (aliases left out).
func (r *Registry[I, R]) Names() []string {
	out := make([]string, len(r.formats))
	for i, f := range r.formats {
		out[i] = f.Name
	}
	return out
}

// List is the names as --help and error messages show them.
func (r *Registry[I, R]) List() string { return strings.Join(r.Names(), ", ") }

// Get returns the format called name ("" is the default), or an error that
// lists the valid names.
func (r *Registry[I, R]) Get(name string) (Format[I, R], error) {
	if name == "" {
		return r.formats[0], nil
	}
	for _, f := range r.formats {
		if f.Name == name || slices.Contains(f.Aliases, name) {
			return f, nil
		}
	}
	return Format[I, R]{}, fmt.Errorf("unknown format %q (want one of %s)", name, r.List())
}

// New returns the writer of the format called name on w.
func (r *Registry[I, R]) New(name string, w io.Writer, o Options) (Writer[I, R], error) {
	f, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	return f.New(w, o), nil
}

// whole makes the constructor of a format that writes the whole result at
// Finish and has nothing to say about the items.
func whole[I, R any](write func(io.Writer, R) error) func(io.Writer, Options) Writer[I, R] {
	return func(w io.Writer, _ Options) Writer[I, R] {
		return finishOnly[I, R](func(r R) error { return write(w, r) })
	}
}

type finishOnly[I, R any] func(R) error

func (finishOnly[I, R]) Item(I) error       { return nil }
func (f finishOnly[I, R]) Finish(r R) error { return f(r) }

// sanitized wraps a format's constructor so that its writer only ever sees
// items and results whose strings went through the sanitiser: what the IUT
// or an input file controls (names, ids, reason codes, texts, stderr lines,
// file and member names) reaches no format raw, whichever fields a writer
// prints. Formats add their own escaping on top (Markdown cells, workflow
// command properties, XML and HTML by their encoders).
func sanitized[I, R any](mk func(io.Writer, Options) Writer[I, R], isJSON bool) func(io.Writer, Options) Writer[I, R] {
	return func(w io.Writer, o Options) Writer[I, R] {
		var c cleanWriter[I, R]
		if isJSON {
			c = cleanWriter[I, R]{w: mk(sanitize.NewJSONWriter(w), o), item: sanitize.CopyRedacted[I], result: sanitize.CopyRedacted[R]}
		} else {
			c = cleanWriter[I, R]{w: mk(w, o), item: sanitize.Copy[I], result: sanitize.Copy[R]}
		}
		if s, ok := c.w.(skipper[I]); ok {
			c.skips = s.Skips
		}
		if f, ok := c.w.(Flusher); ok {
			return cleanFlusher[I, R]{c, f}
		}
		return c
	}
}

// The rule catalogue is aghcheck's own text, and writers group findings by
// the identity of their rule: it is shared, not copied.
var ruleType = reflect.TypeOf((*rules.Rule)(nil))

// keepRules is the keep list of every copy, made once: a variadic list
// made at each call would be allocated for every document written.
var keepRules = []reflect.Type{ruleType}

// skipper is a Writer that writes nothing at all for some items (quiet
// text: a valid document), which then need no copy: in a quiet run of
// aghcheck validate that is nearly every document.
type skipper[I any] interface {
	// Skips reports whether Item(it) would write nothing and return nil.
	Skips(it I) bool
}

type cleanWriter[I, R any] struct {
	w      Writer[I, R]
	item   func(I, ...reflect.Type) I
	result func(R, ...reflect.Type) R
	skips  func(I) bool // the writer's Skips, if it has one
}

func (c cleanWriter[I, R]) Item(it I) error {
	if c.skips != nil && c.skips(it) {
		return nil
	}
	return c.w.Item(c.item(it, keepRules...))
}

func (c cleanWriter[I, R]) Finish(r R) error { return c.w.Finish(c.result(r, keepRules...)) }

type cleanFlusher[I, R any] struct {
	cleanWriter[I, R]
	f Flusher
}

func (c cleanFlusher[I, R]) Flush() error { return c.f.Flush() }
