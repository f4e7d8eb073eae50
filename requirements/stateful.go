package requirements

import "github.com/aghcheck/aghcheck/rules"

// Requirements that only a view across envelopes can judge: the work-unit
// tracker (package workunit) checks them on everything a run's IUT or a
// monitored network publishes, next to the lifecycle rules above.
var (
	DelivIDUnique = delivery.Declare(rules.Rule{ID: "DELIV-ID-UNIQUE",
		Clause: "An id MUST identify one envelope within its sender's replay window: a sender never reuses an id for a different message (a retry of the same logical message keeps its id).",
		Source: "AGH Network v0, Envelope §Fields (id); " + deliverySrc + " §Retries"})
	DelivForIDKnown = delivery.Declare(rules.Rule{ID: "DELIV-FOR-ID-KNOWN",
		Clause: "A receipt's for_id MUST name the envelope being acknowledged: one that the peer the receipt is addressed to sent within the replay window.",
		Source: kindsSrc + " §receipt body fields"})
	DelivReplyToKnown = delivery.Declare(rules.Rule{ID: "DELIV-REPLY-TO-KNOWN", Severity: rules.Warning,
		Clause: "reply_to on a response-like message SHOULD name the envelope being answered: one that the peer it is addressed to sent within the replay window.",
		Source: "AGH Network v0, Envelope §Fields (reply_to)"})
	DiscWhoisReplyToKnown = discovery.Declare(rules.Rule{ID: "DISC-WHOIS-REPLY-TO-KNOWN",
		Clause: "A whois response's reply_to MUST name the whois request it answers, sent by the peer the response is addressed to.",
		Source: kindsSrc + " §whois envelope requirements"})
	LifeParticipants = lifecycle.Declare(rules.Rule{ID: "LIFE-PARTICIPANTS-ONLY",
		Clause: "Only a work unit's initiator and target send its lifecycle messages: another peer MUST NOT send a receipt (other than a refusal) or a trace for it.",
		Source: lifecycleSrc + " §Participants"})
	DiscGreetHeartbeat = discovery.Declare(rules.Rule{ID: "DISC-GREET-HEARTBEAT", Severity: rules.Warning,
		Clause: "A peer SHOULD greet again within its greet interval (30 s by default): periodic greet is the presence heartbeat, and receivers expire a peer two intervals after its last greet.",
		Source: natsSrc + " §Joining a channel"})
)
