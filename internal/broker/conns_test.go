package broker

import (
	"testing"
	"time"

	"github.com/aghcheck/aghcheck/internal/testwait"
)

// Every connection but the one left out is listed, open or closed, and
// one is told by its id, never by the name its client gave: a client that
// calls itself what the harness does is still listed, and its close with
// the broker's reason.
func TestConnsListsEveryClientByID(t *testing.T) {
	b, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	harness, err := b.Connect("aghcheck-harness")
	if err != nil {
		t.Fatal(err)
	}
	defer harness.Close()
	self, err := harness.GetClientID()
	if err != nil {
		t.Fatal(err)
	}
	impostor, err := b.Connect("aghcheck-harness")
	if err != nil {
		t.Fatal(err)
	}
	other, err := b.Connect("")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	cid, _ := impostor.GetClientID()
	impostor.Close()

	var conns []Conn
	testwait.Eventually(t, 5*time.Second, func() bool {
		if conns, err = b.Conns(self, ""); err != nil {
			t.Fatal(err)
		}
		return len(conns) == 2 && conns[0].Open() != conns[1].Open()
	}, "connections %+v, want the impostor closed and the other open", &conns)
	// The closed one and the open one, whatever order the broker lists
	// them in.
	if conns[0].Open() {
		conns[0], conns[1] = conns[1], conns[0]
	}
	c := conns[0]
	if c.CID != cid || c.Name != "aghcheck-harness" || c.Reason != "Client Closed" || c.Closed.Before(c.Opened) || c.ByHarness {
		t.Errorf("closed connection %+v, want the impostor's close as the client's own", c)
	}
	if !conns[1].Open() || conns[1].CID == self {
		t.Errorf("open connection %+v, want the other client's", conns[1])
	}
	if d := b.ClosedByBroker(self); len(d) != 0 {
		t.Errorf("ClosedByBroker %+v: a client's own close is not the broker's doing", d)
	}
}
