package monitor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/fatih/color"

	"github.com/aghcheck/aghcheck/internal/plural"
	"github.com/aghcheck/aghcheck/internal/rules"
	"github.com/aghcheck/aghcheck/internal/sanitize"
	"github.com/aghcheck/aghcheck/internal/workflowcmd"
)

// Formats are the output formats of NewSink: live (a refreshed summary
// for a terminal), text (a line per finding), json (JSON lines) and github
// (workflow annotations).
var Formats = []string{"live", "text", "json", "github"}

// NewSink returns the writer for format; color enables ANSI colours.
// Every sink sees findings and summaries whose strings went through the
// sanitiser: peer ids, subjects, ids and texts are the peers' to choose.
func NewSink(format string, w io.Writer, color bool) (Sink, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	p := painter{on: color}
	switch format {
	case "live":
		return cleanSink{&liveSink{w: bw, p: p}, sanitize.Copy[Finding], sanitize.Copy[*Summary]}, nil
	case "text":
		return cleanSink{&textSink{w: bw, p: p}, sanitize.Copy[Finding], sanitize.Copy[*Summary]}, nil
	case "json":
		// The encoder escapes what a string holds; the writer what JSON
		// leaves raw that a terminal would obey. Secrets are taken out.
		enc := json.NewEncoder(sanitize.NewJSONWriter(bw))
		enc.SetEscapeHTML(false)
		return cleanSink{&jsonSink{w: bw, enc: enc}, sanitize.CopyRedacted[Finding], sanitize.CopyRedacted[*Summary]}, nil
	case "github":
		return cleanSink{&githubSink{w: bw, seen: map[string]bool{}}, sanitize.Copy[Finding], sanitize.Copy[*Summary]}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// The rule catalogue is aghcheck's own: shared, not copied.
var ruleType = reflect.TypeOf((*rules.Rule)(nil))

// cleanSink hands its sink sanitised copies.
type cleanSink struct {
	s       Sink
	finding func(Finding, ...reflect.Type) Finding
	summary func(*Summary, ...reflect.Type) *Summary
}

func (c cleanSink) Finding(f Finding)      { c.s.Finding(c.finding(f, ruleType)) }
func (c cleanSink) Tick(s *Summary)        { c.s.Tick(c.summary(s, ruleType)) }
func (c cleanSink) Close(s *Summary) error { return c.s.Close(c.summary(s, ruleType)) }

// line renders a finding on one line.
func line(f *Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %s", f.Rule.Severity, f.Rule.ID, sender(f), f.At.UTC().Format("15:04:05.000"))
	if f.ID != "" {
		fmt.Fprintf(&b, " %s %s", f.Kind, f.ID)
	}
	if f.WorkID != "" {
		fmt.Fprintf(&b, " (%s)", f.WorkID)
	}
	fmt.Fprintf(&b, " on %s: %s", f.Subject, f.Finding.Detail())
	return b.String()
}

type textSink struct {
	w *bufio.Writer
	p painter
}

func (s *textSink) Finding(f Finding) { fmt.Fprintln(s.w, s.p.severity(f.Rule.Severity, line(&f))) }
func (s *textSink) Tick(*Summary)     { _ = s.w.Flush() }
func (s *textSink) Close(sum *Summary) error {
	writeSummary(s.w, sum, s.p, 0)
	return s.w.Flush()
}

type jsonSink struct {
	w   *bufio.Writer
	enc *json.Encoder
}

type jsonFinding struct {
	Type     string    `json:"type"`
	At       time.Time `json:"at"`
	Peer     string    `json:"peer"`
	Subject  string    `json:"subject"`
	ID       string    `json:"id,omitempty"`
	Kind     string    `json:"kind,omitempty"`
	WorkID   string    `json:"work_id,omitempty"`
	Rule     string    `json:"rule"`
	Level    string    `json:"level"`
	Severity string    `json:"severity"`
	Pointer  string    `json:"pointer,omitempty"`
	Expected string    `json:"expected,omitempty"`
	Found    string    `json:"found,omitempty"`
	Message  string    `json:"message,omitempty"`
	Clause   string    `json:"clause"`
}

func (s *jsonSink) Finding(f Finding) {
	_ = s.enc.Encode(jsonFinding{Type: "finding", At: f.At.UTC(), Peer: f.Peer, Subject: f.Subject, ID: f.ID, Kind: f.Kind,
		WorkID: f.WorkID, Rule: f.Rule.ID, Level: f.Rule.Severity.Level(), Severity: f.Rule.Severity.String(),
		Pointer: f.Pointer, Expected: f.Expected, Found: f.Found, Message: f.Message, Clause: f.Rule.Clause})
}
func (s *jsonSink) Tick(*Summary) { _ = s.w.Flush() }
func (s *jsonSink) Close(sum *Summary) error {
	_ = s.enc.Encode(struct {
		Type string `json:"type"`
		*Summary
	}{"summary", sum})
	return s.w.Flush()
}

// githubSink annotates the first finding of each rule from each peer (the
// runner shows only so many annotations), then summarises.
type githubSink struct {
	w    *bufio.Writer
	seen map[string]bool
}

func (s *githubSink) Finding(f Finding) {
	k := f.Rule.ID + "\x00" + f.Peer
	if s.seen[k] || len(s.seen) >= 1000 {
		return
	}
	s.seen[k] = true
	cmd := "error"
	if f.Rule.Severity == rules.Warning {
		cmd = "warning"
	}
	title := f.Rule.ID
	if f.Peer != "" {
		title += " " + f.Peer
	}
	fmt.Fprintln(s.w, workflowcmd.Annotation(cmd, title, line(&f)+"\n"+f.Rule.Severity.Level()+": "+f.Rule.Clause))
}
func (s *githubSink) Tick(*Summary) { _ = s.w.Flush() }
func (s *githubSink) Close(sum *Summary) error {
	writeSummary(s.w, sum, painter{}, 0)
	return s.w.Flush()
}

// liveSink redraws the summary on a terminal once a tick, with the latest
// findings under it; the final summary stays on screen.
type liveSink struct {
	w      *bufio.Writer
	p      painter
	recent []string
}

const liveRecent = 8

func (s *liveSink) Finding(f Finding) {
	s.recent = append(s.recent, s.p.severity(f.Rule.Severity, line(&f)))
	if len(s.recent) > 4*liveRecent {
		s.recent = append(s.recent[:0], s.recent[len(s.recent)-liveRecent:]...)
	}
}

func (s *liveSink) Tick(sum *Summary) {
	// Home, draw, clear what the last frame left below.
	s.w.WriteString("\x1b[H\x1b[2J")
	writeSummary(s.w, sum, s.p, 12)
	if len(s.recent) > 0 {
		fmt.Fprintln(s.w, "latest findings:")
		for _, l := range s.recent[max(0, len(s.recent)-liveRecent):] {
			fmt.Fprintln(s.w, "  "+l)
		}
	}
	_ = s.w.Flush()
}

func (s *liveSink) Close(sum *Summary) error {
	s.w.WriteString("\x1b[H\x1b[2J")
	writeSummary(s.w, sum, s.p, 0)
	return s.w.Flush()
}

// writeSummary prints the summary; rows > 0 limits the rule and peer tables.
func writeSummary(w io.Writer, s *Summary, p painter, rows int) {
	what := s.Subject
	if s.Shard != "" {
		what += " shard " + s.Shard
	}
	if s.Stream != "" {
		what += " from stream " + s.Stream + " (consumer " + s.Durable + ")"
	}
	fmt.Fprintf(w, "aghcheck monitor: %s on %s for %s\n", what, s.URL, s.Elapsed.Round(time.Second))
	replayed := ""
	if s.Replayed > 0 {
		replayed = fmt.Sprintf("; %d replayed to restore the state judged before a restart", s.Replayed)
	}
	fmt.Fprintf(w, "judged %s of %d delivered (%s), %s/s; %s%s\n",
		plural.Count(int(s.Judged), "envelope"), s.Delivered, p.count(s.Dropped, "dropped"), rate(s.Rate), plural.Count(s.Repeats, "repeat"), replayed)
	fmt.Fprintf(w, "%s, %s; %s followed (%d open), %s (%d expired); peak heap %.1f MiB\n",
		p.errors(s.Errors), p.warnings(s.Warnings), plural.Count(s.Tracker.Units, "work unit"), s.Tracker.Open,
		plural.Count(s.Tracker.Peers, "peer"), s.Expired, float64(s.PeakHeap)/(1<<20))
	if len(s.Rules) > 0 {
		fmt.Fprintln(w, "rules:")
		for i, r := range s.Rules {
			if rows > 0 && i == rows {
				fmt.Fprintf(w, "  … %d more\n", len(s.Rules)-rows)
				break
			}
			sev := rules.Error
			if r.Level == "SHOULD" {
				sev = rules.Warning
			}
			fmt.Fprintf(w, "  %s %8d  %s\n", p.severity(sev, fmt.Sprintf("%-7s", sev)), r.Count, r.Rule)
		}
	}
	if len(s.Peers) > 0 {
		fmt.Fprintln(w, "peers:")
		width := 0
		for _, pc := range s.Peers {
			width = max(width, len(pc.Peer))
		}
		for i, pc := range s.Peers {
			if rows > 0 && i == rows {
				fmt.Fprintf(w, "  … %d more\n", len(s.Peers)-rows)
				break
			}
			state := ""
			if pc.Expired {
				state = "  presence expired"
			}
			fmt.Fprintf(w, "  %-*s %18s  %s  %s%s\n", width, pc.Peer, plural.Count(pc.Envelopes, "envelope"),
				p.errors(pc.Errors), p.warnings(pc.Warnings), state)
		}
		if s.OtherPeers > 0 {
			fmt.Fprintf(w, "  (%s from peers past the first %d)\n", plural.Count(s.OtherPeers, "envelope"), maxPeers)
		}
	}
}

// rate renders envelopes per second: whole numbers, but a rate under one
// a second keeps a decimal rather than reading as nothing.
func rate(r float64) string {
	if r > 0 && r < 10 {
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.0f", r)
}

type painter struct{ on bool }

func (p painter) paint(attr color.Attribute, s string) string {
	if !p.on {
		return s
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(s)
}

func (p painter) severity(sev rules.Severity, s string) string {
	if sev == rules.Warning {
		return p.paint(color.FgYellow, s)
	}
	return p.paint(color.FgRed, s)
}

func (p painter) errors(n int) string {
	s := plural.Count(n, "error")
	if n == 0 {
		return p.paint(color.FgGreen, s)
	}
	return p.paint(color.FgRed, s)
}

func (p painter) warnings(n int) string {
	s := plural.Count(n, "warning")
	if n == 0 {
		return s
	}
	return p.paint(color.FgYellow, s)
}

func (p painter) count(n int, what string) string {
	s := fmt.Sprintf("%d %s", n, what)
	if n == 0 {
		return s
	}
	return p.paint(color.FgRed, s)
}
