package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/brokertest"
	"github.com/aghcheck/aghcheck/internal/iutenv"
	"github.com/aghcheck/aghcheck/internal/peer"
	"github.com/aghcheck/aghcheck/internal/testwait"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// syncBuffer is a bytes.Buffer the peer's logger and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func execPeer(ctx context.Context, args ...string) (string, string, error) {
	var out, errb syncBuffer
	cmd := newPeerCmd()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	return out.String(), errb.String(), err
}

func TestPeerListFaults(t *testing.T) {
	out, _, err := execPeer(context.Background(), "--list-faults")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range peer.Faults() {
		if !strings.Contains(out, f.Name) || !strings.Contains(out, f.Description) {
			t.Errorf("--list-faults lacks %s", f.Name)
		}
	}
}

func TestPeerUsageErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"unknown fault", []string{"--nats-url", "nats://127.0.0.1:1", "--workspace", "ws", "--fault", "nope"}},
		{"key and seed", []string{"--key", "k", "--seed", "00"}},
		{"nickname without key", []string{"--nickname", "n"}},
		{"bad seed", []string{"--seed", "xyz"}},
		{"bad greet interval", []string{"--greet-interval", "never"}},
		{"no url", []string{"--workspace", "ws"}},
		{"bad slow duration", []string{"--nats-url", "nats://127.0.0.1:1", "--workspace", "ws", "--fault", "slow:soon"}},
		{"unknown crash input", []string{"--nats-url", "nats://127.0.0.1:1", "--workspace", "ws", "--fault", "crash-on:nothing"}},
		{"bad deaf count", []string{"--nats-url", "nats://127.0.0.1:1", "--workspace", "ws", "--fault", "deaf-after:-3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(iutenv.NATSURL, "")
			t.Setenv(iutenv.WorkspaceID, "")
			_, _, err := execPeer(context.Background(), c.args...)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitUsageErr {
				t.Fatalf("want exit %d, got %v", exitUsageErr, err)
			}
		})
	}
}

// A start-up file of initiation orders the peer cannot use, named by
// AGH_INITIATE or --orders, is a usage error of one line, before it
// connects anywhere.
func TestPeerBadOrders(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "orders.json")
	if err := os.WriteFile(bad, []byte(`{"orders":[{"to":"alice.1","kind":"whois","surface":"thread"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		env  string
		args []string
		want string
	}{
		"AGH_INITIATE":       {env: bad, want: `order 1: kind "whois" is not say or capability`},
		"--orders":           {args: []string{"--orders", bad}, want: `order 1: kind "whois"`},
		"--orders wins":      {env: filepath.Join(dir, "fine-but-absent.json"), args: []string{"--orders", bad}, want: "order 1"},
		"no such file":       {args: []string{"--orders", filepath.Join(dir, "absent.json")}, want: "read orders"},
		"not an orders file": {args: []string{"--orders", "peer_test.go"}, want: "orders peer_test.go"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(iutenv.Initiate, c.env)
			_, _, err := execPeer(context.Background(), append([]string{"--nats-url", "nats://127.0.0.1:1", "--workspace", "ws"}, c.args...)...)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitUsageErr || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("want exit %d with one line saying %q, got %v", exitUsageErr, c.want, err)
			}
		})
	}
}

// With no flags the peer reads the IUT environment; flags win over it.
func TestPeerEnvAndFlags(t *testing.T) {
	s := brokertest.Start(t, &server.Options{Authorization: "tok"})

	t.Setenv(iutenv.NATSURL, s.ClientURL())
	t.Setenv(iutenv.NATSToken, "tok")
	t.Setenv(iutenv.WorkspaceID, "ws_env")
	t.Setenv(iutenv.Channel, "chan-env")
	t.Setenv(iutenv.PeerID, "env.peer")

	nc, err := nats.Connect(s.ClientURL(), nats.Token("tok"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(agh.BroadcastSubject("ws_env", "chan-env"))
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		stderr string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, err := execPeer(ctx, "--peer-id", "flag.peer", "--greet-interval", "60")
		done <- result{stderr, err}
	}()
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		cancel()
		t.Fatalf("no greet: %v (%v)", err, <-done)
	}
	if !strings.Contains(string(m.Data), `"from":"flag.peer"`) {
		t.Errorf("greet does not come from the --peer-id: %s", m.Data)
	}
	cancel()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("peer exited with %v", r.err)
		}
		if !strings.Contains(r.stderr, "msg=joined") || !strings.Contains(r.stderr, "msg=stopped") {
			t.Errorf("stderr lacks the join/stop lines:\n%s", r.stderr)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("peer did not stop on cancel")
	}
}

// TestPeerHelperProcess is not a test: TestPeerSignals runs the test binary
// again with it selected, to get a real `aghcheck peer` process.
func TestPeerHelperProcess(t *testing.T) {
	if os.Getenv("AGHCHECK_PEER_HELPER") != "1" {
		t.Skip("helper process only")
	}
	args := []string{"peer"}
	if f := os.Getenv("AGHCHECK_PEER_FAULT"); f != "" {
		args = append(args, "--fault", f)
	}
	os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
}

// A real peer process stops cleanly, exit 0, on SIGTERM and SIGINT.
func TestPeerSignals(t *testing.T) {
	s := brokertest.Start(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(agh.BroadcastSubject("ws_sig", peer.DefaultChannel))
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPeerHelperProcess$")
			cmd.Env = append(os.Environ(), "AGHCHECK_PEER_HELPER=1",
				iutenv.NATSURL+"="+s.ClientURL(), iutenv.WorkspaceID+"=ws_sig", iutenv.Channel+"=", iutenv.PeerID+"=sig.peer")
			var stderr syncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if _, err := sub.NextMsg(10 * time.Second); err != nil {
				_ = cmd.Process.Kill()
				t.Fatalf("no greet from the peer process: %v\n%s", err, stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("peer exited with %v after %v\n%s", err, sig, stderr.String())
				}
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("peer still running 5s after %v", sig)
			}
		})
	}
}

// A peer process that crash-on trips prints a panic with its stack trace
// and exits 2, as an unhandled Go panic does; one that disconnect-on trips
// prints an error with its stack trace, leaves the broker and lingers
// until signalled.
func TestPeerDies(t *testing.T) {
	s := brokertest.Start(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(agh.BroadcastSubject("ws_die", peer.DefaultChannel))
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	// start runs a peer process with fault and sends it garbage once it
	// has greeted.
	start := func(t *testing.T, fault string) (*exec.Cmd, <-chan error, *syncBuffer) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeerHelperProcess$")
		cmd.Env = append(os.Environ(), "AGHCHECK_PEER_HELPER=1", "AGHCHECK_PEER_FAULT="+fault,
			iutenv.NATSURL+"="+s.ClientURL(), iutenv.WorkspaceID+"=ws_die", iutenv.Channel+"=", iutenv.PeerID+"=die.peer")
		var stderr syncBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited, waited := make(chan error, 1), make(chan struct{})
		go func() { exited <- cmd.Wait(); close(waited) }()
		t.Cleanup(func() {
			select {
			case <-waited:
			default:
				_ = cmd.Process.Kill()
				<-waited
			}
		})
		if _, err := sub.NextMsg(10 * time.Second); err != nil {
			t.Fatalf("no greet from the peer process: %v\n%s", err, stderr.String())
		}
		if err := nc.Publish(agh.PeerSubject("ws_die", peer.DefaultChannel, "die.peer"), []byte("garbage")); err != nil {
			t.Fatal(err)
		}
		return cmd, exited, &stderr
	}

	t.Run("crash-on", func(t *testing.T) {
		_, exited, stderr := start(t, "crash-on:garbage")
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != peer.CrashExitCode {
				t.Fatalf("peer exited with %v, want status %d\n%s", err, peer.CrashExitCode, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("peer still running 10s after the garbage")
		}
		out := stderr.String()
		if !strings.Contains(out, "\npanic: crash-on:garbage: received bytes that are not a JSON object\n\ngoroutine ") {
			t.Errorf("stderr lacks the panic and its stack trace:\n%s", out)
		}
	})
	t.Run("disconnect-on", func(t *testing.T) {
		cmd, exited, stderr := start(t, "disconnect-on:garbage")
		if !testwait.Until(10*time.Second, func() bool { return strings.Contains(stderr.String(), "msg=\"connection closed for good") }) {
			t.Fatalf("the peer did not close its connection:\n%s", stderr.String())
		}
		cz, err := s.Connz(&server.ConnzOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cz.Conns {
			if strings.HasPrefix(c.Name, "aghcheck peer ") {
				t.Errorf("the peer's connection %d is still open", c.Cid)
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("peer exited (%v); it must linger until signalled\n%s", err, stderr.String())
		case <-time.After(300 * time.Millisecond):
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("peer exited with %v after SIGTERM\n%s", err, stderr.String())
			}
		case <-time.After(5 * time.Second):
			t.Fatal("peer still running 5s after SIGTERM")
		}
		if out := stderr.String(); !strings.Contains(out, "error in message handler: disconnect-on:garbage") || !strings.Contains(out, "\ngoroutine ") {
			t.Errorf("stderr lacks the error and its stack trace:\n%s", out)
		}
	})
}
