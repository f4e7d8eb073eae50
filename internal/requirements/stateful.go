package requirements

import "github.com/aghcheck/aghcheck/internal/rules"

// Requirements that only a view across envelopes can judge: the work-unit
// tracker (package workunit) checks them on everything a run's IUT or a
// monitored network publishes, next to the lifecycle rules above.
var (
	DelivIDUnique = delivery.Declare(rules.Rule{ID: "DELIV-ID-UNIQUE",
		Clause: "An id MUST identify one envelope within its sender's replay window: a sender never reuses an id for a different message (a retry of the same logical message keeps its id).",
		Source: "AGH Network v0, Envelope §Fields (id); " + deliverySrc + " §Retries",
		Basis:  `Envelope §Fields, id: "MUST identify this envelope uniquely within the sender's replay window."; Delivery Guarantees §Retry semantics (a retry keeps its id, SHOULD)`})
	DelivForIDKnown = delivery.Declare(rules.Rule{ID: "DELIV-FOR-ID-KNOWN",
		Clause: "A receipt's for_id MUST name the envelope being acknowledged: one that the peer the receipt is addressed to sent within the replay window.",
		Source: kindsSrc + " §receipt body fields",
		Basis:  `Message Kinds §receipt body fields, for_id: "MUST reference the envelope ID being acknowledged."`})
	DelivReplyToKnown = delivery.Declare(rules.Rule{ID: "DELIV-REPLY-TO-KNOWN", Severity: rules.Warning,
		Clause: "reply_to on a response-like message SHOULD name the envelope being answered: one that the peer it is addressed to sent within the replay window.",
		Source: "AGH Network v0, Envelope §Fields (reply_to)",
		Basis:  `Envelope §Fields, reply_to: "MAY reference the envelope ID being answered by other response-like messages." The field is optional; when set, naming no envelope the addressee sent is graded SHOULD (aghcheck's reading of its meaning)`})
	DiscWhoisReplyToKnown = discovery.Declare(rules.Rule{ID: "DISC-WHOIS-REPLY-TO-KNOWN",
		Clause: "A whois response's reply_to MUST name the whois request it answers, sent by the peer the response is addressed to.",
		Source: kindsSrc + " §whois envelope requirements",
		Basis:  `Message Kinds §whois envelope requirements, reply_to: "MUST reference the request envelope ID."`})
	LifeParticipants = lifecycle.Declare(rules.Rule{ID: "LIFE-PARTICIPANTS-ONLY",
		Clause: "Only a work unit's initiator and target send its lifecycle messages: another peer MUST NOT send a receipt (other than a refusal) or a trace for it.",
		Source: lifecycleSrc + " §Participants",
		Basis:  `Work Lifecycle §Directed work rules: "Only those two peers MAY emit lifecycle messages for that work unit." (a permission to two, so a prohibition to the rest: MUST NOT)`})
	DiscGreetHeartbeat = discovery.Declare(rules.Rule{ID: "DISC-GREET-HEARTBEAT", Severity: rules.Warning,
		Clause: "A peer SHOULD greet again within its greet interval (30 s by default): periodic greet is the presence heartbeat, and receivers expire a peer two intervals after its last greet.",
		Source: natsSrc + " §Joining a channel",
		Basis:  `Peer Discovery §Announcing with greet: "In long-running channels, a peer SHOULD re-announce before its presence expires."`})
)
