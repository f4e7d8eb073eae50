package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// PeerSurvives is what a death of the IUT during a run breaks: whatever a
// peer receives, it refuses or drops, and keeps serving. The pages make a
// receiver refuse what is malformed, expired or badly signed and go on
// with valid traffic; a peer that exits, loses its connection or stops
// listening on such input does neither.
var PeerSurvives = delivery.Declare(rules.Rule{ID: "PEER-SURVIVES-INPUT",
	Clause: "A receiver MUST survive what it receives: it refuses or drops a message it cannot take, and neither exits, loses its broker connection nor stops listening because of it.",
	Source: deliverySrc + " (with Message Kinds, validation: a malformed message is rejected, never fatal)",
	Basis:  `Conformance Levels §Core Receiver: "A Core Receiver MUST:" ... "reject malformed messages" (and receive valid ones, the §Capability matrix's MUST at every level): a peer that dies of what it receives does neither`})
