package harness

import (
	"fmt"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
)

// brokerRefusals reports what the embedded broker refused the confined
// IUT. The harness never sees a refused message, so without this a peer
// that publishes on protocol subjects outside the run's workspace
// (channel-only subjects, say) would only look quiet. Such a publish is a
// sender defect of NATS-WORKSPACE-SUBJECT's (every subject carries the
// workspace id), judged here once for the run. A refused subscription is
// listed, and judged by the scenario that publishes where it would have
// listened (refusedListening): listening is the receiver's side. Any
// other subject ($JS.API, $SYS, an application's) is listed for the
// reader and judged by nothing: no rule of the protocol speaks of it.
func (r *runner) brokerRefusals(rep *report.Report) {
	vs, total := r.broker.Violations()
	if total == 0 {
		return
	}
	var protocol []string
	for _, v := range vs {
		what := "subscribe to " + v.Subject
		if v.Publish {
			what = "publish on " + v.Subject
		}
		rep.IUT.Refused = append(rep.IUT.Refused, what)
		if v.Publish && strings.HasPrefix(v.Subject, agh.SubjectPrefix+".") {
			protocol = append(protocol, what)
		}
	}
	if total > len(vs) {
		rep.IUT.Refused = append(rep.IUT.Refused, fmt.Sprintf("%d refusals in all (the first %d distinct ones above)", total, len(vs)))
	}
	if len(protocol) == 0 {
		return
	}
	pr := &rep.Passive
	pr.Outcome = report.Fail
	pr.Findings = append(pr.Findings, report.PassiveFinding{Rule: requirements.NATSWorkspaceSubject.ID, Level: "MUST", Count: len(protocol), RunWide: true,
		Example: fmt.Sprintf("the broker refused the IUT's %s, outside the run's workspace %s", protocol[0], r.ws)})
}
