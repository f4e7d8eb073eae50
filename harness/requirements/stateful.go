package requirements

import "github.com/aghcheck/aghcheck/rules"

// Requirements that only a view across envelopes can judge: the work-unit
// tracker (package workunit) checks them on everything a run's IUT or a
// monitored network publishes, next to the lifecycle rules above.
var (
	DelivIDUnique = r("DELIV-ID-UNIQUE", "agh-delivery", rules.Error, "",
		"An id MUST identify one envelope within its sender's replay window: a sender never reuses an id for a different message (a retry of the same logical message keeps its id).",
		"AGH Network v0, Envelope §Fields (id); "+deliverySrc+" §Retries")
	DelivForIDKnown = r("DELIV-FOR-ID-KNOWN", "agh-delivery", rules.Error, "",
		"A receipt's for_id MUST name the envelope being acknowledged: one that the peer the receipt is addressed to sent within the replay window.",
		kindsSrc+" §receipt body fields")
	DelivReplyToKnown = r("DELIV-REPLY-TO-KNOWN", "agh-delivery", rules.Warning, "",
		"reply_to on a response-like message SHOULD name the envelope being answered: one that the peer it is addressed to sent within the replay window.",
		"AGH Network v0, Envelope §Fields (reply_to)")
	DiscWhoisReplyToKnown = r("DISC-WHOIS-REPLY-TO-KNOWN", "agh-discovery", rules.Error, "",
		"A whois response's reply_to MUST name the whois request it answers, sent by the peer the response is addressed to.",
		kindsSrc+" §whois envelope requirements")
	LifeParticipants = r("LIFE-PARTICIPANTS-ONLY", "agh-lifecycle", rules.Error, "",
		"Only a work unit's initiator and target send its lifecycle messages: another peer MUST NOT send a receipt (other than a refusal) or a trace for it.",
		lifecycleSrc+" §Participants")
	DiscGreetHeartbeat = r("DISC-GREET-HEARTBEAT", "agh-discovery", rules.Warning, "",
		"A peer SHOULD greet again within its greet interval (30 s by default): periodic greet is the presence heartbeat, and receivers expire a peer two intervals after its last greet.",
		natsSrc+" §Joining a channel")
)

func init() {
	rules.Register(DelivIDUnique, DelivForIDKnown, DelivReplyToKnown, DiscWhoisReplyToKnown, LifeParticipants, DiscGreetHeartbeat)
}
