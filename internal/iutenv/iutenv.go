// Package iutenv is the IUT contract: the environment aghcheck run, fuzz
// and aghtest give the implementation under test, written in one place and
// read back in one place (the built-in peer reads it, aghtest hands it to a
// Start function). docs/harness.md documents the same variables.
package iutenv

import (
	"os"
	"path/filepath"
	"strings"
)

// The variables of the contract. Every one of them but GreetInterval is
// always set by the harness, empty when unused, so that an IUT never
// inherits a stale value from the shell that started aghcheck.
const (
	NATSURL      = "AGH_NATS_URL"
	NATSToken    = "AGH_NATS_TOKEN"
	NATSUser     = "AGH_NATS_USER"
	NATSPassword = "AGH_NATS_PASSWORD"
	NATSCreds    = "AGH_NATS_CREDS"
	WorkspaceID  = "AGH_WORKSPACE_ID"
	Channel      = "AGH_CHANNEL"
	PeerID       = "AGH_PEER_ID"
	// Initiate names the start-up file of initiation orders
	// (docs/control-extension.md, "Initiation"), empty when the run has none.
	Initiate      = "AGH_INITIATE"
	GreetInterval = "AGH_GREET_INTERVAL" // read by the built-in peer; the harness never sets it
)

// Env is what the IUT is told: the broker and its credentials, the run's
// workspace and channel, and the peer id suggested to it.
type Env struct {
	URL, Token, User, Password string
	// Creds is a NATS credentials file; Environ names it by its absolute
	// path, so an IUT that changes directory still finds it.
	Creds     string
	Workspace string
	Channel   string
	// PeerID is a suggestion: the IUT's greet says which id it took.
	PeerID string
	// Initiate is the start-up file of initiation orders; Environ names
	// it by its absolute path.
	Initiate string
	// GreetInterval is the built-in peer's presence interval as given
	// (seconds or a Go duration); the harness leaves it empty.
	GreetInterval string
}

// Environ renders e as KEY=VALUE pairs, every contract variable present
// (GreetInterval only when set).
func (e Env) Environ() []string {
	creds, initiate := absolute(e.Creds), absolute(e.Initiate)
	env := []string{
		NATSURL + "=" + e.URL,
		NATSToken + "=" + e.Token,
		NATSUser + "=" + e.User,
		NATSPassword + "=" + e.Password,
		NATSCreds + "=" + creds,
		WorkspaceID + "=" + e.Workspace,
		Channel + "=" + e.Channel,
		PeerID + "=" + e.PeerID,
		Initiate + "=" + initiate,
	}
	if e.GreetInterval != "" {
		env = append(env, GreetInterval+"="+e.GreetInterval)
	}
	return env
}

// absolute is path made absolute, so that an IUT that changes directory
// still finds the file; empty stays empty.
func absolute(path string) string {
	if path == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// Read reads the contract through getenv (os.Getenv for a process).
func Read(getenv func(string) string) Env {
	return Env{
		URL:           getenv(NATSURL),
		Token:         getenv(NATSToken),
		User:          getenv(NATSUser),
		Password:      getenv(NATSPassword),
		Creds:         getenv(NATSCreds),
		Workspace:     getenv(WorkspaceID),
		Channel:       getenv(Channel),
		PeerID:        getenv(PeerID),
		Initiate:      getenv(Initiate),
		GreetInterval: getenv(GreetInterval),
	}
}

// FromProcess reads the contract from this process's environment.
func FromProcess() Env { return Read(os.Getenv) }

// Parse reads the contract from KEY=VALUE pairs; a later pair wins, as in
// a process environment built by appending.
func Parse(environ []string) Env {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return Read(func(k string) string { return m[k] })
}
