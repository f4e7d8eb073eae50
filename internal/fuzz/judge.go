package fuzz

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/requirements"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// Kinds of finding.
const (
	KindAcceptedInvalid   = "accepted-invalid"   // a message no receiver may take was accepted or worked on
	KindWrongReason       = "wrong-reason"       // refused in another failure class than the validation order gives
	KindMissingRefusal    = "missing-refusal"    // refused in silence where a refusal receipt is due (SHOULD)
	KindRefusedValid      = "refused-valid"      // a valid message refused in a protocol failure class
	KindNotTaken          = "not-taken"          // a valid message not taken (or not answered) where a requirement says it must be
	KindAcceptedMisrouted = "accepted-misrouted" // work addressed to another peer, seen on broadcast, was worked on
	KindReplayed          = "replayed"           // valid work published twice was not taken once (the copy refused as a duplicate)
	KindUnserved          = "unserved"           // valid work after the message (or the message itself) got no answer
	KindInvalidOutput     = "invalid-output"     // the IUT sent an envelope that breaks a rule
	KindCrash             = "crash"              // the IUT's process exited
	KindDisconnect        = "disconnect"         // the IUT's broker connection closed
	KindDeaf              = "deaf"               // the IUT stopped answering
	KindFlood             = "flood"              // the IUT published more than a batch's budget
)

// Finding is one way the IUT falls short, found by one case or more.
type Finding struct {
	Rule    string `json:"rule"`
	Level   string `json:"level"` // MUST findings fail the run, SHOULD findings warn
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Reproducer is the scenario file that replays it (--repro-dir):
	// aghcheck run --suite DIR --embedded=false.
	Reproducer string `json:"reproducer,omitempty"`
	// Count is how many cases showed it.
	Count int `json:"count"`
	// Case is the case that shows it (minimized: the reproducer's), Input
	// what its message breaks ("valid" for none), What how it was made.
	Case  string `json:"case,omitempty"`
	Input string `json:"input,omitempty"`
	// Inputs are the different inputs that showed it (at most ten), the
	// case's first.
	Inputs []string `json:"inputs,omitempty"`
	What   string   `json:"what,omitempty"`
	// Shrunk says how minimization went ("" when it was not tried).
	Shrunk string `json:"minimized,omitempty"`

	key                  string
	c                    *Case
	removed, cut, undone int // what minimization took away
	// waited: it rests on an expect step's ceiling (an answer that did
	// not come), which a run may have shortened (see fuzzer.ceiling).
	waited bool
	// suspects are the cases in flight at a death no case was blamed
	// for (at most maxSuspects): its reproducer plays them together.
	suspects []*Case
}

// maxSuspects bounds the cases an unexplained death's reproducer plays.
const maxSuspects = 32

// keyOf is what makes two findings the same: the kind and the rule (one
// finding with a count, whatever the inputs that show it: Inputs lists
// them). A death is the exception: each input that kills the IUT is a
// finding of its own, with its own reproducer.
func keyOf(kind, rule, input string) string {
	switch kind {
	case KindCrash, KindDisconnect, KindDeaf:
		return kind + "|" + rule + "|" + input
	}
	return kind + "|" + rule
}

// maxInputs bounds the inputs a finding lists.
const maxInputs = 10

// findings collects and deduplicates what the cases show.
type findings struct {
	byKey map[string]*Finding
	order []string
}

func newFindings() *findings { return &findings{byKey: map[string]*Finding{}} }

func (fs *findings) add(f Finding) *Finding {
	f.key = keyOf(f.Kind, f.Rule, f.Input)
	if have := fs.byKey[f.key]; have != nil {
		have.Count++
		have.note(f.Input)
		for _, c := range f.suspects {
			if len(have.suspects) < maxSuspects && !slices.Contains(have.suspects, c) {
				have.suspects = append(have.suspects, c)
			}
		}
		return have
	}
	f.suspects = f.suspects[:min(len(f.suspects), maxSuspects)]
	f.Count = 1
	f.note(f.Input)
	fs.byKey[f.key] = &f
	fs.order = append(fs.order, f.key)
	return &f
}

// note adds an input that shows f.
func (f *Finding) note(input string) {
	if input != "" && len(f.Inputs) < maxInputs && !slices.Contains(f.Inputs, input) {
		f.Inputs = append(f.Inputs, input)
	}
}

// drop forgets f.
func (fs *findings) drop(f *Finding) {
	delete(fs.byKey, f.key)
	fs.order = slices.DeleteFunc(fs.order, func(k string) bool { return k == f.key })
}

// merge reports once the findings that minimization made the same (a
// mutation undone can leave the input of another finding): the counts add
// up, and the smaller case stays.
func (fs *findings) merge() {
	byKey := map[string]*Finding{}
	var order []string
	for _, k := range fs.order {
		f := fs.byKey[k]
		f.key = keyOf(f.Kind, f.Rule, f.Input)
		have := byKey[f.key]
		switch {
		case have == nil:
			byKey[f.key] = f
			order = append(order, f.key)
		case f.c != nil && (have.c == nil || f.undone+f.removed > have.undone+have.removed):
			f.Count += have.Count
			for _, in := range have.Inputs {
				f.note(in)
			}
			byKey[f.key] = f
		default:
			have.Count += f.Count
			for _, in := range f.Inputs {
				have.note(in)
			}
		}
	}
	fs.byKey, fs.order = byKey, order
}

// list is every finding, MUST first, then by kind and rule.
func (fs *findings) list() []*Finding {
	out := make([]*Finding, 0, len(fs.order))
	for _, k := range fs.order {
		out = append(out, fs.byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Level == "MUST") != (b.Level == "MUST") {
			return a.Level == "MUST"
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Rule < b.Rule
	})
	return out
}

// behaviour is what one played case shows: a finding per step that fell
// short, read by what the step checks (see roles).
func behaviour(c *Case, res *report.ScenarioResult) []Finding {
	var out []Finding
	rs := roles(c.Scenario)
	for _, sr := range res.Steps {
		if (sr.Outcome != report.Fail && sr.Outcome != report.Warn) || sr.Index < 1 || sr.Index > len(rs) {
			continue
		}
		level := sr.Level
		if sr.Outcome == report.Warn {
			level = "SHOULD"
		}
		f := Finding{Level: level, Case: c.ID, Input: c.Input(), What: c.What(), c: c, waited: sr.Kind == "expect"}
		what := fmt.Sprintf("%s (%s)", c.Input(), c.What())
		switch role := rs[sr.Index-1]; {
		case slices.Contains(sr.Checks, requirements.DelivDedupe.ID):
			f.Kind, f.Rule = KindReplayed, requirements.DelivDedupe.ID
			f.Message = fmt.Sprintf("valid work published twice (%s) was not taken once, the copy refused as a duplicate: %s", c.What(), sr.Message)
		case c.Shape == shapeRefuse && role == "class" && refusedAmong(res, c.Classes):
			continue // another class the same step of the validation order allows
		case c.Shape == shapeRefuse && role == "class":
			f.Kind, f.Rule = KindWrongReason, requirements.DelivFailureClasses.ID
			if len(sr.Checks) > 0 {
				f.Rule = sr.Checks[0] // a rule of the message's own naming its class
			}
			f.Message = fmt.Sprintf("a message that breaks %s must be refused as %s: %s", what, c.Verdict.Reason, sr.Message)
		case c.Shape == shapeRefuse && role == "taken":
			f.Kind, f.Rule = KindAcceptedInvalid, c.Input()
			f.Message = fmt.Sprintf("a message that breaks %s was taken: %s", what, sr.Message)
		case c.Shape == shapeRefuse && role == "refusal":
			if wrong(res, rs) {
				continue // taken, or refused in another class: said once, at MUST
			}
			f.Kind, f.Rule = KindMissingRefusal, requirements.DelivRefusalReceipt.ID
			f.Message = fmt.Sprintf("a message that breaks %s carries a usable work context: a receipt with status %s and reason_code %s is due: %s", what, c.Verdict.Status, c.Verdict.Reason, sr.Message)
		case c.Shape == shapeAccept && role == "class":
			f.Kind, f.Rule = KindRefusedValid, requirements.DelivFailureClasses.ID
			f.Message = fmt.Sprintf("a valid message (%s) was refused in a protocol failure class: %s", c.What(), sr.Message)
		case c.Shape == shapeAccept && role == "served" && c.Accept != "":
			f.Kind, f.Rule = KindNotTaken, c.Accept
			f.Message = fmt.Sprintf("a valid message (%s) was not taken: %s", c.What(), sr.Message)
		case c.Shape == shapeAccept && role == "served":
			f.Kind, f.Rule = KindUnserved, requirements.LifeReceipt.ID
			f.Message = fmt.Sprintf("valid work (%s) got no answer: %s", c.What(), sr.Message)
		case c.Shape == shapeIgnore && role == "taken":
			f.Kind, f.Rule = KindAcceptedMisrouted, requirements.NATSBroadcastNotAddressed.ID
			f.Message = fmt.Sprintf("work addressed to %s, seen on the broadcast subject, was worked on (%s): %s", bystanderID, c.What(), sr.Message)
		case c.Shape == shapeSurvive && role == "served":
			f.Kind, f.Rule = KindUnserved, requirements.PeerSurvives.ID
			f.Message = fmt.Sprintf("after a message a receiver may take or refuse (%s), valid work was not served: %s", what, sr.Message)
		case role == "served":
			f.Kind, f.Rule = KindUnserved, c.Input()
			if c.Shape == shapeIgnore {
				f.Rule = requirements.NATSBroadcastNotAddressed.ID
			}
			f.Message = fmt.Sprintf("after a message that breaks %s, valid work was not served: %s", what, sr.Message)
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// refusedAmong reports whether the IUT refused in the scenario's exchange,
// every refusal naming one of classes (none when classes is nil).
func refusedAmong(res *report.ScenarioResult, classes []string) bool {
	if len(classes) == 0 {
		return false
	}
	refused := false
	for _, e := range res.Exchanged {
		if e.Direction != "received" || len(e.Envelope) == 0 {
			continue
		}
		var env struct {
			Kind string `json:"kind"`
			Body struct {
				Status string `json:"status"`
				Reason any    `json:"reason_code"`
			} `json:"body"`
		}
		if json.Unmarshal(e.Envelope, &env) != nil || env.Kind != "receipt" || env.Body.Status == "accepted" {
			continue
		}
		reason, _ := env.Body.Reason.(string)
		if !slices.Contains(classes, reason) {
			return false
		}
		refused = true
	}
	return refused
}

// wrong reports whether a case's silence on acceptance or on another
// failure class was broken: then a missing refusal receipt is no news.
func wrong(res *report.ScenarioResult, rs []string) bool {
	for _, sr := range res.Steps {
		if (sr.Outcome == report.Fail || sr.Outcome == report.Warn) && sr.Index >= 1 && sr.Index <= len(rs) && (rs[sr.Index-1] == "class" || rs[sr.Index-1] == "taken") {
			return true
		}
	}
	return false
}

// output is a finding per rule an envelope the IUT published breaks.
func output(p report.Published, c *Case) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, fd := range p.Findings {
		if fd.Rule == nil || fd.Rule.Severity == rules.Note || seen[fd.Rule.ID] {
			continue
		}
		seen[fd.Rule.ID] = true
		f := Finding{Kind: KindInvalidOutput, Rule: fd.Rule.ID, Level: fd.Rule.Severity.Level(), c: c,
			Message: fmt.Sprintf("the IUT published on %s: %s", p.Subject, fd)}
		if c != nil {
			f.Case, f.What = c.ID, c.What()
			f.Message = fmt.Sprintf("answering %s (%s), the IUT published on %s: %s", c.Input(), c.What(), p.Subject, fd)
		}
		out = append(out, f)
	}
	return out
}

// killed is the finding of a case that kills the IUT when played alone.
func killed(k report.Killer, c *Case) Finding {
	kind := map[string]string{report.LifeExited: KindCrash, report.LifeDisconnected: KindDisconnect, report.LifeDeaf: KindDeaf}[k.Event]
	if kind == "" {
		kind = KindCrash
	}
	return Finding{Kind: kind, Rule: requirements.PeerSurvives.ID, Level: "MUST", Case: c.ID, Input: c.Input(), What: c.What(), c: c,
		Message: fmt.Sprintf("played alone, a message that breaks %s (%s) kills the IUT: %s (%s)", c.Input(), c.What(), says(k.Event), k.Cause)}
}

// says is what happened to the IUT, for a liveness event's kind.
func says(kind string) string { return report.LifeEvent{Kind: kind}.Says() }

// flooded is the finding of a batch the IUT flooded: what it published
// past the budget, and the cases still in flight, were not judged.
func flooded(b *report.Batch, cases int) Finding {
	return Finding{Kind: KindFlood, Rule: requirements.NATSFlood.ID, Level: "MUST", Input: "unattributed",
		Message: fmt.Sprintf("with %d cases in a batch, %s", cases, b.Flood)}
}

// unattributed is the finding of deaths no case explains: the IUT died
// while cases were in flight, and none of them was shown to kill it when
// played alone (a peer that goes deaf after so many messages, whatever
// they are; a death that followed no input of theirs closely), or
// --duration ran out before the hunt could tell (cut).
func unattributed(ev report.LifeEvent, cut bool) Finding {
	kind := map[string]string{report.LifeExited: KindCrash, report.LifeDisconnected: KindDisconnect, report.LifeDeaf: KindDeaf}[ev.Kind]
	why := "none of which was shown to kill it alone"
	if cut {
		why = "--duration ran out before the hunt could play them alone"
	}
	return Finding{Kind: kind, Rule: requirements.PeerSurvives.ID, Level: "MUST", Input: "unattributed",
		Message: fmt.Sprintf("%s (%s) with %d cases in flight, %s", ev.Says(), ev.Cause, len(ev.InFlight), why)}
}
