//go:build unix

package main

import (
	"os"
	"syscall"
	"unsafe"
)

// terminalColumns asks the terminal behind f how wide it is (0 when f is
// not a terminal or does not say).
func terminalColumns(f *os.File) int {
	var ws struct{ rows, cols, x, y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return 0
	}
	return int(ws.cols)
}
