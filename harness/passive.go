package harness

import (
	"fmt"
	"slices"
	"sort"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// passive grades everything the IUT published.
func (r *runner) passive(rep *report.Report) {
	b := r.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	pr := &rep.Passive
	pr.Envelopes = len(b.passive)
	pr.Flooded = b.flooded
	pr.Dropped = b.dropped
	rep.IUT.Messages = b.iutCount
	byRule := map[string]*report.PassiveFinding{}
	var order []string
	errs, warns := 0, 0
	for _, m := range b.passive {
		charged := m.charged.Load()
		if charged && len(m.findings) > 0 {
			pr.Charged++
		}
		bad := false
		for _, f := range m.findings {
			if charged && m.actedOn(f) {
				continue // the scenario that caused it judged it (a receiver's duty)
			}
			pf := byRule[f.Rule.ID]
			if pf == nil {
				pf = &report.PassiveFinding{Rule: f.Rule.ID, Level: f.Rule.Severity.Level(), Example: f.String()}
				byRule[f.Rule.ID] = pf
				order = append(order, f.Rule.ID)
			}
			pf.Count++
			if charged && !slices.Contains(pf.Scenarios, m.chargedTo) {
				pf.Scenarios = append(pf.Scenarios, m.chargedTo)
			}
			if f.Severity(r.cfg.Strict) == rules.Error {
				errs++
				bad = true
			} else {
				warns++
			}
		}
		if bad {
			pr.Invalid++
			if len(pr.Samples) < 5 {
				pr.Samples = append(pr.Samples, receivedEntry(m))
			}
		}
	}
	sort.Strings(order)
	for _, id := range order {
		pr.Findings = append(pr.Findings, *byRule[id])
	}
	switch {
	case pr.Envelopes == 0:
		pr.Outcome = report.Skip
	case errs > 0 || pr.Flooded:
		pr.Outcome = report.Fail
	case warns > 0:
		pr.Outcome = report.Warn
	default:
		pr.Outcome = report.Pass
	}
	if pr.Flooded {
		pr.Findings = append(pr.Findings, report.PassiveFinding{Rule: requirements.NATSFlood.ID, Level: "MUST", Count: b.iutCount, RunWide: true,
			Example: floodExample(b)})
	}
	r.brokerDisconnects(rep)
	r.brokerRefusals(rep)
}

// brokerDisconnects reports the IUT connections the embedded broker closed:
// the harness never sees those messages, so without this an IUT that
// publishes more than the 1 MiB max payload would just go quiet. Only the
// harness and the IUT connect to the embedded broker: every connection but
// the harness's own (by id, whatever name a client gives) is the IUT's.
func (r *runner) brokerDisconnects(rep *report.Report) {
	oversize, why := 0, ""
	for _, d := range r.brokerClosed() {
		rep.IUT.Disconnects = append(rep.IUT.Disconnects, d.Reason)
		if d.MaxPayload {
			oversize, why = oversize+1, d.Reason
		}
	}
	if oversize > 0 {
		pr := &rep.Passive
		pr.Outcome = report.Fail
		pr.Findings = append(pr.Findings, report.PassiveFinding{Rule: rules.InputTooLarge.ID, Level: "MUST", Count: oversize, RunWide: true,
			Example: fmt.Sprintf("the broker disconnected the IUT for publishing more than the %d-byte max payload (%s)", broker.MaxPayload, why)})
	}
}

// brokerClosed lists the IUT connections the embedded broker closed on its
// own account (nil without one).
func (r *runner) brokerClosed() []broker.Disconnect {
	if r.broker == nil || r.nc == nil {
		return nil
	}
	self, err := r.nc.GetClientID()
	if err != nil {
		return nil
	}
	return r.broker.ClosedByBroker(self)
}

// floodExample says how the IUT flooded the run: the budget it passed, and
// what it published in all.
func floodExample(b *bus) string {
	return fmt.Sprintf("the IUT published %s (the run's budget: %d messages, %s), and %d messages, %s, in all; nothing after that was judged",
		b.floodWhy, b.budget.messages, sizeText(b.budget.bytes), b.iutCount, sizeText(b.iutBytes))
}
