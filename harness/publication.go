package harness

import (
	"sync/atomic"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/workunit"
)

// tracking follows every work unit of a run with the one work-unit tracker
// (package workunit, also behind aghcheck monitor): what the IUT publishes
// is judged across envelopes, and its findings join the stateless ones on
// the message. Those on what the IUT sent (a receipt outside its work's
// container, a for_id that names nothing, ...) are a sender's, charged to
// Core Sender as the rule engine's are; those showing it acted on what it
// had to refuse count against the scenario whose peer the message is for.
// Either counts in the passive verdict when no scenario took the message. What the test peers send only informs the
// tracker: their envelopes open the work, and are what the IUT's for_id and
// reply_to must name.
type tracking struct {
	t *workunit.Tracker
	// trust says the IUT takes the trust profile: only then must it
	// refuse what breaks the profile's rules (agh.DutyReason).
	trust atomic.Bool
	// errata is the run's reading of the envelope rules: a message it
	// makes valid may open work.
	errata agh.Errata
}

// newTracking: complete when the run sees every publication from the start
// (an embedded broker), so references can be judged at once.
func newTracking(complete bool) *tracking {
	return &tracking{t: workunit.New(workunit.Config{Complete: complete})}
}

// sent notes an envelope a test peer is about to publish (before, so that
// the IUT's answer finds it). One every receiver must refuse (a scenario's
// broken message) changes no work: refused, it was never processed, but
// its id is known. One a receiver may take (agh.DutyReason) may open work.
// Either is read as a lenient receiver reads it when aghcheck's decoder
// gives up on it (nested past its limit, a byte that is not UTF-8): an
// IUT that takes it answers under the ids it carries.
func (k *tracking) sent(data []byte) {
	now := time.Now()
	c, err := agh.NewChecker(agh.Options{Now: now.Unix(), Errata: k.errata})
	if err != nil {
		return
	}
	res := c.CheckBytes(data)
	refused := agh.DutyReason(res.Findings, k.trust.Load()) != ""
	env := res.Envelope
	if env == nil {
		env = jsonx.Lenient(data)
	}
	if env != nil {
		k.t.Observe(workunit.Envelope{At: now, Env: env, Refused: refused})
	}
}

// sound notes an envelope the harness built itself and knows sound: no
// receiver refuses it.
func (k *tracking) sound(env map[string]any) {
	k.t.Observe(workunit.Envelope{At: time.Now(), Env: env})
}

// judge returns what an IUT message breaks across envelopes, and of that
// what shows the IUT acted on a message it had to refuse (a receiver's
// duty; the rest is a sender's).
func (k *tracking) judge(m *message) (findings, acted []rules.Finding) {
	if m.env == nil {
		return nil, nil
	}
	res := k.t.Observe(workunit.Envelope{At: time.Now(), Env: m.env, Judged: true})
	return res.Findings, res.Acted
}
