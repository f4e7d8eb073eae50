package harness

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The mutation matrix proves each scenario can fail; the stability check
// proves each fault is caught every time, also with the peer slowed and
// the machine loaded. A fault caught on some runs only is a defect of the
// scenario that should catch it: the order of two independent events (the
// peer's clock, the harness's round trip) decides its verdict. Until it is
// fixed it is listed in unstableFaults, with why, and docs/mutation.md
// names it.
//
// make test plays every hand-written fault once more under load
// (TestMutationScore plays it plain, at the same time); make stability
// plays every fault AGHCHECK_STABILITY times (5), plain and loaded in
// turn, with more of them at once.

// unstableFaults are the faults known to be caught on some runs only, by
// name, with the scenario at fault and why. Empty: every fault is caught
// on every run.
var unstableFaults = map[string]string{}

// load is how one run of the stability check plays a fault.
type load struct {
	// slow is added to the fault as slow:DURATION: every reply late.
	slow time.Duration
	// parallel is the run's --parallel (0: the test default).
	parallel int
}

func (l load) faults() string {
	if l.slow == 0 {
		return ""
	}
	return ",slow:" + l.slow.String()
}

func (l load) String() string {
	var parts []string
	if l.slow > 0 {
		parts = append(parts, "slow:"+l.slow.String())
	}
	if l.parallel > 0 {
		parts = append(parts, fmt.Sprintf("--parallel %d", l.parallel))
	}
	if len(parts) == 0 {
		return "plain"
	}
	return strings.Join(parts, ", ")
}

// loads are the runs of the full check, in turn; the cheap check plays
// the first alone. Every scenario of a fault at once (--parallel 1000)
// with every reply late is the most the peer is asked at one time.
var loads = []load{
	{slow: 50 * time.Millisecond, parallel: 1000},
	{},
	{slow: 200 * time.Millisecond, parallel: 1000},
	{parallel: 1000},
	{slow: 20 * time.Millisecond},
}

// stabilityRuns is how many runs the check plays of each fault: 1 in make
// test, AGHCHECK_STABILITY in make stability.
func stabilityRuns(t *testing.T) int {
	v := os.Getenv("AGHCHECK_STABILITY")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("AGHCHECK_STABILITY=%q: want a number of runs, 1 or more", v)
	}
	return n
}

// Every fault the mutation test catches is caught on every run of the
// stability check; a derived fault that is a gap stays one on every run.
func TestMutationStability(t *testing.T) {
	t.Parallel()
	runs := stabilityRuns(t)
	all := loadSuites(t)
	live := liveRequirements(all)
	ms := mutants(t, live)
	at := 8 // faults played at once: more in the full check, which loads the machine
	if runs > 1 {
		at = 16
	} else {
		// The cheap form plays the hand-written faults: a derived fault
		// corrupts one rule's member of every message it sends, the
		// same on every run, while the hand-written ones act on the
		// order and the timing of exchanges, where a scenario can let
		// the machine decide. make stability plays them all.
		ms = slices.DeleteFunc(ms, func(m *mutant) bool { return m.derived })
	}
	caught := make([][]bool, len(ms))
	errs := make([][]string, len(ms))
	sem := make(chan struct{}, at)
	var wg sync.WaitGroup
	for k, m := range ms {
		caught[k], errs[k] = make([]bool, runs), make([]string, runs)
		for run := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				c := &mutant{fault: m.fault, derived: m.derived, load: loads[run%len(loads)]}
				judge(t, c, all, live)
				caught[k][run], errs[k][run] = len(c.caught) > 0, c.err
			}()
		}
	}
	wg.Wait()

	held := 0
	defer func() {
		used := make([]string, runs)
		for run := range runs {
			used[run] = loads[run%len(loads)].String()
		}
		t.Logf("stability: %d of %d faults held on all %d runs (%s)", held, len(ms), runs, strings.Join(used, "; "))
	}()
	for k, m := range ms {
		var missed []string
		for run := range runs {
			if errs[k][run] != "" {
				t.Errorf("fault %s, run %d (%s): %s", m.fault.Name, run+1, loads[run%len(loads)], errs[k][run])
			}
			if !caught[k][run] {
				missed = append(missed, fmt.Sprintf("run %d (%s)", run+1, loads[run%len(loads)]))
			}
		}
		n := runs - len(missed)
		if len(missed) == 0 || n == 0 && m.derived {
			held++
		}
		switch {
		case m.derived && n == 0:
			// A gap, on every run: docs/mutation.md lists it.
		case len(missed) == 0:
			if _, listed := unstableFaults[m.fault.Name]; listed && runs > 1 {
				t.Logf("fault %s, listed as unstable, was caught on all %d runs", m.fault.Name, runs)
			}
		case unstableFaults[m.fault.Name] != "":
			t.Logf("fault %s (known unstable: %s) caught on %d of %d runs, not on %s", m.fault.Name, unstableFaults[m.fault.Name], n, runs, strings.Join(missed, ", "))
		default:
			t.Errorf("fault %s caught on %d of %d runs, not on %s: a scenario lets timing decide (fix it, or list it in unstableFaults)",
				m.fault.Name, n, runs, strings.Join(missed, ", "))
		}
	}
}

// stabilityDoc is the Stability section of docs/mutation.md.
func stabilityDoc() string {
	var b strings.Builder
	b.WriteString(`
## Stability

The matrix proves each scenario *can* fail; the stability check (TestMutationStability,
harness/stability_test.go) proves each fault is caught *every time*, also with the peer slowed
and the machine loaded: every fault above is played again, and a fault caught is caught on each
run. ` + "`make test`" + ` plays each hand-written fault once more while TestMutationScore plays it
plain: with every reply ` + loads[0].slow.String() + ` late (` + "`slow:`" + `) and all its scenarios at once (a derived
` + "`emit:`" + ` or ` + "`overlook:`" + ` fault breaks one member of every message, the same on every run).
` + "`make stability`" + ` plays every fault 5 times, in turn ` + loadList() + `, 16 faults at once. A
derived fault that is a gap must stay one on every run.

A fault caught on some runs only is a defect of the scenario that should catch it (the order of
two independent events decides its verdict), listed here until it is fixed.

`)
	if len(unstableFaults) == 0 {
		b.WriteString("**Unstable faults: none.** Every fault is caught on every run.\n")
		return b.String()
	}
	b.WriteString("| fault | why it is caught on some runs only |\n| --- | --- |\n")
	names := make([]string, 0, len(unstableFaults))
	for n := range unstableFaults {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "| `%s` | %s |\n", n, unstableFaults[n])
	}
	return b.String()
}

func loadList() string {
	parts := make([]string, len(loads))
	for i, l := range loads {
		parts[i] = l.String()
	}
	return strings.Join(parts, "; ")
}
