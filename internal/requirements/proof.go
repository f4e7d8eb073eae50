package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// ProofOptional is the Envelope page's Core MUST on proof: a v0 receiver
// processes a message that carries none. A peer that also takes the trust
// profile must not turn it into a condition.
var ProofOptional = delivery.Declare(rules.Rule{ID: "ENV-PROOF-NOT-REQUIRED",
	Clause: "A v0 receiver MUST NOT require cryptographic proof processing: a valid message whose proof is null or absent is processed like any other, even by a peer that takes the trust profile.",
	Source: "AGH Network v0, Envelope §Fields (proof)",
	Basis:  `Envelope §Fields, proof: "MAY be null in v0. v0 receivers MUST NOT require cryptographic proof processing."`})
