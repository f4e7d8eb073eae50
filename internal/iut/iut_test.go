package iut

import (
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/proctest"
	"github.com/aghcheck/aghcheck/internal/testwait"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
		bad  bool
	}{
		{name: "words", in: "aghcheck peer", want: []string{"aghcheck", "peer"}},
		{name: "quotes-and-escapes", in: "  a   'b c'  \"d \\\"e\\\"\" f\\ g ", want: []string{"a", "b c", `d "e"`, "f g"}},
		{name: "empty-argument", in: "x ''", want: []string{"x", ""}},
		{name: "empty", in: "", bad: true},
		{name: "unterminated-quote", in: "a 'b", bad: true},
		{name: "trailing-backslash", in: `a \`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.in)
			if (err != nil) != tc.bad {
				t.Errorf("Split(%q) err=%v", tc.in, err)
				return
			}
			if !tc.bad && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	for _, tc := range []struct {
		name string
		argv []string
		want string
	}{
		{"plain", []string{"aghcheck", "peer", "--fault", "no-dedupe"}, "aghcheck peer --fault no-dedupe"},
		{"space", []string{"sh", "-c", "exit 4"}, "sh -c 'exit 4'"},
		{"empty-quote-dollar", []string{"x", "", "it's", "$HOME"}, `x '' 'it'\''s' '$HOME'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Join(tc.argv); got != tc.want {
				t.Errorf("Join(%q) = %s, want %s", tc.argv, got, tc.want)
			}
			if back, err := Split(Join(tc.argv)); err != nil || !reflect.DeepEqual(back, tc.argv) {
				t.Errorf("Split(Join(%q)) = %q, %v", tc.argv, back, err)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	f.Add(`a 'b c' "d\"e" f\ g`)
	f.Fuzz(func(t *testing.T, s string) {
		args, err := Split(s)
		if err != nil {
			return
		}
		if len(args) == 0 {
			t.Fatal("no error and no args")
		}
		// Reports name the command with Join: it must read back the same.
		if back, err := Split(Join(args)); err != nil || !reflect.DeepEqual(back, args) {
			t.Fatalf("Split(Join(%q)) = %q, %v", args, back, err)
		}
	})
}

func TestStopKillsWholeGroup(t *testing.T) {
	// The shell starts a grandchild that ignores SIGTERM and prints its pid.
	p, err := Start([]string{"sh", "-c", `trap '' TERM; sleep 30 & echo child=$!; echo AGH=$AGH_X >&2; wait`}, []string{"AGH_X=1"})
	if err != nil {
		t.Fatal(err)
	}
	// Fails below, naming what was read, if no pid comes.
	testwait.Until(5*time.Second, func() bool { return strings.Contains(p.Stdout(), "child=") })
	var child int
	for _, line := range strings.Split(p.Stdout(), "\n") {
		if v, ok := strings.CutPrefix(line, "child="); ok {
			for _, c := range v {
				child = child*10 + int(c-'0')
			}
		}
	}
	if child == 0 {
		t.Fatalf("no child pid in %q", p.Stdout())
	}
	p.Stop(100 * time.Millisecond)
	if !p.StoppedByHarness() {
		t.Error("not marked as stopped by the harness")
	}
	// Stop returns once the group was killed; the grandchild's death (and
	// its reaping by init) may take a moment more.
	if !testwait.Until(5*time.Second, func() bool { return !proctest.Running(child) }) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Fatal("grandchild survived Stop")
	}
	if !strings.Contains(p.Stderr(), "AGH=1") {
		t.Errorf("environment or stderr capture missing: %q", p.Stderr())
	}
}

func TestExitAtOnce(t *testing.T) {
	p, err := Start([]string{"sh", "-c", "exit 3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("exit not noticed")
	}
	if p.ExitCode() != 3 || p.Status() != "exit status 3" {
		t.Fatalf("code %d status %q", p.ExitCode(), p.Status())
	}
	p.Stop(time.Millisecond)
	if p.StoppedByHarness() {
		t.Error("a process that exited by itself was marked as stopped by the harness")
	}
}

func TestTailKeepsEnd(t *testing.T) {
	var tl tail
	tl.Write([]byte(strings.Repeat("a", OutputLimit)))
	tl.Write([]byte("END"))
	s := tl.String()
	if !strings.HasSuffix(s, "END") || !strings.HasPrefix(s, "[") || len(s) > OutputLimit+64 {
		t.Fatalf("tail wrong: len %d", len(s))
	}
}

func TestStartMissingBinary(t *testing.T) {
	if _, err := Start([]string{"/nonexistent/aghcheck-iut"}, nil); err == nil {
		t.Fatal("no error for a missing binary")
	}
}

// How a process ended reads as a person would say it, with the signal's
// name: "terminated by signal SIGTERM", not "killed by terminated".
func TestStatusNamesSignal(t *testing.T) {
	for _, tc := range []struct {
		sig  string
		want string
	}{
		{"TERM", "terminated by signal SIGTERM"},
		{"KILL", "terminated by signal SIGKILL"},
		{"SEGV", "terminated by signal SIGSEGV"},
	} {
		t.Run(tc.sig, func(t *testing.T) {
			p, err := Start([]string{"sh", "-c", "kill -" + tc.sig + " $$"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("no exit")
			}
			if got := p.Status(); got != tc.want {
				t.Errorf("status %q, want %q", got, tc.want)
			}
			p.Stop(time.Millisecond)
		})
	}
}

func TestCheckLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want string // "" when the line is fine
	}{
		{"plain", "./my-agent --join", ""},
		{"quoted-pipe", `grep 'a|b' file`, ""},
		{"assignment", "FOO=1 ./agent", `"FOO=1" is an environment assignment, but the IUT command is started directly, not by a shell; use --iut "env FOO=1 ./agent" (or set it in aghcheck's environment)`},
		{"pipe", "./agent | tee log", `"|" is shell syntax (a pipe), but the IUT command is started directly, not by a shell; wrap it: --iut "sh -c './agent | tee log'"`},
		{"list", "./agent && echo done", `"&&" is shell syntax (a list)`},
		{"redirection", "./agent 2>err.log", `"2>err.log" is shell syntax (a redirection)`},
		{"variable", "./agent --url $AGH_NATS_URL", `"$AGH_NATS_URL" is shell syntax (a variable or command substitution)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv, err := Split(tc.line)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckLine(tc.line, argv)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s: %v", tc.line, err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("%s: error %v, want %s", tc.line, err, tc.want)
			}
		})
	}
}

func TestRunnable(t *testing.T) {
	dir := t.TempDir()
	plain := dir + "/plain"
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, prog, want string }{
		{"on-path", "sh", ""},
		{"missing-file", "/nonexistent/agent", `"/nonexistent/agent": no such file`},
		{"not-on-path", "no-such-agent-on-path", `"no-such-agent-on-path" is not a command on PATH`},
		{"not-executable", plain, `"` + plain + `" is not executable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Runnable(tc.prog)
			if (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
				t.Errorf("Runnable(%s) = %v, want %q", tc.prog, err, tc.want)
			}
		})
	}
}
