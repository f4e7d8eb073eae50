//go:build unix

package validate

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe given by name is read when something writes to it, and
// refused with a clear error after PipeWait when nothing does (it used to
// block forever).
func TestNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fed, idle := filepath.Join(dir, "fed.fifo"), filepath.Join(dir, "idle.fifo")
	for _, p := range []string{fed, idle} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	go func() {
		f, err := os.OpenFile(fed, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.WriteString(`{"tiny":1,"ok":true}` + "\n")
	}()
	v := newTestValidator(t, Options{PipeWait: 300 * time.Millisecond})
	var srcs []string
	sum, err := v.Run(context.Background(), []Input{{Path: idle}, {Path: fed}}, func(d *Document) error {
		srcs = append(srcs, d.Source)
		return nil
	})
	if sum.Valid != 1 || !reflect.DeepEqual(srcs, []string{fed}) {
		t.Errorf("sum=%+v srcs=%v", sum, srcs)
	}
	if err == nil || !strings.Contains(err.Error(), "idle.fifo: a named pipe (FIFO) that nothing wrote to for 300ms") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
}
