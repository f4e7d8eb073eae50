// Package publication judges one envelope as its sender published it: the
// rules of the agh engine on its bytes, and the subject it went out on.
// aghcheck run's passive judging and aghcheck monitor both judge with it.
package publication

import (
	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Check judges one publication as its sender's, one envelope at a
// time: every rule of the agh engine on its bytes, and the subject it was
// published on (broadcast envelopes on the channel's broadcast subject,
// directed ones on the target's peer subject with its route token). The
// harness's passive judging and aghcheck monitor both judge with it.
func Check(c *agh.Checker, subject string, raw []byte) agh.Result {
	res := c.CheckBytes(raw)
	if res.Envelope != nil {
		if want, err := agh.Subject(res.Envelope); err == nil && want != subject {
			res.Findings = append(res.Findings, rules.Finding{Rule: requirements.NATSSubject, Expected: want, Found: subject,
				Message: "published on the wrong subject (docs/protocol.md#names-and-subjects, #route-token)"})
		}
	}
	return res
}
