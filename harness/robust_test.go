package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/testiut"
)

func TestIUTNeverGreets(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "hang", config{Target: Target{GreetTimeout: 500 * time.Millisecond}})
	if rep.Error == "" || !strings.Contains(rep.Error, "did not greet") {
		t.Fatalf("error %q", rep.Error)
	}
	if rep.Summary.Passed || rep.Summary.Error == 0 {
		t.Errorf("summary %+v", rep.Summary)
	}
	// Nothing is played at a peer that never joined: no scenario waits out
	// its steps.
	for _, sc := range rep.Scenarios {
		if len(sc.Steps) > 0 || len(sc.Exchanged) > 0 {
			t.Errorf("%s was played (%d steps) at an IUT that never greeted", sc.ID, len(sc.Steps))
		}
	}
}

func TestIUTExitsAtOnce(t *testing.T) {
	t.Parallel()
	// A greet timeout longer than the test's own: a run that waited it out
	// instead of seeing the exit would never end.
	rep := runAgainst(t, "exit", config{Target: Target{GreetTimeout: time.Hour}})
	if !strings.Contains(rep.Error, "exited before greeting (exit status 3): iut: giving up at once") {
		t.Fatalf("error %q", rep.Error)
	}
}

func TestSilentIUTFails(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "silent", config{Target: Target{StepTimeout: 300 * time.Millisecond}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if rep.Summary.Fail == 0 || rep.Summary.Passed {
		t.Fatalf("summary %+v", rep.Summary)
	}
	for _, sc := range rep.Scenarios {
		if sc.ID == "lifecycle.work-completes" && (sc.Outcome != report.Fail || !strings.Contains(sc.Message, "nothing arrived")) {
			t.Errorf("%s: %s %s", sc.ID, sc.Outcome, sc.Message)
		}
	}
}

// An IUT that crashes shortly after every start, whatever it is sent:
// each death is named (exited, with its status and stderr), the
// interrupted scenarios are played again after each restart, the deaths
// are found to come at the same uptime with nothing sent, so no scenario
// is blamed, and what could not be played once the restarts are used up is
// an error.
func TestCrashingIUT(t *testing.T) {
	t.Parallel()
	rep := runAgainst(t, "crash", config{Target: Target{StepTimeout: 5 * time.Second, MaxRestarts: 3}})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if !rep.IUT.Crashed || !strings.Contains(rep.IUT.Stderr, "simulated crash") {
		t.Errorf("crash not recorded: %+v", rep.IUT.Exit)
	}
	exits, timed := 0, false
	for _, ev := range rep.IUT.Events {
		if ev.Kind == report.LifeExited && strings.Contains(ev.Cause, "exit status 2") && strings.Contains(strings.Join(ev.Stderr, "\n"), "simulated crash") {
			exits++
		}
		timed = timed || strings.Contains(ev.Blame, "whatever is sent")
	}
	// The 3 restarts allowed after deaths, and the one that checked a
	// fresh IUT sent nothing.
	if exits < 2 || rep.IUT.Restarts < 3 || !timed {
		t.Errorf("%d exits named with status and stderr, %d restarts, timed %v; want several, the 3 restarts allowed, and the deaths found to come whatever is sent", exits, rep.IUT.Restarts, timed)
	}
	for _, sc := range rep.Scenarios {
		switch sc.Outcome {
		case report.Fail:
			t.Errorf("%s fails with %q; a death that comes whatever is sent blames no scenario", sc.ID, sc.Message)
		case report.Error:
			if !strings.HasPrefix(sc.Message, "not played") {
				t.Errorf("%s: error %q, want not played", sc.ID, sc.Message)
			}
		}
	}
	if len(rep.IUT.Killers) > 0 || !rep.Summary.Incomplete || rep.Summary.Passed {
		t.Errorf("summary %+v, killers %v: want no killer and an incomplete run that earns nothing", rep.Summary, rep.IUT.Killers)
	}
	// Waiting scenarios end on each crash, not on their step timeout.
	if waited := ceilingEnded(rep); len(waited) > 0 {
		t.Errorf("steps that waited out a ceiling: %v", waited)
	}
}

func TestFloodingIUT(t *testing.T) {
	t.Parallel()
	// The harness validates each IUT message until the limit, which under
	// -race on a busy machine takes milliseconds apiece: a limit of a few
	// hundred is reached well inside the run however slow the checks are.
	// The hand-written suites only: a flooded harness works through every
	// scenario's inbox, and the generated receiver cases would multiply
	// that without saying more about floods.
	var scs []*scenario.Scenario
	for _, sc := range loadSuites(t) {
		if !strings.HasPrefix(sc.ID, "receiver.") {
			scs = append(scs, sc)
		}
	}
	rep := runAgainst(t, "flood", config{Target: Target{StepTimeout: 300 * time.Millisecond, FloodLimit: 400}, Scenarios: scs})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if !rep.Passive.Flooded || rep.Passive.Outcome != report.Fail || rep.Summary.Passed {
		t.Fatalf("flood not reported: passive %+v", rep.Passive.Outcome)
	}
}

func TestMalformedBytesFromIUT(t *testing.T) {
	t.Parallel()
	// The scenarios runAgainst plays a misbehaving IUT, less the one that
	// drops its connection (nats.greet-after-reconnect): this IUT never
	// greets again, and its two explicit 5 s waits would double the test's
	// time for a verdict nothing here looks at.
	scs := slices.DeleteFunc(loadSuites(t), func(sc *scenario.Scenario) bool {
		return strings.HasPrefix(sc.ID, "receiver.") || sc.Alone()
	})
	rep := runAgainst(t, "garbage", config{Target: Target{StepTimeout: 300 * time.Millisecond}, Scenarios: scs})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if rep.Passive.Outcome != report.Fail || rep.Passive.Invalid == 0 {
		t.Fatalf("passive %+v", rep.Passive)
	}
	found := false
	for _, f := range rep.Passive.Findings {
		found = found || f.Rule == "INPUT-UTF8" || f.Rule == "INPUT-JSON-SYNTAX"
	}
	if !found {
		t.Errorf("findings %+v", rep.Passive.Findings)
	}
	for _, sc := range rep.Scenarios {
		if sc.ID == "lifecycle.work-completes" {
			if sc.Outcome != report.Fail {
				t.Errorf("%s %s", sc.Outcome, sc.Message)
			}
			raw := false
			for _, e := range sc.Exchanged {
				raw = raw || (e.Direction == "received" && e.Raw != "")
			}
			if !raw {
				t.Error("the garbage is not in the scenario's transcript")
			}
		}
	}
}

// No cross-talk: many copies of the same scenarios run at once, each must
// pass and see only envelopes addressed to its own test peers.
func TestParallelScenariosIsolated(t *testing.T) {
	// Not parallel: many scenarios against one peer, under step ceilings
	// that the other tests' load would decide.
	base := loadSuites(t)
	var scs []*scenario.Scenario
	for copyN := range 4 {
		for _, sc := range base {
			if !strings.HasPrefix(sc.ID, "lifecycle.") && !strings.HasPrefix(sc.ID, "delivery.") {
				continue
			}
			c := *sc
			c.ID = sc.ID + ".copy" + strconv.Itoa(copyN)
			scs = append(scs, &c)
		}
	}
	rep := runAgainst(t, "peer", config{Scenarios: scs, Level: "core"})
	dump(t, rep)
	if rep.Summary.Fail+rep.Summary.Error+rep.Summary.Warn > 0 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	for _, sc := range rep.Scenarios {
		mine := map[string]bool{}
		for _, id := range sc.Peers {
			mine[id] = true
		}
		for _, e := range sc.Exchanged {
			if e.Direction != "received" || e.Envelope == nil {
				continue
			}
			var env struct {
				To   *string `json:"to"`
				Kind string  `json:"kind"`
			}
			_ = json.Unmarshal(e.Envelope, &env)
			if env.Kind != "greet" && (env.To == nil || !mine[*env.To]) {
				t.Errorf("%s saw an envelope for someone else: %s", sc.ID, e.Envelope)
			}
		}
	}
}

func TestNoIUTProcessLeft(t *testing.T) {
	rep := runAgainst(t, "peer", config{Scenarios: loadSuites(t)[:1]})
	if rep.Error != "" {
		t.Fatal(rep.Error)
	}
	if rep.IUT.Exit == "" {
		t.Fatal("exit status not recorded")
	}
	// Nothing in /proc may still run the IUT binary in IUT mode.
	exe := testiut.Self(t)
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), "AGHCHECK_TEST_IUT=") {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(p, "/")[2])
		if pid == os.Getpid() {
			continue
		}
		if link, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe")); link == exe && !zombie(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("IUT process %d survived the run", pid)
		}
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func TestUsageErrors(t *testing.T) {
	_, err := runConfig(t.Context(), config{Target: Target{Command: []string{"x"}}, Level: "gold"})
	var he *HarnessError
	if !errors.As(err, &he) {
		t.Fatalf("err %v", err)
	}
	if _, err := runConfig(t.Context(), config{}); !errors.As(err, &he) {
		t.Fatalf("no IUT: err %v", err)
	}
}

// What an IUT that dies before greeting said is quoted by the line that
// names its error, not by whatever its runtime prints last.
func TestLastLineNamesTheError(t *testing.T) {
	for _, tc := range []struct{ name, stderr, want string }{
		{"node module missing", "node:internal/modules/esm/resolve:873\n  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);\n        ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'nats' imported from /x/peer.js\n    at packageResolve (node:internal/modules/esm/resolve:873:9)\n\nNode.js v20.20.2\n",
			": Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'nats' imported from /x/peer.js"},
		{"last line", "starting\niut: giving up at once\n", ": iut: giving up at once"},
		{"nothing said", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastLine(tc.stderr); got != tc.want {
				t.Errorf("lastLine(%q) = %q, want %q", tc.stderr, got, tc.want)
			}
		})
	}
}

// ceilingEnded names the steps of rep that ended because a ceiling ran
// out (--step-timeout or the scenario's --timeout) rather than on what the
// IUT did.
func ceilingEnded(rep *report.Report) []string {
	var out []string
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if strings.Contains(st.Message, "ceiling") {
				out = append(out, fmt.Sprintf("%s step %d", sc.ID, st.Index))
			}
		}
	}
	return out
}
