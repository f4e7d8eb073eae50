package agh

import (
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Hand-written matchers for the grammars the documents define. They are the
// single definition of each grammar: the native rules call them and the
// schema compiler's regexp engine maps the same patterns onto them, so the
// schema and the rules can never disagree (and neither pays for regexp).

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
func isLowerHex(c byte) bool   { return c >= 'a' && c <= 'f' || c >= '0' && c <= '9' }

// text is what the matchers read: a decoded string, or the bytes of one
// (the fast path reads members in place).
type text interface{ ~string | ~[]byte }

// ValidChannel reports whether s matches [a-z0-9][a-z0-9_-]{0,63}.
func ValidChannel(s string) bool { return validChannel(s) }

func validChannel[T text](s T) bool {
	if len(s) < 1 || len(s) > 64 || !isLowerAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// ValidPeerID reports whether s is a v0 Peer ID: [a-z0-9][a-z0-9._-]{0,127}.
func ValidPeerID(s string) bool { return validPeerID(s) }

func validPeerID[T text](s T) bool {
	if len(s) < 1 || len(s) > 128 || !isLowerAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// ValidDirectID reports whether s matches ^direct_[a-f0-9]{32}$.
func ValidDirectID(s string) bool { return validDirectID(s) }

func validDirectID[T text](s T) bool {
	if len(s) != 7+32 || string(s[:7]) != "direct_" {
		return false
	}
	for i := 7; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

// ValidWorkID reports whether s matches the seed grammar ^work_[a-zA-Z0-9_-]{1,64}$.
func ValidWorkID(s string) bool { return validWorkID(s) }

func validWorkID[T text](s T) bool {
	if len(s) < 6 || len(s) > 5+64 || string(s[:5]) != "work_" {
		return false
	}
	for i := 5; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidReferenceWorkID is the reference runtime's work_id reading (erratum
// 5): non-blank, at most 128 bytes, no '/', '\' or control characters.
func ValidReferenceWorkID(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 128 {
		return false
	}
	for _, r := range t {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// ValidReferenceThreadID is the reference runtime's thread_id grammar
// (erratum 6): ^thread_[a-z0-9][a-z0-9_-]{2,95}$.
func ValidReferenceThreadID(s string) bool { return validReferenceThreadID(s) }

func validReferenceThreadID[T text](s T) bool {
	if len(s) < 7+3 || len(s) > 7+96 || string(s[:7]) != "thread_" || !isLowerAlnum(s[7]) {
		return false
	}
	for i := 8; i < len(s); i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// validSubjectToken reports whether s can be one NATS subject token.
func validSubjectToken[T text](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' || c == '*' || c == '>' || c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// notBlank matches the "\S" pattern: some non-whitespace character.
func notBlank(s string) bool { return strings.TrimSpace(s) != "" }

func isHexDigest[T text](s T) bool {
	if len(s) != 7+64 || string(s[:7]) != "sha256:" {
		return false
	}
	for i := 7; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

// Pattern sources as they appear in the schemas.
const (
	patChannel         = `^[a-z0-9][a-z0-9_-]{0,63}$`
	patPeerID          = `^[a-z0-9][a-z0-9._-]{0,127}$`
	patDirectID        = `^direct_[a-f0-9]{32}$`
	patWorkID          = `^work_[a-zA-Z0-9_-]{1,64}$`
	patThreadReference = `^thread_[a-z0-9][a-z0-9_-]{2,95}$`
	patNotBlank        = `\S`
	patDigest          = `^sha256:[a-f0-9]{64}$`
	// patWorkReference is not a real regexp: it names the reference work_id
	// reading so a schema variant can select it (see schemaDoc).
	patWorkReference = `^aghcheck:reference-work-id$`
)

var knownPatterns = map[string]func(string) bool{
	patChannel: ValidChannel,
	// The trust profile extends the Peer ID grammar with verified handles
	// (nickname@fingerprint) in from, to and peer_id.
	patPeerID:          isPeer,
	patDirectID:        ValidDirectID,
	patWorkID:          ValidWorkID,
	patThreadReference: ValidReferenceThreadID,
	patNotBlank:        notBlank,
	patDigest:          isHexDigest[string],
	patWorkReference:   ValidReferenceWorkID,
}

type matcher struct {
	src string
	fn  func(string) bool
}

func (m matcher) MatchString(s string) bool { return m.fn(s) }
func (m matcher) String() string            { return m.src }

// regexpEngine serves the known patterns from the hand-written matchers and
// compiles anything else with Go's regexp (RE2; the schemas use only
// patterns both dialects read the same way).
func regexpEngine(src string) (jsonschema.Regexp, error) {
	if fn, ok := knownPatterns[src]; ok {
		return matcher{src, fn}, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	return re, nil
}

// IsPeer reports whether s may name a peer in from, to or peer_id: a v0 Peer
// ID or, under the trust profile, a nickname@fingerprint handle.
func IsPeer(s string) bool { return isPeer(s) }

// ValidWorkspaceID reports whether a workspace id is non-empty and fits in one
// NATS subject token (no '.', '*', '>', whitespace or control characters).
func ValidWorkspaceID(s string) bool { return validSubjectToken(s) }
