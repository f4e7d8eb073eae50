package proctest

import (
	"os"
	"os/exec"
	"testing"
)

func TestRunningAndParent(t *testing.T) {
	if !Running(os.Getpid()) || Parent(os.Getpid()) != os.Getppid() {
		t.Fatalf("this process: running %v, parent %d (want %d)", Running(os.Getpid()), Parent(os.Getpid()), os.Getppid())
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if pid := cmd.Process.Pid; Running(pid) || Parent(pid) != 0 {
		t.Errorf("a reaped child: running %v, parent %d", Running(pid), Parent(pid))
	}
}
