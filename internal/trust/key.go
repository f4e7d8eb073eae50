package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// KeyFileFormat is the "format" member of an aghcheck key file.
const KeyFileFormat = "aghcheck.ed25519-key/v1"

// KeyFile is the on-disk form of a signing key, a small JSON object:
//
//	{
//	  "format":   "aghcheck.ed25519-key/v1",
//	  "seed":     "<64 lowercase hex: the 32-byte RFC 8032 private key seed>",
//	  "pubkey":   "<base64url public key>",
//	  "nickname": "<optional default nickname>",
//	  "handle":   "<optional nickname@fingerprint>"
//	}
//
// Only format and seed are needed (a file holding just the hex seed also
// loads); pubkey and handle are there for people
// and are checked against the seed on load so a hand-edited file cannot
// silently sign as someone else.
type KeyFile struct {
	Format   string `json:"format"`
	Seed     string `json:"seed"`
	Pubkey   string `json:"pubkey,omitempty"`
	Nickname string `json:"nickname,omitempty"`
	Handle   string `json:"handle,omitempty"`
}

// NewKey derives the Ed25519 key pair of a 32-byte seed.
func NewKey(seed []byte) (ed25519.PrivateKey, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("seed is %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// KeyFromHex derives the key pair of a seed written as 64 hex digits.
func KeyFromHex(s string) (ed25519.PrivateKey, error) {
	seed, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("seed is not hex: %w", err)
	}
	return NewKey(seed)
}

// MarshalKeyFile renders priv (and an optional default nickname) as a key file.
func MarshalKeyFile(priv ed25519.PrivateKey, nickname string) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("private key is %d bytes, want %d", len(priv), ed25519.PrivateKeySize)
	}
	pub := priv.Public().(ed25519.PublicKey)
	kf := KeyFile{Format: KeyFileFormat, Seed: hex.EncodeToString(priv.Seed()), Pubkey: PublicKeyString(pub)}
	if nickname != "" {
		if !validNickname(nickname) {
			return nil, fmt.Errorf("nickname %q does not match [a-z0-9_-]{1,32}", nickname)
		}
		kf.Nickname, kf.Handle = nickname, Handle(nickname, pub)
	}
	b, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseKeyFile reads a key file and returns the private key and its default
// nickname ("" when the file has none). A file holding nothing but the seed
// as 64 hex digits is accepted too, the form other tools (and the reference
// peer's --key) commonly use.
func ParseKeyFile(data []byte) (ed25519.PrivateKey, string, error) {
	if s := strings.TrimSpace(string(data)); len(s) == 2*ed25519.SeedSize && !strings.HasPrefix(s, "{") {
		priv, err := KeyFromHex(s)
		if err != nil {
			return nil, "", fmt.Errorf("key file: %w", err)
		}
		return priv, "", nil
	}
	var kf KeyFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&kf); err != nil {
		return nil, "", fmt.Errorf("key file is not a %s JSON object: %w", KeyFileFormat, err)
	}
	if kf.Format != KeyFileFormat {
		return nil, "", fmt.Errorf("key file format is %q, want %q", kf.Format, KeyFileFormat)
	}
	priv, err := KeyFromHex(kf.Seed)
	if err != nil {
		return nil, "", fmt.Errorf("key file: %w", err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	if kf.Pubkey != "" && kf.Pubkey != PublicKeyString(pub) {
		return nil, "", fmt.Errorf("key file: pubkey %s is not the public key of its seed (%s)", kf.Pubkey, PublicKeyString(pub))
	}
	if kf.Nickname != "" && !validNickname(kf.Nickname) {
		return nil, "", fmt.Errorf("key file: nickname %q does not match [a-z0-9_-]{1,32}", kf.Nickname)
	}
	if kf.Handle != "" && kf.Handle != Handle(kf.Nickname, pub) {
		return nil, "", fmt.Errorf("key file: handle %s does not match its nickname and seed (%s)", kf.Handle, Handle(kf.Nickname, pub))
	}
	return priv, kf.Nickname, nil
}
