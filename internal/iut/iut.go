// Package iut starts and stops the implementation under test: a command run
// in its own process group with the harness contract in its environment, its
// output captured, and the whole group (plus every descendant seen while it
// ran) always killed at the end. On Linux the kernel also kills it if the
// harness itself dies.
package iut

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// watchEvery is how often the IUT's descendants are recorded.
const watchEvery = 250 * time.Millisecond

// OutputLimit is how much of each of stdout and stderr is kept (the tail):
// a flooding IUT must not exhaust the harness's memory.
const OutputLimit = 256 << 10

// Split breaks a command line into arguments the way a POSIX shell would for
// plain words, single quotes, double quotes and backslash escapes. It does
// not expand anything: the IUT is started directly, not through a shell.
func Split(line string) ([]string, error) {
	var (
		args   []string
		cur    strings.Builder
		inWord bool
		quote  rune
		escape bool
	)
	for _, r := range line {
		switch {
		case escape:
			cur.WriteRune(r)
			escape = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escape = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escape, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escape {
		return nil, fmt.Errorf("unterminated quote or escape in %q", line)
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty IUT command")
	}
	return args, nil
}

// Join is the inverse of Split: argv as one line a POSIX shell (and Split)
// reads back as the same words, for reports that name the command.
func Join(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quote(a)
	}
	return strings.Join(words, " ")
}

func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Process is a running IUT.
type Process struct {
	Argv   []string
	cmd    *exec.Cmd
	stdout *tail
	stderr *tail
	done   chan struct{}

	mu      sync.Mutex
	waitErr error
	stopped bool // true once the harness asked it to stop
	// tracked holds every descendant seen while the IUT ran (pid → start
	// time): one that left the process group (setsid) and lost its parent
	// is out of reach of the group kill, but not of Stop.
	tracked   map[int]uint64
	mainStart uint64
}

// Start runs argv with env appended to the harness's own environment, in a
// new process group (on Linux with a parent-death signal, and with its
// descendants recorded while it runs).
func Start(argv []string, env []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty IUT command")
	}
	p := &Process{Argv: argv, stdout: &tail{}, stderr: &tail{}, done: make(chan struct{}), tracked: map[int]uint64{}}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = p.stdout
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = sysProcAttr()
	// A grandchild holding the pipes open must not hang Wait.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start IUT %q: %w", argv[0], err)
	}
	p.cmd = cmd
	p.mainStart, _ = startTime(cmd.Process.Pid)
	if tracksDescendants {
		go p.watch()
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// Pid is the IUT's process id (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the IUT's main process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the main process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Status describes how the process ended ("" while it runs).
func (p *Process) Status() string {
	if !p.Exited() {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.cmd.ProcessState
	if st == nil {
		return fmt.Sprint(p.waitErr)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "terminated by signal " + signalName(ws.Signal())
	}
	return fmt.Sprintf("exit status %d", st.ExitCode())
}

// signalNames are the signals an IUT is commonly ended by, as kill(1)
// names them (syscall only describes them: "terminated", "killed").
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGSYS: "SIGSYS",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return fmt.Sprintf("%d (%s)", int(s), s)
}

// ExitCode is the exit code, -1 while running or when killed by a signal.
func (p *Process) ExitCode() int {
	if !p.Exited() || p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// StoppedByHarness reports whether the harness ended the process (so its
// death is not a crash).
func (p *Process) StoppedByHarness() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// Stop asks the whole process group to terminate (SIGTERM), waits up to
// grace for the main process, then SIGKILLs the group. The group is killed
// even when the main process already exited, so no child survives the run.
func (p *Process) Stop(grace time.Duration) {
	p.mu.Lock()
	p.stopped = !p.Exited()
	p.mu.Unlock()
	pgid := -p.cmd.Process.Pid
	if !p.Exited() {
		p.record()
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	<-p.done
	p.sweep()
}

// watch records the IUT's descendants until its main process exits.
func (p *Process) watch() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		p.record()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
}

func (p *Process) record() {
	pid := p.cmd.Process.Pid
	// Once reaped, the pid may name another process: never list its children.
	if st, ok := startTime(pid); !ok || st != p.mainStart || p.Exited() {
		return
	}
	d := descendants(pid)
	p.mu.Lock()
	defer p.mu.Unlock()
	for c, st := range d {
		p.tracked[c] = st
	}
}

// sweep kills every recorded descendant still running (same pid, same
// start time): those that escaped the process group kill.
func (p *Process) sweep() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pid, st := range p.tracked {
		if now, ok := startTime(pid); ok && now == st {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// Stdout and Stderr return the captured output (the last OutputLimit bytes).
func (p *Process) Stdout() string { return p.stdout.String() }
func (p *Process) Stderr() string { return p.stderr.String() }

// tail keeps the last OutputLimit bytes written to it.
type tail struct {
	mu        sync.Mutex
	buf       []byte
	truncated bool
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - OutputLimit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.truncated {
		return "[… earlier output dropped]\n" + string(t.buf)
	}
	return string(t.buf)
}
