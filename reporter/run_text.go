package reporter

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/iut"
	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

func (p palette) outcome(o report.Outcome) string {
	label := fmt.Sprintf("%-5s", strings.ToUpper(string(o)))
	switch o {
	case report.Pass:
		return p.greenBold.Sprint(label)
	case report.Fail, report.Error:
		return p.red.Sprint(label)
	case report.Warn:
		return p.yellow.Sprint(label)
	case report.ExpectedFail:
		return p.yellow.Sprint("XFAIL")
	}
	return p.faint.Sprint(label)
}

func runDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// runText prints a run as it goes: a header while the IUT starts, one line
// per finished scenario, then skipped scenarios, failure details with the
// exchanged envelopes, summaries by suite and level, passive validation and
// the claims.
type runText struct {
	w io.Writer
	o Options
	p palette
}

func newRunText(w io.Writer, o Options) runWriter {
	if o.Level != "" {
		n := plural.Count(o.Scenarios, "scenario")
		if o.Selected != o.Scenarios {
			n = fmt.Sprintf("%d of %s", o.Selected, n)
		}
		fmt.Fprintf(w, "aghcheck run: AGH Network v0 conformance, level %s, %s\n", o.Level, n)
	}
	return &runText{w: w, o: o, p: newPalette(o.Color)}
}

func (t *runText) Item(sc *report.ScenarioResult) error {
	p := t.p
	line := fmt.Sprintf("  %s %-16s %-46s %6s", p.outcome(sc.Outcome), sc.Suite, sc.ID, runDur(sc.Duration.D()))
	if sc.Outcome != report.Pass && sc.Message != "" {
		line += "  " + p.faint.Sprint(firstLine(sc.Message))
	}
	_, err := fmt.Fprintln(t.w, line)
	return err
}

// implementation names what a run certified and its version, as every
// format prints it.
func implementation(rep *report.Report) string {
	return nameVersion(rep.IUT.Implementation, rep.IUT.ImplementationVersion)
}

// nameVersion is "name version", or "name (version unknown)".
func nameVersion(name, version string) string {
	name = cmp.Or(name, report.Unknown)
	if version != "" && version != report.Unknown {
		return name + " " + version
	}
	return name + " (version unknown)"
}

// checker names aghcheck and its version, beside implementation.
func checker(rep *report.Report) string {
	return cmp.Or(rep.Tool, "aghcheck") + " " + cmp.Or(rep.Version, report.Unknown)
}

// Envelopes in reports are clipped to these many bytes, unless --verbose
// asks for them whole (text).
const (
	evidenceClip  = 300 // a step's expected pattern or arrived envelope
	exchangedClip = 400 // an exchanged envelope
)

// unconfinedNote says, for an external broker, who answers for what the
// IUT's broker user may do.
const unconfinedNote = "the IUT's permissions on this broker are not aghcheck's to enforce: it may publish as anyone and read everything its user may"

func (t *runText) Finish(rep *report.Report) error {
	w, p, verbose := t.w, t.p, t.o.Verbose
	b := rep.Broker
	kind := "external"
	if b.Embedded {
		kind = "embedded"
	}
	js := ""
	if b.JetStream {
		js = " +JetStream"
	}
	fmt.Fprintf(w, "\nbroker   %s %s%s (workspace %s, channel %s)\n", kind, b.URL, js, b.Workspace, b.Channel)
	if b.Unconfined {
		fmt.Fprintf(w, "         %s\n", unconfinedNote)
	}
	// The report always names the command it certified, so a wrong or
	// defaulted --iut cannot pass for the intended program.
	label := "IUT     "
	if len(rep.IUT.Command) > 0 {
		fmt.Fprintf(w, "%s %s\n", label, iut.Join(rep.IUT.Command))
		label = "        "
	}
	if rep.IUT.PeerID != "" {
		name := ""
		if dn, ok := rep.IUT.Card["display_name"].(string); ok && dn != "" {
			name = " (" + dn + ")"
		}
		joined := "greeted"
		if rep.IUT.JoinedBy == "whois" {
			joined = "answered a whois"
		}
		fmt.Fprintf(w, "%s peer %s%s, %s after %s, %s published", label, rep.IUT.PeerID, name, joined, runDur(rep.IUT.Greeted.D()), plural.Count(rep.IUT.Messages, "message"))
		switch {
		case rep.IUT.Crashed && len(rep.IUT.Events) == 0:
			fmt.Fprintf(w, ", %s", p.red.Sprint("crashed: "+rep.IUT.Exit))
		case rep.IUT.Crashed:
			fmt.Fprintf(w, ", %s", p.red.Sprint("died during the run"))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "tested   %s\n", tested(rep))
	if line := readingsText(rep); line != "" {
		fmt.Fprintf(w, "readings %s\n", line)
	}
	t.liveness(rep)
	for _, d := range rep.IUT.Disconnects {
		fmt.Fprintf(w, "%s %s\n", label, p.red.Sprint("disconnected by the broker: "+d))
	}
	for _, d := range rep.IUT.Refused {
		fmt.Fprintf(w, "%s %s\n", label, p.red.Sprint("refused by the broker: "+d))
	}
	// Why it crashed is usually on its stderr: show it here, not only in JSON.
	if rep.IUT.Crashed && rep.Error == "" && len(rep.IUT.Events) == 0 {
		t.stderrTail(rep)
	}
	if rep.Error != "" {
		fmt.Fprintf(w, "\n%s %s\n", p.red.Sprint("ERROR"), rep.Error)
		t.stderrTail(rep)
		if rep.IUT.PeerID == "" {
			// The IUT never joined: no scenario was played, and one line
			// says so better than a "not run" block per scenario and a
			// claims table of nothing.
			fmt.Fprintf(w, "\n%s  %s not run; nothing was certified\n", p.red.Sprint("NOT RUN"), plural.Count(rep.Summary.Error, "scenario"))
			return nil
		}
	}

	scs, leftOut := t.played(rep)
	var skipped, bad []*report.ScenarioResult
	unplayed := map[string][]*report.ScenarioResult{} // by why
	for _, sc := range scs {
		switch why, notPlayed := strings.CutPrefix(sc.Message, "not played: "); {
		case sc.Outcome == report.Skip:
			skipped = append(skipped, sc)
		case sc.Outcome == report.Error && notPlayed && !verbose:
			unplayed[why] = append(unplayed[why], sc)
		case sc.Outcome == report.Fail, sc.Outcome == report.Error, sc.Outcome == report.Warn:
			bad = append(bad, sc)
		}
	}
	if len(skipped) > 0 && (verbose || len(skipped) <= 12) {
		fmt.Fprintln(w, "\nSkipped:")
		for _, sc := range skipped {
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %s %-46s %s", p.outcome(sc.Outcome), sc.ID, p.faint.Sprint(sc.Message)), " "))
		}
	} else if len(skipped) > 0 {
		fmt.Fprintf(w, "\n%s skipped (-v lists them)\n", plural.Count(len(skipped), "scenario"))
	}
	if len(bad) > 0 {
		fmt.Fprintln(w, "\nDetails:")
		for _, sc := range bad {
			t.failure(sc)
		}
	}
	writeUnplayed(w, p, unplayed)

	t.tables(scs)

	fmt.Fprintln(w)
	writePassive(w, p, rep)
	writeAdapterOwned(w, p, rep)
	writeRunBaseline(w, p, rep)

	if t.narrowed(rep) {
		t.narrowedSummary(rep, leftOut)
	} else {
		t.claims(rep)
		t.exercised(rep)
	}
	t.latency(rep)
	t.load(rep)
	if line := rep.Summary.UnstableLine(); line != "" {
		// --repeat: whether the verdicts held on every run, in one line.
		fmt.Fprintf(w, "\n%s\n", line)
	}
	fmt.Fprintf(w, "\n%s\n", closingLine(p, rep))
	return nil
}

// claims prints each claim, earned or not, with why.
func (t *runText) claims(rep *report.Report) {
	w, p, verbose := t.w, t.p, t.o.Verbose
	fmt.Fprintln(w, "\nClaims:")
	lastCaveat := ""
	for _, c := range rep.Claims {
		mark := p.greenBold.Sprint("✔")
		if !c.Earned {
			mark = p.red.Sprint("✘")
		}
		line := fmt.Sprintf("  %s %-22s", mark, c.Name)
		if !c.Earned && len(c.Why) > 0 {
			limit := 8
			if verbose {
				limit = 0
			}
			line += " " + p.faint.Sprint(whyLine(c.Why, limit))
		}
		if c.Earned && len(c.Unexercised) > 0 {
			// Claims built on one another share a caveat: spell it out once.
			list := strings.Join(c.Unexercised, ", ")
			if list == lastCaveat {
				line += " " + p.faint.Sprint("(same caveat)")
			} else {
				line += " " + p.faint.Sprint(fmt.Sprintf("(not exercised without %s: %s)", control.Name, list))
			}
			lastCaveat = list
		}
		if c.Earned && len(c.UnexercisedInitiator) > 0 {
			line += " " + p.faint.Sprint(fmt.Sprintf("(initiator duties not exercised, the IUT takes no initiation orders: %s)", strings.Join(c.UnexercisedInitiator, ", ")))
		}
		if c.Earned && len(c.Unobserved) > 0 {
			line += " " + p.faint.Sprint(fmt.Sprintf("(not observed, only silences the IUT gave no later sign of hearing check them: %s)", strings.Join(c.Unobserved, ", ")))
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// writeUnplayed says in one line per reason which scenarios were not
// played (an error each, and nothing more to show of them: -v details
// each like any other error).
func writeUnplayed(w io.Writer, p palette, unplayed map[string][]*report.ScenarioResult) {
	whys := make([]string, 0, len(unplayed))
	for why := range unplayed {
		whys = append(whys, why)
	}
	slices.Sort(whys)
	for _, why := range whys {
		scs := unplayed[why]
		list := "(listed above; -v details each)"
		if len(scs) <= 12 {
			ids := make([]string, len(scs))
			for k, sc := range scs {
				ids[k] = sc.ID
			}
			list = strings.Join(ids, ", ")
		}
		fmt.Fprintf(w, "\n  %s %s not played: %s\n        %s\n", p.outcome(report.Error), plural.Count(len(scs), "scenario"), why, p.faint.Sprint(list))
	}
}

// closingLine is the text report's last line.
func closingLine(p palette, rep *report.Report) string {
	s := rep.Summary
	verdict := p.greenBold.Sprint(runVerdict(rep))
	if !s.Passed {
		verdict = p.red.Sprint(runVerdict(rep))
	}
	return fmt.Sprintf("%s  %s; claim earned: %s (target %s); %s wall, %s of scenario time",
		verdict, runCounts(rep), p.cyan.Sprint(s.Claim), s.Target, runDur(rep.Duration.D()), runDur(s.ScenarioTime.D()))
}

// writePassive prints the passive validation of the IUT's envelopes: the
// verdict, then a line per broken rule.
func writePassive(w io.Writer, p palette, rep *report.Report) {
	pv := rep.Passive
	fmt.Fprintf(w, "Passive validation of everything the IUT published: %s  %s, %d invalid", p.outcome(pv.Outcome), plural.Count(pv.Envelopes, "envelope"), pv.Invalid)
	if pv.Charged > 0 {
		fmt.Fprintf(w, " (%d of them answered a scenario's exchange: the finding names it)", pv.Charged)
	}
	if pv.Dropped > 0 {
		fmt.Fprintf(w, ", %d dropped by the broker", pv.Dropped)
	}
	fmt.Fprintln(w)
	for _, f := range pv.Findings {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("    %-6s %-28s ×%-4d %s", f.Level, f.Rule, f.Count, firstLine(f.Example)), " "))
		if len(f.Scenarios) > 0 {
			fmt.Fprintf(w, "           in the exchange of %s\n", strings.Join(f.Scenarios, ", "))
		}
		if c := clauseLine(f.Level, findingText(f)); c != "" {
			fmt.Fprintf(w, "           %s\n", p.faint.Sprint(c))
		}
	}
}

// runVerdict is the run's verdict in a word or two.
func runVerdict(rep *report.Report) string {
	switch {
	case rep.Error != "" && rep.IUT.PeerID == "":
		return "NOT RUN"
	case rep.Error != "":
		return "ERROR"
	case rep.Summary.Passed:
		return "PASSED"
	}
	return "NOT PASSED"
}

// runCounts is the run's outcome counts, the baseline's with them.
func runCounts(rep *report.Report) string {
	s := rep.Summary
	return fmt.Sprintf("%d pass, %d fail, %d warn, %d skip, %d error%s", s.Pass, s.Fail, s.Warn, s.Skip, s.Error, baselineVerdict(rep))
}

// VerdictLine is the one line a run whose report goes to files leaves in
// the log (standard error): the verdict, the counts, the claim and where
// the report went, so that a CI log always shows how the run ended.
func VerdictLine(rep *report.Report, written ...string) string {
	rep = sanitize.Copy(rep, ruleType)
	written = sanitize.Copy(written)
	line := fmt.Sprintf("aghcheck run: %s  %s; claim earned: %s (target %s)", runVerdict(rep), runCounts(rep), rep.Summary.Claim, rep.Summary.Target)
	if u := rep.Summary.UnstableLine(); u != "" {
		line += "; " + u
	}
	if len(written) > 0 {
		line += "; written to " + strings.Join(written, " and ")
	}
	return line
}

// exercised prints, per claim, how many of its requirements the run
// exercised and which it did not, with why (every one with -v).
func (t *runText) exercised(rep *report.Report) {
	limit := 8
	if t.o.Verbose {
		limit = 0
	}
	header := false
	first := map[string]string{} // claims built on one another share gaps: name them once
	for _, c := range rep.Claims {
		if len(c.Exercised)+len(c.NotExercised) == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(t.w, "\nRequirements exercised, by claim:")
			header = true
		}
		line := exercisedLine(c, limit)
		head := plural.Count(len(c.Exercised), "requirement") + " exercised"
		if gaps := strings.TrimPrefix(line, head); gaps != "" {
			if name, ok := first[gaps]; ok {
				line = fmt.Sprintf("%s, %d not (the same as %s)", head, len(c.NotExercised), name)
			} else {
				first[gaps] = c.Name
			}
		}
		fmt.Fprintf(t.w, "  %s: %s\n", c.Name, t.p.faint.Sprint(line))
	}
}

// stderrTail prints the last lines the IUT wrote to stderr, if any.
func (t *runText) stderrTail(rep *report.Report) {
	if rep.IUT.Stderr != "" {
		fmt.Fprintf(t.w, "IUT stderr (tail):\n%s\n", indent(tailLines(rep.IUT.Stderr, 15), "    "))
	}
}

// readingsText is the readings line of a report: the other readings of
// errata the run judged by and how many scenarios they changed ("" when
// the run judged by the pages' default readings alone).
func readingsText(rep *report.Report) string {
	if len(rep.Readings) == 0 {
		return ""
	}
	n := 0
	for _, sc := range rep.Scenarios {
		if len(sc.Readings) > 0 {
			n++
		}
	}
	return fmt.Sprintf("%s (docs/errata.md): %s judged in the form the readings give", strings.Join(rep.Readings, ", "), plural.Count(n, "scenario"))
}

// writeAdapterOwned lists the requirements whose verdict comes from the
// adapter's own code (run --owned-by-adapter), with their verdicts: they
// say nothing about the runtime the adapter wraps.
func writeAdapterOwned(w io.Writer, p palette, rep *report.Report) {
	a := rep.AdapterOwned
	if a == nil {
		return
	}
	outcome := map[string]report.Outcome{}
	for _, r := range rep.Requirements {
		outcome[r.ID] = r.Outcome
	}
	fmt.Fprintf(w, "\nVerdicts from the adapter's own code, not the runtime's (%s, %s):\n", a.Adapter, a.File)
	for _, r := range a.Requirements {
		o, ok := outcome[r.ID]
		if !ok {
			o = report.Skip
		}
		fmt.Fprintf(w, "  %s %-30s %s\n", p.outcome(o), r.ID, p.faint.Sprint(r.Why))
	}
}
