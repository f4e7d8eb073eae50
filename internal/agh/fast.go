package agh

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The fast path settles the common case, a clean envelope, in one pass over
// its bytes: a jsonx.Scanner reads it in place (strictly: it refuses
// whatever jsonx.Decode would report) and the native rules are asked as
// questions about the bytes, with nothing decoded into maps. It answers
// only "clean" or "don't know": an envelope it is not sure about (any rule
// that might fire, a warning, a proof to verify, a member name with an
// escape) goes to the full check, which alone says what is wrong. So the
// findings are those of the full check by construction, provided the fast
// path never calls clean what the full check would report; TestFastPath*
// and FuzzFastPath hold it to exactly that.

// CheckClean reports whether the full check (CheckBytes) would find nothing
// at all in raw, warnings included, and if so the trust state it would give
// ("unverified": an envelope with a proof is never settled here). ok false
// means only that the full check has to decide.
func (c *Checker) CheckClean(raw []byte) (trustState string, ok bool) {
	if !c.fast || len(raw) > MaxEnvelopeSize {
		return "", false
	}
	f := fastPool.Get().(*fast)
	f.c = c
	ok = f.check(raw)
	f.c = nil
	fastPool.Put(f)
	if !ok {
		return "", false
	}
	return string(trust.Unverified), true
}

// fastOptions reports whether the fast path can settle envelopes under o:
// not when every envelope must meet the schema validator or carry a
// verified proof, nor when secrets are hunted in every member.
func fastOptions(o Options) bool {
	return !o.FullSchema && !o.RequireVerified && !o.Errata.RejectSecretKeys
}

var fastPool = sync.Pool{New: func() any { return new(fast) }}

// fast is the state of one fast check: the scanners, and what was read.
type fast struct {
	c             *Checker
	s, sub        jsonx.Scanner
	present, null uint32          // bit per field: member present, and present as null
	str           [nFields][]byte // the string members
	ts, expires   int64
	kind          string // one of Kinds once read
	body          []byte // the body read before the kind was known
	bodyRead      bool
	cardPeerID    []byte // peer_card.peer_id, to compare with from
	whoisResp     bool   // body.type is "response"
	scratch       []byte
	list          [][]byte
}

func bit(i field) uint32 { return 1 << i }

// set reports whether member i is present and not null.
func (f *fast) set(i field) bool { return f.present&^f.null&bit(i) != 0 }

// requiredMembers are the members every envelope carries.
var requiredMembers = func() (m uint32) {
	for i, fd := range fields {
		if fd.required {
			m |= bit(field(i))
		}
	}
	return m
}()

func (f *fast) check(raw []byte) bool {
	f.present, f.null, f.kind, f.body, f.bodyRead, f.cardPeerID, f.whoisResp = 0, 0, "", nil, false, nil, false
	s := &f.s
	s.Reset(raw)
	var opened bool
	if f.c.opts.Errata.AllowUnknownFields {
		opened = s.Object() // names it does not know may repeat too
	} else {
		opened = s.ObjectOwnNames() // member refuses a name it has seen
	}
	if !opened || !members(s, f.member) {
		return false
	}
	if !s.End() || f.present&requiredMembers != requiredMembers {
		return false
	}
	if !f.bodyRead {
		f.sub.Reset(f.body)
		if !f.readBody(&f.sub) || !f.sub.End() {
			return false
		}
	}
	return f.envelope()
}

// member reads one top-level member and checks what needs no other member.
func (f *fast) member(name []byte) bool {
	s, e := &f.s, f.c.opts.Errata
	i, known := lookupField(name)
	if !known {
		// interaction_id and, by default, any unknown member are findings.
		return e.AllowUnknownFields && string(name) != "interaction_id" && s.Skip()
	}
	if f.present&bit(i) != 0 {
		return false // INPUT-DUPLICATE-KEY
	}
	f.present |= bit(i)
	if s.Null() {
		f.null |= bit(i)
		switch i {
		case fSurface, fThreadID, fDirectID, fTo, fWorkID, fProof:
			return true
		case fReplyTo, fTraceID, fCausationID, fExpiresAt:
			return e.NullAsAbsent
		}
		return false
	}
	switch i {
	case fTS, fExpiresAt:
		n, ok := s.Uint()
		if i == fTS {
			f.ts = n
		} else {
			f.expires = n
		}
		return ok
	case fBody:
		if f.kind != "" {
			f.bodyRead = true
			return f.readBody(s)
		}
		from := s.Pos()
		if !s.Skip() {
			return false
		}
		f.body = s.Span(from, s.Pos())
		return true
	case fExt:
		return f.ext()
	case fProof:
		return false // an object to verify, or ENV-PROOF-TYPE
	}
	v, ok := s.String()
	if !ok {
		return false
	}
	f.str[i] = v
	switch i {
	case fProtocol:
		return string(v) == Protocol
	case fKind:
		f.kind = knownKind(v)
		return f.kind != ""
	case fWorkspaceID:
		return validSubjectToken(v) // non-empty too
	case fChannel:
		return validChannel(v)
	case fFrom:
		return validPeerID(v) // a handle is the trust profile's to judge
	case fTo:
		return validPeerID(v) || (bytes.IndexByte(v, '@') > 0 && isPeer(string(v)))
	case fSurface:
		return string(v) == SurfaceThread || string(v) == SurfaceDirect
	case fThreadID:
		if e.ReferenceThreadID {
			return validReferenceThreadID(v)
		}
	case fDirectID:
		return validDirectID(v)
	case fWorkID:
		if e.ReferenceWorkID {
			return ValidReferenceWorkID(string(v))
		}
		return validWorkID(v)
	}
	return len(v) > 0 // id, thread_id, reply_to, trace_id, causation_id
}

// knownKind returns the kind v names, "" for anything else.
func knownKind(v []byte) string {
	for _, k := range Kinds {
		if string(v) == k {
			return k
		}
	}
	return ""
}

// ext reads the ext object: every key namespaced (else ENV-EXT-NAMESPACE).
func (f *fast) ext() bool {
	s := &f.s
	return s.Object() && members(s, func(name []byte) bool {
		j := bytes.IndexByte(name, '.')
		// The capability catalog is judged against the card beside it
		// (WHOIS-CATALOG-*): the full check's.
		return j > 0 && j < len(name)-1 && string(name) != ExtCapabilityCatalog && s.Skip()
	})
}

// envelope checks what depends on more than one member: the conversation
// surface of the kind, the direct-room derivation, freshness.
func (f *fast) envelope() bool {
	o := f.c.opts
	switch f.kind {
	case KindGreet, KindWhois:
		if f.set(fSurface) || f.set(fThreadID) || f.set(fDirectID) || f.set(fWorkID) {
			return false
		}
		if f.kind == KindGreet && f.set(fTo) {
			return false
		}
		if f.kind == KindWhois && f.whoisResp && !f.set(fReplyTo) {
			return false
		}
	default:
		own, other := fThreadID, fDirectID
		switch {
		case !f.set(fSurface):
			return false
		case string(f.str[fSurface]) == SurfaceDirect:
			own, other = fDirectID, fThreadID
		}
		if !f.set(own) || f.set(other) {
			return false
		}
		needWork := f.kind == KindReceipt || f.kind == KindTrace || (f.kind == KindCapability && o.Errata.CapabilityRequiresWorkID)
		if needWork && !f.set(fWorkID) {
			return false
		}
		if (f.kind == KindReceipt || f.kind == KindTrace) && !f.set(fTo) {
			return false
		}
		if own == fDirectID && !o.Errata.SkipDirectIDDerivation && f.set(fTo) && !f.directRoom() {
			return false
		}
	}
	if f.cardPeerID != nil && !bytes.Equal(f.cardPeerID, f.str[fFrom]) {
		return false
	}
	if o.Now != 0 {
		exp := f.set(fExpiresAt)
		switch {
		case exp && f.expires <= o.Now:
			return false
		case !exp && o.Now-f.ts > o.MaxReplayAge:
			return false
		case o.Errata.RejectFutureTS && f.ts-o.Now > o.MaxReplayAge:
			return false
		case NotSeconds(f.ts, o.Now) || (exp && NotSeconds(f.expires, o.Now)):
			return false
		}
	}
	return true
}

// directRoom reports whether direct_id is the one derived from workspace,
// channel and the two peers (DirectID, without building strings).
func (f *fast) directRoom() bool {
	a, b := f.str[fFrom], f.str[fTo]
	switch bytes.Compare(a, b) {
	case 0:
		return false
	case 1:
		a, b = b, a
	}
	h := append(f.scratch[:0], directRoomDomain...)
	for _, part := range [...][]byte{f.str[fWorkspaceID], f.str[fChannel], a, b} {
		h = append(append(h, 0), part...)
	}
	f.scratch = h
	sum := sha256.Sum256(h)
	var want [32]byte
	hex.Encode(want[:], sum[:16])
	return string(f.str[fDirectID][len("direct_"):]) == string(want[:])
}
