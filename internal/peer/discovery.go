package peer

import (
	"maps"
	"strings"

	"github.com/aghcheck/aghcheck/internal/agh"
	"github.com/aghcheck/aghcheck/internal/control"
	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// The echo capability is the one piece of work the reference peer offers.
var echoCapability = map[string]any{
	"id":                "echo",
	"summary":           "Echo the request text back as the work result.",
	"outcome":           "A completed trace whose result.echo is the request text.",
	"version":           "1.0.0",
	"context_needed":    []any{"request text"},
	"execution_outline": []any{"Accept the work", "Report working", "Complete with the echoed text"},
}

func buildCatalog() ([]map[string]any, error) {
	c := make(map[string]any, len(echoCapability)+1)
	for k, v := range echoCapability {
		c[k] = v
	}
	d, err := capabilityDigest(c)
	if err != nil {
		return nil, err
	}
	c["digest"] = d
	return []map[string]any{c}, nil
}

func (p *peer) peerCard() map[string]any {
	profiles := []any{agh.Protocol}
	if p.faults[faultCardWithoutV0] {
		profiles = []any{}
	}
	if !p.cfg.NoControl {
		profiles = append(profiles, control.Name)
	}
	// Start-up orders are taken with or without the control extension.
	if !p.cfg.NoOrders {
		profiles = append(profiles, control.InitiateName)
	}
	// It verifies the proof of whatever it receives, signing or not, so it
	// lists the trust profile and takes verified senders as well as
	// unverified ones (the Peer Card signalling of the trust pages: the
	// profile id in profiles_supported, the modes in trust_modes_supported).
	modes := []any{"unverified"}
	if !p.cfg.NoTrust {
		profiles = append(profiles, trust.ProfileID)
		modes = []any{"verified", "unverified"}
	}
	caps := make([]any, 0, len(p.catalog))
	brief := make([]any, 0, len(p.catalog))
	for _, c := range p.catalog {
		if p.faults[faultCardWithoutCatalog] {
			break
		}
		caps = append(caps, c["id"])
		id := c["id"]
		if p.faults[faultBriefOutOfStep] {
			id = strings.ToUpper(id.(string)[:1]) + id.(string)[1:]
		}
		brief = append(brief, map[string]any{"id": id, "summary": c["summary"]})
	}
	artifacts := []any{"capability"}
	if p.faults[faultNoCapabilityArtifact] {
		artifacts = []any{}
	}
	card := map[string]any{
		"peer_id":               p.self,
		"display_name":          p.cfg.DisplayName,
		"profiles_supported":    profiles,
		"capabilities":          caps,
		"artifacts_supported":   artifacts,
		"trust_modes_supported": modes,
	}
	// A peer without a catalog omits the brief entirely (Capability
	// Discovery, "Brief discovery").
	if len(caps) > 0 {
		card["ext"] = map[string]any{"agh.capabilities_brief": brief}
	}
	return card
}

// cardCopy is a fresh Peer Card for one envelope: signing rewrites
// peer_id in place, so envelopes must not share the map.
func (p *peer) cardCopy() map[string]any {
	c := make(map[string]any, len(p.card))
	for k, v := range p.card {
		c[k] = v
	}
	return c
}

func (p *peer) greet() {
	card := p.cardCopy()
	env := p.envelope("greet", map[string]any{
		"peer_card": card,
		"summary":   "aghcheck reference peer: send directed work to the echo capability.",
	})
	if p.faults[faultGreetCardMismatch] {
		p.publish(env, true, func(e map[string]any) {
			e["body"].(map[string]any)["peer_card"].(map[string]any)["peer_id"] = p.self + "-card"
		})
		return
	}
	p.publish(env, p.faults[faultBriefOutOfStep], nil)
}

// notePeer refreshes the presence cache from a greet or whois response.
func (p *peer) notePeer(env map[string]any) {
	body, _ := env["body"].(map[string]any)
	card, _ := body["peer_card"].(map[string]any)
	from, _ := env["from"].(string)
	if card == nil || from == "" {
		return
	}
	// Kept past the message: copies, not the memory of the whole message.
	p.peers[strings.Clone(from)] = &remotePeer{card: jsonx.Copy(card).(map[string]any), lastSeen: p.now()}
}

// knownPeers lists the cached peers that have not expired.
func (p *peer) knownPeers() []string {
	var out []string
	now := p.now()
	for id, rp := range p.peers {
		if !now.After(rp.lastSeen.Add(2 * p.cfg.GreetInterval)) {
			out = append(out, id)
		}
	}
	return out
}

func (p *peer) whois(env map[string]any, directed bool) {
	body, _ := env["body"].(map[string]any)
	switch body["type"] {
	case "response":
		if directed {
			p.notePeer(env)
		}
		return
	case "request":
	default:
		return
	}
	q, _ := body["query"].(string)
	// A directed request is always answered; a broadcast one only by the
	// peers it describes.
	deaf := !directed || p.faults[faultWhoisDirectedDeaf]
	if deaf && !p.faults[faultWhoisAnswerAll] && !p.matches(strings.TrimSpace(q)) {
		return
	}
	id, _ := env["id"].(string)
	resp := p.envelope("whois", map[string]any{"type": "response", "peer_card": p.cardCopy()})
	resp["to"] = env["from"]
	if p.faults[faultWhoisOnBroadcast] {
		// Told to the whole channel, not to the requester.
		resp["to"] = nil
	}
	resp["reply_to"] = id
	if ids, ok := p.catalogRequest(env); (ok && !p.cfg.NoCapabilityDiscovery) || p.faults[faultCatalogUnasked] {
		resp["ext"] = map[string]any{"agh.capability_catalog": map[string]any{"capabilities": p.catalogFor(ids)}}
	}
	if p.faults[faultWhoisNoReplyTo] {
		delete(resp, "reply_to")
		p.publish(resp, true, nil)
		return
	}
	// A card or catalog fault breaks the answer on purpose.
	p.publish(resp, p.faults[faultBriefOutOfStep] || p.faults[faultCatalogEmptyMembers] ||
		p.faults[faultCatalogStaleDigest] || p.faults[faultCardWithoutCatalog], nil)
}

// matches is the reference runtime's whois matching: empty query, exact
// peer id, display name, or an advertised capability, profile, artifact
// type or trust mode.
func (p *peer) matches(q string) bool {
	if q == "" || q == p.self || strings.EqualFold(q, p.cfg.DisplayName) {
		return true
	}
	for _, key := range []string{"capabilities", "profiles_supported", "artifacts_supported", "trust_modes_supported"} {
		list, _ := p.card[key].([]any)
		for _, v := range list {
			if v == q {
				return true
			}
		}
	}
	return false
}

// catalogRequest is catalogRequest as the peer's faults read it.
func (p *peer) catalogRequest(env map[string]any) ([]string, bool) {
	ids, ok := catalogRequest(env)
	ext, _ := env["ext"].(map[string]any)
	inc, present := ext["agh.include"]
	switch {
	case p.faults[faultCatalogAnyInclude] && present:
		ok = true
	case p.faults[faultCatalogIncludeStrict]:
		list, _ := inc.([]any)
		ok = ok && len(list) == 1
	}
	if p.faults[faultCatalogFilterIgnored] {
		ids = nil
	}
	return ids, ok
}

// catalogRequest reports whether a whois request asks for the capability
// catalog, and the capability ids it filters on (nil: all).
func catalogRequest(env map[string]any) ([]string, bool) {
	ext, _ := env["ext"].(map[string]any)
	if ext == nil {
		return nil, false
	}
	asked := false
	switch inc := ext["agh.include"].(type) {
	case string:
		asked = inc == "capability_catalog"
	case []any:
		for _, v := range inc {
			if v == "capability_catalog" {
				asked = true
			}
		}
	}
	if !asked {
		return nil, false
	}
	raw, present := ext["agh.capability_ids"].([]any)
	if !present {
		return nil, true
	}
	ids := make([]string, 0, len(raw))
	for _, v := range raw {
		if s, ok := v.(string); ok {
			ids = append(ids, s)
		}
	}
	return ids, true
}

func (p *peer) catalogFor(ids []string) []any {
	out := []any{}
	for _, c := range p.catalog {
		if ids != nil && !contains(ids, c["id"].(string)) {
			continue
		}
		if p.faults[faultCatalogEmptyMembers] || p.faults[faultCatalogStaleDigest] {
			c = maps.Clone(c)
		}
		if p.faults[faultCatalogEmptyMembers] {
			c["constraints"], c["examples"] = []any{}, []any{}
		}
		if p.faults[faultCatalogStaleDigest] {
			c["summary"] = "Echo the request text back."
		}
		out = append(out, c)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
