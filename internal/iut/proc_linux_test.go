package iut

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/proctest"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

// A grandchild that starts its own session escapes the process-group kill;
// once its parent has exited it is no longer below the IUT either. Stop
// still kills it, because it was recorded while the IUT ran.
func TestStopKillsEscapedDescendant(t *testing.T) {
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	p, err := Start([]string{"sh", "-c", `(setsid sleep 60 & echo child=$!; while [ ! -e "$1" ]; do sleep 0.02; done); sleep 60`, "iut", release}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var child int
	testwait.Eventually(t, 10*time.Second, func() bool {
		_, v, ok := strings.Cut(p.Stdout(), "child=")
		child, _ = strconv.Atoi(strings.TrimSpace(v))
		return ok && child > 0 && strings.HasSuffix(v, "\n")
	}, "the grandchild's pid")
	defer syscall.Kill(child, syscall.SIGKILL)
	testwait.Eventually(t, 10*time.Second, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		_, ok := p.tracked[child]
		return ok
	}, "the watcher to record the grandchild")
	// Its parent (the subshell) exits: the grandchild is reparented.
	parent := proctest.Parent(child)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, 10*time.Second, func() bool { return proctest.Parent(child) != parent }, "the grandchild to lose its parent")
	p.Stop(100 * time.Millisecond)
	testwait.Eventually(t, 10*time.Second, func() bool { return !proctest.Running(child) }, "the escaped grandchild to die")
}

// A recorded pid that now names another process (same pid, other start
// time) is left alone.
func TestSweepSparesRecycledPid(t *testing.T) {
	p, err := Start([]string{"sh", "-c", "exit 0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	self := os.Getpid()
	st, ok := startTime(self)
	if !ok {
		t.Fatal("no start time for this process")
	}
	p.tracked[self] = st + 1
	p.Stop(time.Millisecond) // would SIGKILL this test if the start time were ignored
}
