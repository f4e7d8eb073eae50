package agh

// field indexes a top-level member the seed's envelope schema defines.
// run.load files each member into run.val by its index once, so no rule
// looks a member name up again.
type field uint8

// The members, in the schema's order; the fields table below gives each its
// name and whether an envelope must carry it.
const (
	fProtocol field = iota
	fID
	fWorkspaceID
	fKind
	fChannel
	fSurface
	fThreadID
	fDirectID
	fFrom
	fTo
	fWorkID
	fReplyTo
	fTraceID
	fCausationID
	fTS
	fExpiresAt
	fBody
	fProof
	fExt
	nFields
)

// fields is the one table of envelope members: names, pointers and the
// name lookup are all derived from it.
var fields = [nFields]struct {
	name     string
	required bool
}{
	fProtocol:    {"protocol", true},
	fID:          {"id", true},
	fWorkspaceID: {"workspace_id", true},
	fKind:        {"kind", true},
	fChannel:     {"channel", true},
	fSurface:     {"surface", false},
	fThreadID:    {"thread_id", false},
	fDirectID:    {"direct_id", false},
	fFrom:        {"from", true},
	fTo:          {"to", false},
	fWorkID:      {"work_id", false},
	fReplyTo:     {"reply_to", false},
	fTraceID:     {"trace_id", false},
	fCausationID: {"causation_id", false},
	fTS:          {"ts", true},
	fExpiresAt:   {"expires_at", false},
	fBody:        {"body", true},
	fProof:       {"proof", false},
	fExt:         {"ext", false},
}

var fieldPtr [nFields]string // "/protocol", …: findings name members without building strings

func init() {
	for i, fd := range fields {
		fieldPtr[i] = "/" + fd.name
	}
}

func (f field) ptr() string { return fieldPtr[f] }

// lookupField returns the index of a top-level member name, a decoded
// string or the bytes the fast path reads in place. A switch, not a map:
// it hashes nothing, and TestFieldTable holds it to the table above.
func lookupField[T text](name T) (field, bool) {
	switch string(name) {
	case "protocol":
		return fProtocol, true
	case "id":
		return fID, true
	case "workspace_id":
		return fWorkspaceID, true
	case "kind":
		return fKind, true
	case "channel":
		return fChannel, true
	case "surface":
		return fSurface, true
	case "thread_id":
		return fThreadID, true
	case "direct_id":
		return fDirectID, true
	case "from":
		return fFrom, true
	case "to":
		return fTo, true
	case "work_id":
		return fWorkID, true
	case "reply_to":
		return fReplyTo, true
	case "trace_id":
		return fTraceID, true
	case "causation_id":
		return fCausationID, true
	case "ts":
		return fTS, true
	case "expires_at":
		return fExpiresAt, true
	case "body":
		return fBody, true
	case "proof":
		return fProof, true
	case "ext":
		return fExt, true
	}
	return 0, false
}
