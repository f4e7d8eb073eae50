package harness

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/rules"
)

// message is one publication seen on the broker that did not come from the
// harness's own connection.
type message struct {
	seq     int
	at      time.Duration // since the run started
	subject string
	token   string // the route token when subject is a peer subject of the run's channel
	// size is how many bytes were published; kept is what the run keeps
	// of them once they are judged (keep).
	size     int
	kept     []byte
	env      map[string]any // nil when not a JSON object
	findings []rules.Finding
	// acted are the findings of the work-unit tracker, among findings,
	// that show the IUT acted on a message it had to refuse: a receiver's
	// duty, judged with the scenario whose exchange caused m. Every other
	// finding is a sender's.
	acted   []rules.Finding
	fromIUT bool
	// charged is set once a scenario's exchange caused m (chargedTo names
	// it): the passive verdict attributes m's sender findings to it and
	// leaves out the acted ones, which the scenario judged itself.
	charged   atomic.Bool
	chargedTo string
}

// actedOn reports whether f, one of m's findings, is a receiver's duty
// (acted).
func (m *message) actedOn(f rules.Finding) bool { return slices.Contains(m.acted, f) }

func (m *message) kind() string { s, _ := m.env["kind"].(string); return s }
func (m *message) to() string   { s, _ := m.env["to"].(string); return s }
func (m *message) from() string { s, _ := m.env["from"].(string); return s }
func (m *message) id() string   { s, _ := m.env["id"].(string); return s }

// presence reports whether m is discovery traffic a peer sends on its own
// account (a greet, a whois request) rather than an answer to a scenario.
func (m *message) presence() bool {
	switch m.kind() {
	case "greet":
		return true
	case "whois":
		body, _ := m.env["body"].(map[string]any)
		return body["type"] == "request"
	}
	return false
}

// label names what m is, with the detail a reader looks for first:
// receipt(rejected malformed), trace(completed), whois(response).
func (m *message) label() string {
	if m.env == nil {
		return "bytes"
	}
	k := m.kind()
	if body, ok := m.env["body"].(map[string]any); ok {
		switch k {
		case "receipt":
			reason := ""
			if rc := body["reason_code"]; rc != nil {
				reason = fmt.Sprintf(" %v", rc)
			}
			return fmt.Sprintf("receipt(%v%s)", body["status"], reason)
		case "trace":
			return fmt.Sprintf("trace(%v)", body["state"])
		case "whois":
			return fmt.Sprintf("whois(%v)", body["type"])
		}
	}
	if k == "" {
		return "envelope"
	}
	return k
}

// describe is m in one line for "what arrived instead".
func (m *message) describe() string {
	if m.env == nil {
		return fmt.Sprintf("%d bytes that are not an envelope on %s", m.size, m.subject)
	}
	return fmt.Sprintf("%s %s from %s on %s", m.label(), m.id(), m.from(), m.subject)
}

// peerSet is one scenario's test peers. It answers the one question every
// part of the harness asks of an IUT message: is it for these peers?
type peerSet struct {
	ids    map[string]bool
	tokens map[string]bool
}

func newPeerSet() peerSet { return peerSet{ids: map[string]bool{}, tokens: map[string]bool{}} }

func (s peerSet) add(id string) {
	s.ids[id] = true
	s.tokens[agh.RouteToken(id)] = true
}

// addressed reports whether m is for one of the peers: addressed to it in
// to, or published on its peer subject (even when to names someone else,
// which passive validation then reports).
func (s peerSet) addressed(m *message) bool {
	return s.ids[m.to()] || (m.token != "" && s.tokens[m.token])
}
