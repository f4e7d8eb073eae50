package peer

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/testwait"
	"github.com/nats-io/nats-server/v2/server"
)

// reconnectFaultCases are the behaviour tests of the faults seen only
// across a dropped broker connection.
var reconnectFaultCases = []faultCase{
	{faultNoRegreet, nil, func(t *testing.T, r *rig) {
		dropPeer(t, r)
		// Back and serving, without a greet before or after.
		w := r.work("after the drop")
		r.send(w)
		deadline := time.Now().Add(wait)
		for traces := 0; traces < 2; {
			env, _ := r.next(time.Until(deadline))
			switch {
			case env == nil:
				t.Fatalf("the peer did not serve after reconnecting")
			case env["kind"] == "greet":
				t.Fatalf("greeted after reconnecting: %s", mustJSON(env))
			case env["kind"] == "trace":
				traces++
			}
		}
		if env, _ := r.next(quiet); env != nil && env["kind"] == "greet" {
			t.Fatalf("greeted after reconnecting: %s", mustJSON(env))
		}
	}},
}

// dropPeer has the broker close the reference peer's connection and waits
// until the peer has connected again.
func dropPeer(t *testing.T, r *rig) {
	t.Helper()
	// A new connection is listed before the client has sent its
	// subscriptions again: work published in between would be lost, so the
	// peer counts as back only once its own subject is subscribed.
	own := agh.PeerSubject(testWS, testChannel, r.peerID)
	peerConn := func() uint64 {
		cz, err := r.srv.Connz(&server.ConnzOptions{Subscriptions: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cz.Conns {
			if strings.HasPrefix(c.Name, "aghcheck peer ") && slices.Contains(c.Subs, own) {
				return c.Cid
			}
		}
		return 0
	}
	old := peerConn()
	if old == 0 {
		t.Fatal("the peer's connection is not at the broker")
	}
	if err := r.srv.DisconnectClientByID(old); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, wait, func() bool {
		cid := peerConn()
		return cid != 0 && cid != old
	}, "the peer to reconnect")
}
