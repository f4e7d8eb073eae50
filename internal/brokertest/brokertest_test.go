package brokertest

import (
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// A started server is on loopback, takes clients with its options'
// credentials and no others, and is gone once its test has ended.
func TestStart(t *testing.T) {
	t.Parallel()
	var s *server.Server
	t.Run("running", func(t *testing.T) {
		s = Start(t, &server.Options{Authorization: "tok"})
		if host := s.Addr().String(); !strings.HasPrefix(host, "127.0.0.1:") {
			t.Fatalf("listening on %s, want loopback", host)
		}
		nc, err := nats.Connect(s.ClientURL(), nats.Token("tok"))
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
		if nc, err := nats.Connect(s.ClientURL(), nats.Token("wrong")); err == nil {
			nc.Close()
			t.Fatal("a wrong token was let in")
		}
	})
	if s.Running() {
		t.Fatal("the server outlived its test")
	}
}
