package iutenv

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	abs, err := filepath.Abs("ci.creds")
	initAbs, _ := filepath.Abs("orders.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ in, want Env }{
		"embedded": {
			in: Env{URL: "nats://127.0.0.1:4222", Token: "t0k", Workspace: "aghcheck-1a2b", Channel: "conformance", PeerID: "iut.1a2b"},
		},
		"external with creds": {
			in:   Env{URL: "nats://a:4222,nats://b:4222", User: "u", Password: "p=w", Creds: "ci.creds", Workspace: "ws", Channel: "c", PeerID: "p"},
			want: Env{URL: "nats://a:4222,nats://b:4222", User: "u", Password: "p=w", Creds: abs, Workspace: "ws", Channel: "c", PeerID: "p"},
		},
		"initiation orders": {
			in:   Env{URL: "nats://x", Initiate: "orders.json"},
			want: Env{URL: "nats://x", Initiate: initAbs},
		},
		"greet interval": {
			in: Env{URL: "nats://x", GreetInterval: "0.5"},
		},
		"empty": {},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want := c.want
			if want == (Env{}) {
				want = c.in
			}
			env := c.in.Environ()
			if got := Parse(env); got != want {
				t.Errorf("Parse(Environ()) = %+v, want %+v", got, want)
			}
			m := map[string]string{}
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				m[k] = v
			}
			if got := Read(func(k string) string { return m[k] }); got != want {
				t.Errorf("Read(Environ()) = %+v, want %+v", got, want)
			}
		})
	}
}

// Every variable but GreetInterval is always present, so that an IUT never
// inherits a stale value from the shell that started aghcheck.
func TestEveryVariableSet(t *testing.T) {
	var keys []string
	for _, kv := range (Env{}).Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keys = append(keys, k)
	}
	want := []string{NATSURL, NATSToken, NATSUser, NATSPassword, NATSCreds, WorkspaceID, Channel, PeerID, Initiate}
	if !slices.Equal(keys, want) {
		t.Errorf("Environ keys = %v, want %v", keys, want)
	}
}

func TestParseLaterWins(t *testing.T) {
	got := Parse([]string{"AGH_CHANNEL=a", "NOT_OURS=x", "AGH_CHANNEL=b"})
	if got.Channel != "b" {
		t.Errorf("Channel = %q, want the later value b", got.Channel)
	}
}
