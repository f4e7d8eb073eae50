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

var (
	fieldPtr    [nFields]string // "/protocol", …: findings name members without building strings
	fieldByName = make(map[string]field, nFields)
)

func init() {
	for i, f := range fields {
		fieldPtr[i] = "/" + f.name
		fieldByName[f.name] = field(i)
	}
}

func (f field) ptr() string { return fieldPtr[f] }

// lookupField returns the index of a top-level member name.
func lookupField(name string) (field, bool) {
	f, ok := fieldByName[name]
	return f, ok
}
