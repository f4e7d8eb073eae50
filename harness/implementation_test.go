package harness

import "testing"

// What a report names as certified: the flags first, then the Peer Card,
// then the peer id, then unknown.
func TestNameImplementation(t *testing.T) {
	card := map[string]any{"display_name": "Acme runtime", "version": "0.4.0"}
	for _, c := range []struct {
		name, flagName, flagVersion string
		iut                         IUTInfo
		wantName, wantVersion       string
	}{
		{"flags win", "acme", "1.2.3", IUTInfo{PeerID: "iut.1", Card: card}, "acme", "1.2.3"},
		{"the card", "", "", IUTInfo{PeerID: "iut.1", Card: card}, "Acme runtime", "0.4.0"},
		{"one flag", "", "v9", IUTInfo{PeerID: "iut.1", Card: card}, "Acme runtime", "v9"},
		{"peer id", "", "", IUTInfo{PeerID: "iut.1", Card: map[string]any{"version": 3}}, "iut.1", Unknown},
		{"never joined", "", "", IUTInfo{}, Unknown, Unknown},
	} {
		rep := &Report{IUT: c.iut}
		rep.NameImplementation(c.flagName, c.flagVersion)
		if rep.IUT.Implementation != c.wantName || rep.IUT.ImplementationVersion != c.wantVersion {
			t.Errorf("%s: %q %q, want %q %q", c.name, rep.IUT.Implementation, rep.IUT.ImplementationVersion, c.wantName, c.wantVersion)
		}
	}
}
