package iut

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr starts the IUT in its own process group and asks the kernel
// to SIGKILL it when the harness dies, so an aghcheck killed by a CI
// timeout or the OOM killer does not leave the IUT running. The signal is
// tied to the thread that forked; Go only retires threads of goroutines
// that exit while locked to them, which the harness never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// tracksDescendants is true where descendants can be listed.
const tracksDescendants = true

// descendants lists every process below pid, with its start time so that a
// recycled pid is never mistaken for one of them.
func descendants(pid int) map[int]uint64 {
	out := map[int]uint64{}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			if _, seen := out[c]; seen || c == pid {
				continue
			}
			if st, ok := startTime(c); ok {
				out[c] = st
				queue = append(queue, c)
			}
		}
	}
	return out
}

// children reads /proc/PID/task/*/children (every thread may have forked).
func children(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(w); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// startTime is field 22 of /proc/PID/stat: when the process started, in
// clock ticks since boot.
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	return st, err == nil
}
