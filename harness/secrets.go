package harness

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/sanitize"
)

// The environment variables aghcheck reads its own broker secrets from
// (run, fuzz, monitor), so that they need not be command-line arguments,
// which any user of the machine sees in ps. They are aghcheck's: the
// AGH_NATS_* variables are the IUT's (see internal/iutenv).
const (
	EnvNATSToken    = "AGHCHECK_NATS_TOKEN"
	EnvNATSPassword = "AGHCHECK_NATS_PASSWORD"
)

// Credentials are the secrets for an external broker as a command takes
// them. A token or password comes from its flag, else from its file (the
// file's content, trailing blanks trimmed), else from its environment
// variable; a flag and a file together are refused.
type Credentials struct {
	URL                    string
	Token, TokenFile       string
	User                   string
	Password, PasswordFile string
	Creds                  string // a .creds file's path
}

// Endpoint resolves c into the endpoint to connect to (nil when URL is
// empty: the embedded broker) and registers every secret it holds for
// redaction (see registerSecrets). getenv is os.Getenv outside tests.
func (c Credentials) Endpoint(getenv func(string) string) (*broker.Endpoint, error) {
	token, err := secret("nats-token", c.Token, c.TokenFile, getenv(EnvNATSToken))
	if err != nil {
		return nil, err
	}
	password, err := secret("nats-password", c.Password, c.PasswordFile, getenv(EnvNATSPassword))
	if err != nil {
		return nil, err
	}
	if c.URL == "" {
		return nil, nil
	}
	ep := &broker.Endpoint{URL: c.URL, Token: token, User: c.User, Password: password, Creds: c.Creds}
	if err := registerSecrets(ep); err != nil {
		return nil, fmt.Errorf("--nats-creds: %w", err)
	}
	return ep, nil
}

func secret(flag, value, file, env string) (string, error) {
	switch {
	case value != "" && file != "":
		return "", fmt.Errorf("--%s and --%s-file are alternatives; give one", flag, flag)
	case value != "":
		return value, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", fmt.Errorf("--%s-file %s: %w", flag, file, err)
		}
		s := strings.TrimRight(string(b), " \t\r\n")
		if s == "" {
			return "", fmt.Errorf("--%s-file %s: empty", flag, file)
		}
		return s, nil
	}
	return env, nil
}

// registerSecrets registers what ep holds for redaction from every output
// of this process: its token and password, the user info of its URLs, and
// the contents of its creds file (the JWT and the seed). A report, a
// printed line and the IUT's own output copied into a report show
// [redacted] in their place.
func registerSecrets(ep *broker.Endpoint) error {
	if ep == nil {
		return nil
	}
	sanitize.AddSecret(ep.Token, ep.Password)
	for _, u := range strings.Split(ep.URL, ",") {
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil && p.User != nil {
			pw, ok := p.User.Password()
			if ok {
				sanitize.AddSecret(pw)
			} else {
				sanitize.AddSecret(p.User.Username()) // nats://TOKEN@host
			}
		}
	}
	if ep.Creds != "" {
		b, err := os.ReadFile(ep.Creds)
		if err != nil {
			return fmt.Errorf("reading %s: %w", ep.Creds, err)
		}
		sanitize.AddSecret(credsSecrets(string(b))...)
	}
	return nil
}

// credsSecrets are the lines of a .creds file that are not its armour
// (-----BEGIN ...----- and the comment lines): the user JWT and the nkey
// seed.
func credsSecrets(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "*") || strings.Contains(l, " ") {
			continue
		}
		out = append(out, l)
	}
	return out
}
