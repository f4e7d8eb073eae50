// Package rules holds the rule and finding model every checker reports with,
// and the Catalogue type that checks a set of rules. A rule is declared once,
// with a stable id, by the package that checks it; package catalogue builds
// the one catalogue from those packages' lists, so the validator, the live
// harness, the reports and docs/rules.md all speak of the same thing.
package rules

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Severity grades a finding. Error is a broken MUST, Warning a SHOULD not
// met. Note is a MAY: a clause of the pages that permits, so no checker
// ever reports it; it is in the catalogue so the clause inventory (package
// coverage) and scenarios can name it.
type Severity uint8

const (
	Error Severity = iota + 1
	Warning
	Note
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Note:
		return "note"
	}
	return "unknown"
}

// Level is the requirement keyword (RFC 2119) behind the severity.
func (s Severity) Level() string {
	switch s {
	case Warning:
		return "SHOULD"
	case Note:
		return "MAY"
	}
	return "MUST"
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Rule is one requirement that a document or peer can break.
type Rule struct {
	ID       string   // stable identifier, e.g. ENV-CHANNEL-GRAMMAR
	Profile  string   // which format or profile the rule belongs to: input, agh, agh-trust, olympus, redkey-wire, redkey-card
	Severity Severity // Error for MUST, Warning for SHOULD, Note for MAY
	Clause   string   // the requirement in one sentence, in our own words
	Source   string   // where the requirement is stated (document and section)
	// Basis is the sentence the level comes from: page, section and the
	// modal sentence (quoted when it is short, else said in our words).
	// Only the sentences that bind a peer count: one whose subject is the
	// test runner ("A test runner MUST distinguish ...") binds aghcheck,
	// and docs/harness.md says how aghcheck keeps it.
	Basis string
	// Reason is the AGH receipt reason_code a receiver uses when it refuses
	// a message for breaking this rule ("" when the rule is not a refusal
	// reason, e.g. SHOULD-level advice).
	Reason string
	// Tolerable, when set, is why a receiver may take a message that
	// breaks this rule: the sentence binds the sender, and the documents
	// leave the receiver free (RFC 8259 lets a parser ignore a byte order
	// mark and set its own limits). Refusing it, with Reason, is right
	// too; taking it is no fault of the receiver.
	Tolerable string
}

// Finding is one broken rule at one place in one document.
type Finding struct {
	Rule     *Rule
	Pointer  string // RFC 6901 JSON pointer into the document ("" is the whole document)
	Expected string
	Found    string
	Message  string // optional extra detail for people
	// Reason, when set, is the receipt reason_code of this finding in
	// place of its rule's: a protocol or kind of the wrong JSON type names
	// no profile or kind, so it is malformed, not unsupported_*.
	Reason string
}

// RefusalCode is the receipt reason_code a receiver refusing for f uses:
// f.Reason, else its rule's.
func (f Finding) RefusalCode() string {
	if f.Reason != "" {
		return f.Reason
	}
	return f.Rule.Reason
}

// Severity is the rule's severity, raised to Error under strict mode.
func (f Finding) Severity(strict bool) Severity {
	if strict {
		return Error
	}
	return f.Rule.Severity
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", f.Rule.Severity, f.Rule.ID)
	if f.Pointer != "" {
		fmt.Fprintf(&b, " at %s", f.Pointer)
	}
	if f.Message != "" {
		fmt.Fprintf(&b, ": %s", f.Message)
	}
	if f.Expected != "" || f.Found != "" {
		fmt.Fprintf(&b, " (expected %s, found %s)", f.Expected, f.Found)
	}
	return b.String()
}

// Detail is the message part of a finding as the reports print it after
// its rule id: "at /ptr: message (expected X, found Y)".
func (f Finding) Detail() string {
	var b strings.Builder
	if f.Pointer != "" {
		b.WriteString("at ")
		b.WriteString(f.Pointer)
	}
	if f.Message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(f.Message)
	}
	if f.Expected != "" || f.Found != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		// Not fmt: a report writes this for every finding.
		for _, s := range [...]string{"(expected ", orNone(f.Expected), ", found ", orNone(f.Found), ")"} {
			b.WriteString(s)
		}
	}
	if b.Len() == 0 {
		b.WriteString(f.Rule.Clause)
	}
	// One finding, one line: a newline in a message would break the
	// file:line: form that editors and CI parse.
	return strings.ReplaceAll(b.String(), "\n", " ")
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// Profiles lists the profiles of the rules in list, sorted.
func Profiles(list []*Rule) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range list {
		if !seen[r.Profile] {
			seen[r.Profile] = true
			out = append(out, r.Profile)
		}
	}
	sort.Strings(out)
	return out
}

// HasErrors reports whether any finding has error severity (every finding
// under strict): whether a document with these findings is invalid.
func HasErrors(fs []Finding, strict bool) bool {
	for _, f := range fs {
		if f.Severity(strict) == Error {
			return true
		}
	}
	return false
}

// New makes a finding for r at pointer.
func New(r *Rule, pointer, expected, found string) Finding {
	return Finding{Rule: r, Pointer: pointer, Expected: expected, Found: found}
}

// Declarer declares the rules of one profile. Every package states a rule
// the same way, as a keyed Rule literal holding what is particular to it;
// the declarer fills in the rest and keeps the rule in its list, which the
// package hands to the catalogue (package catalogue). The declarer keeps the
// list, rather than each package naming its rules a second time, so that a
// declared rule cannot be left out of the catalogue by a forgotten line.
type Declarer struct {
	Profile string
	// Reason is the receipt reason_code of a MUST rule that names none
	// ("" leaves such rules without one).
	Reason string

	declared []*Rule
}

// Declare completes r with the declarer's profile, severity Error unless r
// sets one, and d.Reason for an Error rule without a reason; it adds the
// rule to d's list and returns it. It checks nothing: NewCatalogue does, so
// a malformed rule is refused in one place whoever declared it.
func (d *Declarer) Declare(r Rule) *Rule {
	r.Profile = d.Profile
	if r.Severity == 0 {
		r.Severity = Error
	}
	if r.Reason == "" && r.Severity == Error {
		r.Reason = d.Reason
	}
	d.declared = append(d.declared, &r)
	return &r
}

// Rules returns the rules d declared, in the order it declared them.
func (d *Declarer) Rules() []*Rule { return append([]*Rule(nil), d.declared...) }

// Catalogue is a checked set of rules: every rule complete, every id once.
// It is built once from explicit lists (see package catalogue) and only read
// afterwards, so it needs no lock.
type Catalogue struct {
	byID    map[string]*Rule
	ordered []*Rule // by profile, then id
}

// NewCatalogue builds a catalogue from the given lists. It refuses a rule
// without an id, profile, clause or known severity, and an id declared
// twice (within a list or across lists): either would make a report or
// docs/rules.md speak of a rule ambiguously.
func NewCatalogue(lists ...[]*Rule) (*Catalogue, error) {
	c := &Catalogue{byID: map[string]*Rule{}}
	for _, list := range lists {
		for _, r := range list {
			if r == nil || r.ID == "" || r.Profile == "" || r.Clause == "" || (r.Severity != Error && r.Severity != Warning && r.Severity != Note) {
				return nil, fmt.Errorf("rules: incomplete rule %+v", r)
			}
			if prev, dup := c.byID[r.ID]; dup {
				return nil, fmt.Errorf("rules: duplicate rule id %s (profiles %s and %s)", r.ID, prev.Profile, r.Profile)
			}
			c.byID[r.ID] = r
			c.ordered = append(c.ordered, r)
		}
	}
	sort.SliceStable(c.ordered, func(i, j int) bool {
		if c.ordered[i].Profile != c.ordered[j].Profile {
			return c.ordered[i].Profile < c.ordered[j].Profile
		}
		return c.ordered[i].ID < c.ordered[j].ID
	})
	return c, nil
}

// Lookup returns the rule with the given id.
func (c *Catalogue) Lookup(id string) (*Rule, bool) {
	r, ok := c.byID[id]
	return r, ok
}

// All returns every rule ordered by profile, then id; the slice is the
// caller's to keep.
func (c *Catalogue) All() []*Rule { return append([]*Rule(nil), c.ordered...) }

// Clip shortens a value echoed in a finding, which people read: when s is
// longer than keep bytes plus the ellipsis, it keeps at most keep bytes of
// whole runes and marks the cut with ellipsis.
func Clip(s string, keep int, ellipsis string) string {
	if len(s) <= keep+len(ellipsis) {
		return s
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + ellipsis
}

// Pointer builds an RFC 6901 JSON pointer from reference tokens.
func Pointer(tokens ...string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
		}
		b.WriteString(t)
	}
	return b.String()
}
