// Package proctest answers what tests ask about other processes (from
// Linux's /proc): whether one still runs, and who its parent is.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// stat is /proc/PID/stat after the command name (which may hold spaces
// and parentheses): state, ppid, ...
func stat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// Running reports whether pid runs; a zombie awaiting its reaper does not.
func Running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	f := stat(pid)
	return len(f) > 0 && f[0] != "Z"
}

// Parent is pid's parent process id (0 when pid is gone).
func Parent(pid int) int {
	f := stat(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
