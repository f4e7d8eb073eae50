package scenario

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/golden"
	"github.com/aghcheck/aghcheck/internal/jsontest"
)

func decode(t testing.TB, s string) any { t.Helper(); return jsontest.Decode(t, []byte(s)) }

func TestMatch(t *testing.T) {
	env := `{"kind":"receipt","ts":1776366182,"to":"alice.x","reply_to":null,"channel":"other","body":{"status":"rejected","reason_code":"busy","tags":["a","b"]}}`
	for _, tc := range []struct {
		name string
		pat  string
		ok   bool
		why  string
	}{
		{"kind", `{"kind":"receipt"}`, true, ""},
		{"kind-differs", `{"kind":"trace"}`, false, `/kind: want "trace", got "receipt"`},
		{"number-forms", `{"ts":1776366182.0}`, true, ""},
		{"in", `{"body":{"status":{"$in":["accepted","rejected"]}}}`, true, ""},
		{"absent-but-present", `{"body":{"reason_code":{"$absent":true}}}`, false, "/body/reason_code: want absent"},
		{"absent", `{"reply_to":{"$absent":true},"proof":{"$absent":true}}`, true, ""},
		{"present-but-missing", `{"proof":{"$present":true}}`, false, "/proof: missing"},
		{"contains", `{"body":{"tags":{"$contains":"b"}}}`, true, ""},
		{"array-differs", `{"body":{"tags":["a"]}}`, false, "/body/tags"},
		{"regex", `{"to":{"$regex":"^alice\\."}}`, true, ""},
		{"ne", `{"body":{"status":{"$ne":"accepted"}}}`, true, ""},
		{"type", `{"body":{"$type":"object"}}`, true, ""},
		{"member-missing", `{"body":{"missing":1}}`, false, "/body/missing: missing"},
		{"gt", `{"ts":{"$gt":1776366181}}`, true, ""},
		{"gt-equal", `{"ts":{"$gt":1776366182}}`, false, "/ts: want a number greater than 1776366182,"},
		{"lt", `{"ts":{"$lt":1776366183}}`, true, ""},
		{"lt-not-number", `{"to":{"$lt":5}}`, false, "/to: want a number less than"},
		{"gt-missing", `{"expires_at":{"$gt":1}}`, false, "/expires_at"},
		// The status decides before the reason code it implies, the kind
		// before anything, and a container difference is named as such.
		{"status-before-reason", `{"body":{"reason_code":{"$absent":true},"status":"accepted"}}`, false, `/body/status: want "accepted", got "rejected"; /body/reason_code: want absent`},
		{"kind-first", `{"body":{"status":"accepted"},"kind":"trace","to":"bob"}`, false, `/kind: want "trace", got "receipt"; /body/status`},
		{"more-missing-counted", `{"body":{"a":1,"b":2,"c":3,"d":4}}`, false, "/body/c: missing; 1 more"},
		{"container-missing", `{"thread_id":"thread_a"}`, false, "/thread_id: missing"},
		{"other-channel", `{"channel":"conformance"}`, false, `/channel: want "conformance", got "other" (another channel)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := Match(decode(t, tc.pat), decode(t, env))
			if ok != tc.ok || !strings.Contains(why, tc.why) {
				t.Errorf("Match(%s) = %v %q, want %v %q", tc.pat, ok, why, tc.ok, tc.why)
			}
		})
	}
}

func TestRender(t *testing.T) {
	now := time.Unix(1776366000, 0)
	ctx := &Context{Workspace: "ws_alpha", Channel: "builders", IUT: "patch-worker.session-19", Tag: "abc",
		Peers:    map[string]*TestPeer{"alice": {Name: "alice", ID: "ops-coordinator.session-42"}},
		Captures: map[string]any{"card": map[string]any{"peer_id": "x"}},
		Now:      func() time.Time { return now }}
	v, err := ctx.Render(map[string]any{
		"ts": "{{now}}", "exp": "{{ now+60 }}", "id": "{{id.open}}", "w": "{{work.w}}", "t": "{{thread.t}}",
		"d": "{{direct.alice}}", "route": "{{iut.route}}", "text": "hi {{peer.alice}} at {{now-1}}", "card": "{{capture.card}}",
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(v)
	want := `{"card":{"peer_id":"x"},"d":"direct_a610973e3c0d915853982f4bfe1534e8","exp":1776366060,"id":"msg_abc_open","route":"c1cc4fe4b7b176627e58384f1a402819","t":"thread_abc_t","text":"hi ops-coordinator.session-42 at 1776365999","ts":1776366000,"w":"work_abc_w"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, bad := range []string{"{{nope}}", "{{peer.bob}}", "{{capture.none}}", "{{now*2}}", "{{id}}", "{{pad.x}}"} {
		t.Run(strings.Trim(bad, "{}"), func(t *testing.T) {
			if _, err := ctx.Render(bad); err == nil {
				t.Errorf("%s rendered without error", bad)
			}
		})
	}
}

// Golden problems for the files in testdata/bad: each line of want.txt is
// one problem lint must report.
func TestParseProblems(t *testing.T) {
	set := LoadFS(os.DirFS("testdata/bad"), ".", "bad/")
	var got []string
	for _, p := range set.Problems {
		got = append(got, p.String())
	}
	sort.Strings(got)
	golden.Check(t, filepath.Join("testdata", "bad.golden"), []byte(strings.Join(got, "\n")+"\n"))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"scenarios: []",
		"scenarios:\n  - id: abc\n    title: t\n    requirements: [SAY-TEXT]\n    level: MUST\n    claim: core-receiver\n    steps: [{wait: 1ms}]\n",
		"{{{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scs, probs := Parse("fuzz.yaml", data, "fuzz")
		// Line breaks as YAML counts them.
		lines := 1
		for _, b := range []string{"\r\n", "\n", "\r", "\u0085", "\u2028", "\u2029"} {
			lines += strings.Count(string(data), b)
		}
		for _, p := range probs {
			if p.Line < 0 || p.Line > lines+1 || p.Column < 0 { // an empty document sits on the line after
				t.Fatalf("problem placed at %d:%d in %d lines: %s", p.Line, p.Column, lines, p)
			}
		}
		if len(probs) == 0 {
			for _, sc := range scs {
				if sc.ID == "" || len(sc.Steps) == 0 {
					t.Fatalf("accepted an incomplete scenario: %+v", sc)
				}
			}
		}
	})
}

func FuzzMatch(f *testing.F) {
	f.Add(`{"a":{"$in":[1,"x"]}}`, `{"a":1}`)
	f.Fuzz(func(t *testing.T, pat, val string) {
		var p, v any
		if json.Unmarshal([]byte(pat), &p) != nil || json.Unmarshal([]byte(val), &v) != nil {
			return
		}
		ok, why := Match(p, v)
		if ok != (why == "") {
			t.Fatalf("ok=%v why=%q", ok, why)
		}
	})
}
