package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// DelivRefusalReceipt is the SHOULD half of a refusal: not processing a
// broken message is a MUST of its own rule (DELIV-MALFORMED-REFUSED,
// TRUST-RX-REJECT-BAD-PROOF, ...); telling the sender is advice, and so is
// the class of the reason (DELIV-FAILURE-CLASSES), unless a rule's own MUST
// names it (CAP-DIGEST: verification_failed).
var DelivRefusalReceipt = delivery.Declare(rules.Rule{ID: "DELIV-REFUSAL-RECEIPT", Severity: rules.Warning,
	Clause: "A receiver that refuses a message carrying usable work context (work_id, surface and container id) SHOULD tell the sender with a receipt addressed to it: status rejected (expired or duplicate where those apply) and the reason_code of the failure class.",
	Source: kindsSrc + " §Reason codes",
	Basis:  `Work Lifecycle §Directed work rules: "A receiver SHOULD emit receipt(rejected) with a reason code when it refuses responsibility."; Message Kinds §Reason codes: refusals "SHOULD use one of these reason codes"`})
