package reporter

import (
	"context"
	"encoding/json"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/report"
)

// htmlFixture is the run fixture plus what only the HTML page shows: a
// requirements table, an envelope long enough to be clipped, bytes that are
// not JSON, and text that must be escaped.
func htmlFixture() *report.Report {
	rep := runFixture()
	rep.Requirements = []report.RequirementResult{
		{ID: "DELIV-DEDUPE", Level: "SHOULD", Outcome: report.Warn, Scenarios: []string{"delivery.duplicate-id"}},
		{ID: "LIFE-CORRELATION", Level: "MUST", Outcome: report.Pass, Scenarios: []string{"lifecycle.work-completes"}},
		{ID: "NATS-PUBLISH-SUBJECT", Level: "MUST", Outcome: report.Fail, Scenarios: []string{"nats.directed-replies-on-peer-subject"}},
		{ID: "TRUST-RX-ACCEPT-VERIFIED", Level: "MUST", Outcome: report.Skip, Scenarios: []string{"trust.signed-work-accepted"}},
	}
	sc := rep.Scenarios[1]
	sc.Title = `Replies on the <peer> subject & "not" the broadcast`
	sc.Peers = map[string]string{"alice": "alice.0001"}
	big := `{"kind":"trace","id":"msg_big","body":{"state":"working","text":"` + strings.Repeat("é", 3000) + `"}}`
	sc.Exchanged = append(sc.Exchanged,
		&report.ExchangedEntry{At: report.Millis(104 * time.Millisecond), Direction: "received", Subject: "agh.network.v0.aghcheck-0001.conformance.peer.def",
			Envelope: json.RawMessage(big)},
		&report.ExchangedEntry{At: report.Millis(105 * time.Millisecond), Direction: "received", Subject: "agh.network.v0.aghcheck-0001.conformance.broadcast",
			Raw: `"<script>alert(1)</script>"`, Findings: []string{"error INPUT-JSON-SYNTAX: not JSON"}})
	return rep
}

func TestRunHTMLGolden(t *testing.T) {
	page := string(writeRun(t, "html", htmlFixture(), Options{}))
	golden.Check(t, filepath.Join("testdata", "run_html.golden"), []byte(page))

	for _, want := range []string{
		"NOT PASSED", "claim earned: <b>Core Receiver</b>", // the verdict
		`<a class="cell fail" href="#sc-nats.directed-replies-on-peer-subject"`, // the grid links a failure to its details
		`<span class="cell pass" title="lifecycle.work-completes: PASS">work-completes</span>`,
		"3 of 4 tested (75%)", // coverage
		`<details class="scenario fail" id="sc-nats.directed-replies-on-peer-subject" open>`,
		"<h5>expected</h5><pre>{\n  &#34;kind&#34;: &#34;receipt&#34;\n}</pre>", // pretty-printed pattern
		"receipt(accepted) msg_1 from iut.0001 on",                              // what arrived
		"Replies on the &lt;peer&gt; subject &amp; &#34;not&#34; the broadcast", // escaped
		"&#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;",
		"clipped after 4,096 bytes; the envelope is 6,068 bytes",
		"trace working · msg_big",
		"alice → IUT", "IUT → channel",
		"<summary>2 requirements exercised, 3 not</summary>", // per claim
		"<code>LIFE-WORK-CLOSED</code>: not selected by --run",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Self-contained: nothing is fetched.
	for _, banned := range []string{"<link", " src=", "url(", "@import", "@font-face"} {
		if strings.Contains(page, banned) {
			t.Errorf("page refers to an outside resource: %q", banned)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Error("IUT bytes reached the page unescaped")
	}
}

// The page as a browser shows it: Debian's Chromium renders it headless and
// its DOM carries the verdict, the claims, a failure and its comparison.
// Skipped where Chromium is not installed (make html-check does the same
// on a real failing run).
func TestRunHTMLInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install -y chromium)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, writeRun(t, "html", htmlFixture(), Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	// One run both takes the screenshot and prints the DOM after scripts ran.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	shot := filepath.Join(dir, "report.png")
	out, err := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--hide-scrollbars", "--window-size=1280,2000", "--screenshot="+shot, "--dump-dom", "file://"+page).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 20000 {
		t.Errorf("screenshot: %v (%v)", st, err)
	}
	dom := string(out)
	for _, want := range []string{"NOT PASSED", "Core Receiver", "NATS Peer", `id="sc-nats.directed-replies-on-peer-subject"`,
		"<h5>expected</h5>", "<h5>arrived</h5>", "Exchanged envelopes"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q", want)
		}
	}
}

// Every in-page link of the page resolves to an element of it: the grid's
// cells (a failure, a skip with its reason, the line of the scenarios
// --run left out), the requirements' scenarios, the killers, the menu.
func TestRunHTMLLinksResolve(t *testing.T) {
	rep := htmlFixture()
	rep.Scenarios = append(rep.Scenarios,
		&report.ScenarioResult{ID: "jetstream.ack-not-receipt", Suite: "jetstream", Level: "MUST", Claim: "jetstream",
			Outcome: report.Skip, Message: "the IUT does not advertise profile agh-network.nats-jetstream/v0"},
		&report.ScenarioResult{ID: "delivery.garbage-survived", Suite: "core/delivery", Level: "MUST", Claim: "core-receiver",
			Outcome: report.Error, Message: "interrupted: the IUT died"},
		// An id html/template escapes in an href (%2b), as a browser decodes it.
		&report.ScenarioResult{ID: "receiver.ENV-A+ENV-B.both", Suite: "receiver", Level: "MUST", Claim: "core-receiver",
			Outcome: report.Fail, Message: "accepted"})
	rep.Requirements = append(rep.Requirements,
		report.RequirementResult{ID: "NATS-JETSTREAM-ACK-NOT-RECEIPT", Level: "MUST", Outcome: report.Skip, Scenarios: []string{"jetstream.ack-not-receipt"}})
	rep.IUT.Killers = []report.Killer{{Scenario: "delivery.garbage-survived", Message: "kills the IUT when played alone"},
		{Scenario: "lifecycle.work-completes", Message: "killed it once, not when played alone"}}
	rep.IUT.Events = []report.LifeEvent{{Kind: report.LifeExited, Cause: "exit status 2"}}
	page := string(writeRun(t, "html", rep, Options{}))
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[html.UnescapeString(m[1])] = true
	}
	hrefs := regexp.MustCompile(` href="#([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(hrefs) < 10 {
		t.Fatalf("only %d in-page links: the pattern no longer finds them", len(hrefs))
	}
	for _, want := range []string{"not-selected", "sc-jetstream.ack-not-receipt", "sc-delivery.garbage-survived", "sc-receiver.ENV-A%2bENV-B.both"} {
		if !slices.ContainsFunc(hrefs, func(m []string) bool { return m[1] == want }) {
			t.Errorf("no link to #%s", want)
		}
	}
	for _, m := range hrefs {
		// A browser percent-decodes the fragment before it looks for the id.
		frag, err := url.PathUnescape(html.UnescapeString(m[1]))
		if err != nil || !ids[frag] {
			t.Errorf("href=%q links to nothing on the page", "#"+m[1])
		}
	}
	if strings.Contains(page, ">"+report.NotSelected+"</td>") || !strings.Contains(page, `<p id="not-selected" class="muted">1 scenario not selected by --run.</p>`) {
		t.Error("the scenarios --run left out are not summed up on one line")
	}
}
