package agh

// field indexes a top-level member the seed's envelope schema defines. One
// pass over the envelope files each member into run.val by its index, so no
// rule hashes a member name again.
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
	fieldPtr [nFields]string // "/protocol", …: findings name members without building strings
	// fieldSlots is a perfect hash of the names, built from the table: a map
	// lookup costs ~35 ns and each envelope needs a dozen, so the hot path
	// uses one hash of the length and the first and last bytes instead.
	fieldSlots [64]field
	slotMul    uint
)

func init() {
	for i, f := range fields {
		fieldPtr[i] = "/" + f.name
	}
	for slotMul = 1; slotMul < 64; slotMul++ {
		if fillSlots() {
			return
		}
	}
	panic("agh: no collision-free hash for the envelope field names")
}

func fieldSlot(name string) uint {
	return (uint(len(name)) + (uint(name[0])+uint(name[len(name)-1]))*slotMul) % uint(len(fieldSlots))
}

// fillSlots places every name in its own slot, or reports a collision.
func fillSlots() bool {
	for i := range fieldSlots {
		fieldSlots[i] = nFields
	}
	for i, f := range fields {
		h := fieldSlot(f.name)
		if fieldSlots[h] != nFields {
			return false
		}
		fieldSlots[h] = field(i)
	}
	return true
}

func (f field) ptr() string { return fieldPtr[f] }

// lookupField returns the index of a top-level member name.
func lookupField(name string) (field, bool) {
	if name == "" {
		return 0, false
	}
	f := fieldSlots[fieldSlot(name)]
	return f, f != nFields && fields[f].name == name
}
