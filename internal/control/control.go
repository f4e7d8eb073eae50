// Package control names the wire identifier of aghcheck's test-only
// aghcheck.control/v1 extension (docs/control-extension.md). It stands
// apart from the reference peer that speaks the extension so that the
// harness, which judges peers, can gate scenarios on it without depending
// on the peer it judges.
package control

// Name is both the ext key a test peer sets to script the target and the
// profile a peer lists in its Peer Card's profiles_supported when it
// honours the extension.
const Name = "aghcheck.control/v1"
