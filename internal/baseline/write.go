package baseline

import (
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// TODOReason is the reason Write gives an entry it cannot know the reason of.
const TODOReason = "TODO: name the erratum or link the issue"

// Write writes today's deviations of rep — its failing and warning
// scenarios and the rules its passive validation finds broken — as a
// baseline file to start from: the same run passes against it, with or
// without --strict. An entry of prev that still holds keeps its reason; a
// new one gets TODOReason, and each carries the shortfall as a comment.
// Errors are left out: a scenario that could not run says nothing about
// the peer.
func Write(w io.Writer, rep *report.Report, prev *Baseline) error {
	var entries []*yaml.Node
	add := func(id string, outcome report.Outcome, why string) {
		reason := TODOReason
		if e := prev.recorded(id, outcome); e != nil {
			reason = e.Reason
		}
		n := &yaml.Node{Kind: yaml.MappingNode, HeadComment: sanitize.YAMLComment(firstLine(why))}
		for _, kv := range [][2]string{{"id", id}, {"outcome", string(outcome)}, {"reason", reason}} {
			n.Content = append(n.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]},
				&yaml.Node{Kind: yaml.ScalarNode, Value: kv[1]})
		}
		entries = append(entries, n)
	}
	keep := func(o report.Outcome) bool { return o == report.Fail || o == report.Warn }
	for _, sc := range rep.Scenarios {
		if o := sc.Actual(); keep(o) {
			why := sc.Message
			if why == "" && len(sc.Notes) > 0 {
				why = sc.Notes[0] // a warning's message is empty; its first SHOULD note says why
			}
			add(sc.ID, o, why)
		}
	}
	for i := range rep.Passive.Findings {
		f := &rep.Passive.Findings[i]
		if o := levelOutcome(f); keep(o) {
			add(PassivePrefix+f.Rule, o, fmt.Sprintf("passive, ×%d: %s", f.Count, f.Example))
		}
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Content: entries}
	if len(entries) == 0 {
		list.Style = yaml.FlowStyle // entries: []
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{
		Kind: yaml.MappingNode,
		HeadComment: "Known deviations for aghcheck run --baseline (written by --write-baseline).\n" +
			"Each entry: a scenario id or passive:RULE-ID, the outcome it has today, and why\n" +
			"(an erratum id or an issue link). A run passes when its failures and warnings are exactly these.",
		Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "entries"}, list},
	}}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return enc.Close()
}

// recorded is b's entry for id when it records outcome o (nil for a nil b).
func (b *Baseline) recorded(id string, o report.Outcome) *Entry {
	if b == nil {
		return nil
	}
	if e := b.byID[id]; e != nil && e.Outcome == o {
		return e
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:157]) + "..."
	}
	return s
}
