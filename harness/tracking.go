package harness

import (
	"github.com/aghcheck/aghcheck/agh"
	"github.com/aghcheck/aghcheck/harness/requirements"
	"github.com/aghcheck/aghcheck/rules"
)

// CheckPublication judges one publication as its sender's, one envelope at a
// time: every rule of the agh engine on its bytes, and the subject it was
// published on (broadcast envelopes on the channel's broadcast subject,
// directed ones on the target's peer subject with its route token). The
// harness's passive judging and aghcheck monitor both judge with it.
func CheckPublication(c *agh.Checker, subject string, raw []byte) agh.Result {
	res := c.CheckBytes(raw)
	if res.Envelope != nil {
		if want, err := agh.Subject(res.Envelope); err == nil && want != subject {
			res.Findings = append(res.Findings, rules.Finding{Rule: requirements.NATSSubject, Expected: want, Found: subject,
				Message: "published on the wrong subject"})
		}
	}
	return res
}
