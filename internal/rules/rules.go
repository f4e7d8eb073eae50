// Package rules holds the one catalogue of every check aghcheck performs and
// the finding model every checker reports with. A rule lives here once, with a
// stable id, so the validator, the live harness, the reports and docs/rules.md
// all speak of the same thing.
package rules

import (
	"fmt"
	"sort"
	"strings"
	"sync"
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

var (
	mu      sync.RWMutex
	byID    = map[string]*Rule{}
	ordered []*Rule
)

// Register adds complete rules to the catalogue; checker packages declare
// theirs through a Declarer, in package-level var initialisers, so that
// importing them is enough. It panics on a duplicate or malformed rule: that
// is a programming error caught by any test.
func Register(rs ...*Rule) {
	mu.Lock()
	defer mu.Unlock()
	for _, r := range rs {
		if r.ID == "" || r.Profile == "" || r.Clause == "" || (r.Severity != Error && r.Severity != Warning && r.Severity != Note) {
			panic(fmt.Sprintf("rules: incomplete rule %+v", *r))
		}
		if _, dup := byID[r.ID]; dup {
			panic("rules: duplicate rule id " + r.ID)
		}
		byID[r.ID] = r
		ordered = append(ordered, r)
	}
}

// Declarer declares the rules of one profile. Every package states a rule
// the same way, as a keyed Rule literal holding what is particular to it;
// the declarer fills in the rest and registers it, so a rule is in the
// catalogue the moment it exists.
type Declarer struct {
	Profile string
	// Reason is the receipt reason_code of a MUST rule that names none
	// ("" leaves such rules without one).
	Reason string
}

// Declare completes r with the declarer's profile, severity Error unless r
// sets one, and d.Reason for an Error rule without a reason; it registers
// the rule and returns it.
func (d Declarer) Declare(r Rule) *Rule {
	r.Profile = d.Profile
	if r.Severity == 0 {
		r.Severity = Error
	}
	if r.Reason == "" && r.Severity == Error {
		r.Reason = d.Reason
	}
	Register(&r)
	return &r
}

// Lookup returns the rule with the given id.
func Lookup(id string) (*Rule, bool) {
	mu.RLock()
	defer mu.RUnlock()
	r, ok := byID[id]
	return r, ok
}

// All returns every registered rule ordered by profile, then id.
func All() []*Rule {
	mu.RLock()
	out := append([]*Rule(nil), ordered...)
	mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Profile != out[j].Profile {
			return out[i].Profile < out[j].Profile
		}
		return out[i].ID < out[j].ID
	})
	return out
}

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
