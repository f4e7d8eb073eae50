package harness

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/randid"
	"github.com/aghcheck/aghcheck/internal/report"
	"github.com/aghcheck/aghcheck/internal/scenario"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The two forms of an initiation order (docs/control-extension.md,
// "Initiation"): one per IUT, never both (see initiateForm).
const (
	formInBand  = "in band"
	formStartUp = "at start-up"
)

// initiation is what a run prepares for the scenarios that ask the IUT to
// open work: the test peers of each, made before the IUT starts so that
// the start-up file can name them, and that file.
type initiation struct {
	peers map[string]map[string]*scenario.TestPeer // by scenario id
	file  string                                   // the start-up orders, "" when none
	dir   string                                   // the file's directory, removed at the end
}

// prepareOrders writes the start-up orders of the scenarios in todo for an
// IUT the run starts (an attached one started before the run, and can only
// take orders in band). Each initiating scenario gets its test peers now,
// and keeps them for every play: the IUT carries out the orders naming a
// peer each time that peer greets.
func (r *runner) prepareOrders(todo []int) error {
	if r.cfg.IUTPeer != "" {
		return nil
	}
	var orders []control.Order
	for _, i := range todo {
		sc := r.cfg.Scenarios[i]
		if !sc.Initiates() {
			continue
		}
		peers, err := makePeers(sc, randid.Hex(6))
		if err != nil {
			return err
		}
		if r.orders.peers == nil {
			r.orders.peers = map[string]map[string]*scenario.TestPeer{}
		}
		r.orders.peers[sc.ID] = peers
		ids := map[string]string{}
		for name, tp := range peers {
			ids[name] = tp.ID
		}
		first := sc.PeerNames()[0].Name
		for _, st := range sc.Steps {
			if st.Initiate != nil {
				orders = append(orders, st.Initiate.Resolve(first, ids))
			}
		}
	}
	if len(orders) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "aghcheck-orders-")
	if err != nil {
		return fmt.Errorf("initiation orders: %w", err)
	}
	r.orders.dir, r.orders.file = dir, filepath.Join(dir, "orders.json")
	return control.WriteOrders(r.orders.file, orders)
}

// dropOrders removes the start-up file.
func (r *runner) dropOrders() {
	if r.orders.dir != "" {
		_ = os.RemoveAll(r.orders.dir)
	}
}

// initiateForm is how the IUT takes orders ("" when it takes none), and
// why not. A peer the run started with the orders file, and that reads it,
// has every order already: an in-band request as well would open each
// work twice, so in band is for the others (attached, or control only).
func (r *runner) initiateForm(rep *report.Report) (form, whyNot string) {
	card := rep.IUT.Card
	startUp := advertises(card, "profiles_supported", control.InitiateName)
	switch {
	case startUp && r.orders.file != "":
		return formStartUp, ""
	case advertises(card, "profiles_supported", control.Name):
		return formInBand, ""
	case startUp:
		return "", fmt.Sprintf("the IUT takes initiation orders at start-up only (%s), and this run did not start it", control.InitiateName)
	}
	return "", fmt.Sprintf("the IUT takes no initiation orders (it advertises neither %s nor %s)", control.Name, control.InitiateName)
}

// makePeers makes a scenario's test peers: fresh ids (name.tag), and for
// a peer with a key a fresh Ed25519 key and its verified handle.
func makePeers(sc *scenario.Scenario, tag string) (map[string]*scenario.TestPeer, error) {
	peers := map[string]*scenario.TestPeer{}
	for _, pd := range sc.PeerNames() {
		tp := &scenario.TestPeer{Name: pd.Name}
		if pd.Key {
			_, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return nil, fmt.Errorf("generate test key: %w", err)
			}
			tp.Key = priv
			tp.ID = trust.Handle(pd.Name, priv.Public().(ed25519.PublicKey))
		} else {
			tp.ID = pd.Name + "." + tag
		}
		peers[pd.Name] = tp
	}
	return peers, nil
}

// initiate plays an initiate step. At start-up the order is already the
// IUT's, and the target's greet (just sent) set it off; in band, a test
// peer sends it now, on a directed say without a work_id, which opens no
// work at any peer.
func (p *player) initiate(ctx context.Context, in *scenario.Initiate) (string, []string, error) {
	if p.r.form != formInBand {
		return "", nil, nil
	}
	b, err := json.Marshal(p.order(in))
	if err != nil {
		return "", nil, fmt.Errorf("initiation order: %w", err)
	}
	var order map[string]any
	if err := json.Unmarshal(b, &order); err != nil {
		return "", nil, fmt.Errorf("initiation order: %w", err)
	}
	req := &scenario.Send{From: in.From, To: "iut", Envelope: map[string]any{
		"kind":      "say",
		"surface":   "thread",
		"thread_id": "{{thread.control}}",
		"body":      map[string]any{"text": "aghcheck: open work"},
		"ext": map[string]any{control.Name: map[string]any{
			control.RequestInitiate: order,
		}},
	}}
	return p.send.send(ctx, req)
}

// order is the order an initiate step gives, its target resolved to the
// test peer's id.
func (p *player) order(in *scenario.Initiate) control.Order {
	ids := map[string]string{}
	for name, tp := range p.send.tctx.Peers {
		ids[name] = tp.ID
	}
	return in.Resolve(p.send.first, ids)
}

// noteOrder tells the waiter of the order an initiate step gave, whichever
// form carried it: its opening, to the target's peer subject, answers it.
func (p *player) noteOrder(in *scenario.Initiate) {
	o := p.order(in)
	p.wait.noteOrder(agh.PeerSubject(p.r.ws, p.r.ch, o.To), o)
}
