package agh

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/aghcheck/aghcheck/internal/jsonx"
)

// The fast path's bodies (body.go asks the same questions of decoded
// values, and says what is wrong): each member a body rule looks at is read
// in place and held to its rule; any other member is only skipped.

// members reads the members of the object s has just opened, handing each
// name to read (which consumes its value); it stops at the first false.
func members(s *jsonx.Scanner, read func(name []byte) bool) bool {
	for i := 0; ; i++ {
		name, more := s.Member(i)
		if !more {
			return !s.Failed()
		}
		if !read(name) {
			return false
		}
	}
}

func (f *fast) readBody(s *jsonx.Scanner) bool {
	if !s.Object() {
		return false
	}
	switch f.kind {
	case KindGreet:
		return f.greet(s)
	case KindWhois:
		return f.whois(s)
	case KindSay:
		return f.say(s)
	case KindCapability:
		return f.capability(s)
	case KindReceipt:
		return f.receipt(s)
	}
	return f.trace(s)
}

// str reads a string member; nonBlank also wants it non-blank.
func str(s *jsonx.Scanner, nonBlank bool) bool {
	v, ok := s.String()
	return ok && (!nonBlank || len(bytes.TrimSpace(v)) > 0)
}

// typed reads a member that must be an object or an array, skipping its content.
func typed(s *jsonx.Scanner, open byte) bool { return s.Peek() == open && s.Skip() }

// strs reads an array of strings, calling each (when not nil) with every one.
func strs(s *jsonx.Scanner, each func(v []byte)) bool {
	if !s.Array() {
		return false
	}
	for i := 0; s.Element(i); i++ {
		v, ok := s.String()
		if !ok {
			return false
		}
		if each != nil {
			each(v)
		}
	}
	return !s.Failed()
}

func (f *fast) greet(s *jsonx.Scanner) bool {
	card := false
	return members(s, func(name []byte) bool {
		switch string(name) {
		case "peer_card":
			card = true
			return f.peerCard(s)
		case "summary":
			return str(s, false)
		}
		return s.Skip()
	}) && card
}

func (f *fast) peerCard(s *jsonx.Scanner) bool {
	if !s.Object() {
		return false
	}
	var arrays int
	ok := members(s, func(name []byte) bool {
		switch string(name) {
		case "peer_id":
			v, ok := s.String()
			f.cardPeerID = v
			return ok && validPeerID(v) // equal to from, checked with the envelope
		case "display_name":
			return str(s, false)
		case "ext":
			// The brief projection is judged against the capabilities
			// (CARD-CAPABILITIES-BRIEF): the full check's.
			return s.Object() && members(s, func(name []byte) bool {
				return string(name) != ExtCapabilitiesBrief && s.Skip()
			})
		}
		for _, a := range PeerCardArrays {
			if string(name) == a {
				arrays++
				return strs(s, nil)
			}
		}
		return s.Skip()
	})
	return ok && f.cardPeerID != nil && arrays == len(PeerCardArrays)
}

func (f *fast) whois(s *jsonx.Scanner) bool {
	var typ string
	card, query := false, false
	ok := members(s, func(name []byte) bool {
		switch string(name) {
		case "type":
			v, _ := s.String()
			switch string(v) {
			case "request":
				typ = "request"
			case "response":
				typ = "response"
			default:
				return false
			}
			return true
		case "peer_card":
			card = true
			return f.peerCard(s)
		case "query":
			query = true
			return str(s, false)
		}
		return s.Skip()
	})
	f.whoisResp = typ == "response"
	switch {
	case !ok:
		return false
	case typ == "request":
		return !card && query
	}
	return f.whoisResp && card
}

func (f *fast) say(s *jsonx.Scanner) bool {
	text := false
	return members(s, func(name []byte) bool {
		switch string(name) {
		case "text":
			text = true
			return str(s, true)
		case "intent":
			return str(s, false)
		case "artifacts":
			return typed(s, '[')
		}
		return s.Skip()
	}) && text
}

func (f *fast) receipt(s *jsonx.Scanner) bool {
	forID, reason := false, false
	need := ""
	ok := members(s, func(name []byte) bool {
		switch string(name) {
		case "for_id":
			v, ok := s.String()
			forID = len(v) > 0
			return ok
		case "status":
			v, _ := s.String()
			need = ReasonRequirement(string(v))
			return need != ""
		case "reason_code":
			v, _ := s.String()
			reason = true
			return IsReasonCode(string(v))
		case "detail":
			return str(s, false)
		}
		return s.Skip()
	})
	return ok && forID && need != "" && (reason && need != "absent" || !reason && need != "required")
}

func (f *fast) trace(s *jsonx.Scanner) bool {
	state := false
	return members(s, func(name []byte) bool {
		switch string(name) {
		case "state":
			v, _ := s.String()
			state = IsWorkState(string(v))
			return state
		case "message":
			return str(s, false)
		case "result":
			return typed(s, '{')
		case "artifact_refs":
			return typed(s, '[')
		}
		return s.Skip()
	}) && state
}

// capMember indexes capabilityDigestOrder; digest comes last.
const (
	capID = iota
	capSummary
	capOutcome
	capVersion
	capFirstList
	capRequirements = len(capabilityDigestOrder) - 1
	capDigest       = len(capabilityDigestOrder)
)

func (f *fast) capability(s *jsonx.Scanner) bool {
	var found bool
	ok := members(s, func(name []byte) bool {
		if string(name) != "capability" {
			return s.Skip()
		}
		found = true
		return f.capabilityDoc(s)
	})
	return ok && found
}

// capabilityDoc reads the capability document and checks its digest.
func (f *fast) capabilityDoc(s *jsonx.Scanner) bool {
	if !s.Object() {
		return false
	}
	var val [capDigest + 1][]byte // trimmed id, summary, outcome, version; digest as is
	var lists [capDigest][2]int   // each list's entries, f.list[from:to], trimmed
	var present uint16
	f.list = f.list[:0]
	ok := members(s, func(name []byte) bool {
		i := capDigest
		if string(name) != "digest" {
			i = slices.Index(capabilityDigestOrder[:], string(name))
		}
		if i < 0 {
			return s.Skip()
		}
		present |= 1 << i
		if i >= capFirstList && i != capDigest {
			from := len(f.list)
			good := strs(s, func(v []byte) { f.list = append(f.list, bytes.TrimSpace(v)) })
			lists[i] = [2]int{from, len(f.list)}
			return good
		}
		v, isStr := s.String()
		val[i] = v
		if i != capDigest {
			val[i] = bytes.TrimSpace(v)
		}
		// id, summary, outcome and digest must be non-blank; version only a string.
		return isStr && (i == capVersion || len(bytes.TrimSpace(v)) > 0)
	})
	const required = 1<<capID | 1<<capSummary | 1<<capOutcome | 1<<capDigest
	if !ok || present&required != required {
		return false
	}
	if v := val[capVersion]; len(v) > 0 && !IsSemver(v) {
		return false // CAP-VERSION-SEMVER, a warning
	}
	if present&(1<<capRequirements) != 0 {
		reqs := f.list[lists[capRequirements][0]:lists[capRequirements][1]]
		slices.SortFunc(reqs, bytes.Compare)
		for k, r := range reqs {
			if len(r) == 0 || k > 0 && bytes.Equal(r, reqs[k-1]) {
				return false // blank or repeated
			}
		}
	}
	if f.c.opts.Errata.SkipCapabilityDigest {
		return true
	}
	if !isHexDigest(val[capDigest]) {
		return false
	}
	// The canonical digest (CapabilityDigest), built from what was read.
	b := append(f.scratch[:0], '{')
	for i, name := range capabilityDigestOrder {
		var good bool
		switch {
		case i < capFirstList:
			if i == capVersion && len(val[i]) == 0 {
				continue
			}
			b, good = digestMember(b, name, val[i:i+1], false)
		default:
			entries := f.list[lists[i][0]:lists[i][1]]
			if i != capRequirements {
				entries = slices.DeleteFunc(entries, func(e []byte) bool { return len(e) == 0 })
			}
			if len(entries) == 0 {
				continue
			}
			b, good = digestMember(b, name, entries, true)
		}
		if !good {
			return false
		}
	}
	b = append(b, '}')
	f.scratch = b
	sum := sha256.Sum256(b)
	var want [64]byte
	hex.Encode(want[:], sum[:])
	return string(val[capDigest][len("sha256:"):]) == string(want[:])
}

// digestMember appends "name":value (value a string, or, as list, an array
// of them), the way encoding/json writes it; false for a string that
// encoding/json would escape, which the full check then digests.
func digestMember(b []byte, name string, vals [][]byte, list bool) ([]byte, bool) {
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(append(append(b, '"'), name...), `":`...)
	if list {
		b = append(b, '[')
	}
	for k, v := range vals {
		if k > 0 {
			b = append(b, ',')
		}
		if needsEscape(v) {
			return b, false
		}
		b = append(append(append(b, '"'), v...), '"')
	}
	if list {
		b = append(b, ']')
	}
	return b, true
}

// needsEscape reports whether encoding/json writes v other than verbatim:
// quotes, backslashes, control characters, the HTML characters <, > and &,
// and U+2028 and U+2029.
func needsEscape(v []byte) bool {
	for _, c := range v {
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return true
		}
	}
	return bytes.Contains(v, lineSep) || bytes.Contains(v, paraSep)
}

var lineSep, paraSep = []byte("\u2028"), []byte("\u2029")
