//go:build unix && !linux

package iut

import "syscall"

// sysProcAttr starts the IUT in its own process group. Only Linux has a
// parent-death signal: elsewhere an aghcheck killed with SIGKILL leaves the
// IUT running.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

const tracksDescendants = false

func descendants(int) map[int]uint64 { return nil }

func startTime(int) (uint64, bool) { return 0, false }
