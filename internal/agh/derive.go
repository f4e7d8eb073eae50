package agh

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aghcheck/aghcheck/internal/jsonx"
	"github.com/aghcheck/aghcheck/internal/trust"
)

// SubjectPrefix is the NATS subject prefix of v0 traffic.
const SubjectPrefix = "agh.network.v0"

// RouteToken is the NATS route token of a peer: the fingerprint of a
// verified handle, else the first 32 hex chars of SHA-256(peer id).
func RouteToken(peerID string) string {
	// A plain Peer ID never contains '@', so only then ask the trust profile.
	if i := strings.LastIndexByte(peerID, '@'); i >= 0 && trust.IsHandle(peerID) {
		return peerID[i+1:]
	}
	sum := sha256.Sum256([]byte(peerID))
	return hex.EncodeToString(sum[:16])
}

const directRoomDomain = "agh-network/direct-room/v0"

// DirectID derives the direct-room id of two different peers.
func DirectID(workspace, channel, peerA, peerB string) (string, error) {
	if peerA == peerB {
		return "", errors.New("a direct room needs two different peers")
	}
	if peerB < peerA {
		peerA, peerB = peerB, peerA
	}
	return DirectIDInOrder(workspace, channel, peerA, peerB), nil
}

// DirectIDInOrder hashes the pair in the order given, without the byte-wise
// sort DirectID applies first: DirectID of a sorted pair, and what a peer
// that forgets the sort derives (the reference peer's init-direct faults).
func DirectIDInOrder(workspace, channel, first, second string) string {
	h := sha256.New()
	for i, part := range [...]string{directRoomDomain, workspace, channel, first, second} {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(part))
	}
	var sum [sha256.Size]byte
	return "direct_" + hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// BroadcastSubject and PeerSubject render the NATS subjects.
func BroadcastSubject(workspace, channel string) string {
	return SubjectPrefix + "." + workspace + "." + channel + ".broadcast"
}

func PeerSubject(workspace, channel, peerID string) string {
	return SubjectPrefix + "." + workspace + "." + channel + ".peer." + RouteToken(peerID)
}

// Subject is the subject a decoded envelope must be published on: the peer
// subject of to when it is set, else the channel broadcast subject.
func Subject(env map[string]any) (string, error) {
	ws, _ := env["workspace_id"].(string)
	ch, _ := env["channel"].(string)
	if !validSubjectToken(ws) {
		return "", fmt.Errorf("workspace_id %q cannot be a NATS subject token", ws)
	}
	if !ValidChannel(ch) {
		return "", fmt.Errorf("channel %q does not match the channel grammar", ch)
	}
	switch to := env["to"].(type) {
	case nil:
		return BroadcastSubject(ws, ch), nil
	case string:
		if to == "" {
			return "", errors.New("to is an empty string")
		}
		return PeerSubject(ws, ch, to), nil
	default:
		return "", fmt.Errorf("to must be a string or null, found %s", jsonx.TypeName(to))
	}
}

// The capability fields in the order the canonical digest serialises them.
var capabilityDigestOrder = [...]string{
	"id", "summary", "outcome", "version",
	"context_needed", "artifacts_expected", "execution_outline", "constraints", "examples",
	"requirements",
}

// CapabilityDigest computes the canonical digest of a capability document:
// "sha256:" + hex SHA-256 of a compact JSON object holding the known fields
// in a fixed order, strings trimmed, empty version and empty lists left out,
// blank entries of the descriptive lists dropped, and requirements trimmed
// and sorted (a blank or repeated requirement is an error). Strings are
// escaped the way Go's encoding/json does it (<, >, & as \u003c...), because
// that is what the reference runtime hashes.
func CapabilityDigest(capability map[string]any) (string, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	member := func(name string, value any) error {
		enc, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("capability %s: %w", name, err)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteByte('"')
		b.WriteString(name)
		b.WriteString(`":`)
		b.Write(enc)
		return nil
	}
	for _, name := range capabilityDigestOrder {
		raw, present := capability[name]
		switch name {
		case "id", "summary", "outcome":
			s, ok := raw.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return "", fmt.Errorf("capability %s must be a non-blank string", name)
			}
			if err := member(name, strings.TrimSpace(s)); err != nil {
				return "", err
			}
		case "version":
			if !present || raw == nil {
				continue
			}
			s, ok := raw.(string)
			if !ok {
				return "", errors.New("capability version must be a string")
			}
			if s = strings.TrimSpace(s); s != "" {
				if err := member(name, s); err != nil {
					return "", err
				}
			}
		default:
			if !present || raw == nil {
				continue
			}
			list, err := stringList(raw)
			if err != nil {
				return "", fmt.Errorf("capability %s: %w", name, err)
			}
			var out []string
			if name == "requirements" {
				out, err = NormalizeRequirements(list)
				if err != nil {
					return "", err
				}
			} else {
				for _, s := range list {
					if s = strings.TrimSpace(s); s != "" {
						out = append(out, s)
					}
				}
			}
			if len(out) > 0 {
				if err := member(name, out); err != nil {
					return "", err
				}
			}
		}
	}
	b.WriteByte('}')
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// NormalizeRequirements trims and sorts capability requirements; a blank or
// repeated entry (after trimming) is an error.
func NormalizeRequirements(list []string) ([]string, error) {
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Errorf("capability requirements[%d] is blank", i)
		}
		if seen[s] {
			return nil, fmt.Errorf("capability requirements[%d] repeats %q", i, s)
		}
		seen[s] = true
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

func stringList(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be an array of strings, found %s", jsonx.TypeName(v))
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("entry %d must be a string, found %s", i, jsonx.TypeName(e))
		}
		out[i] = s
	}
	return out, nil
}

// DedupeKey is the key a receiver deduplicates an envelope by: the sender and
// the envelope id, because an id is only unique within its sender's replay
// window (erratum 10). ok is false when either is missing.
func DedupeKey(env map[string]any) (key string, ok bool) {
	from, _ := env["from"].(string)
	id, _ := env["id"].(string)
	if from == "" || id == "" {
		return "", false
	}
	return from + "\x00" + id, true
}
