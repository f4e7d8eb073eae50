package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/aghcheck/aghcheck/harness"
	"github.com/aghcheck/aghcheck/internal/broker"
	"github.com/aghcheck/aghcheck/internal/report"
)

// iutArgv is the command run and fuzz start as the IUT: --iut split and
// checked, the built-in peer when neither --iut nor --iut-peer is given,
// nothing for an attached peer.
func iutArgv(iutLine, iutPeer string) ([]string, error) {
	if iutPeer != "" {
		return nil, nil
	}
	if iutLine == "" {
		iutLine = "aghcheck peer"
	}
	argv, err := iutCommand(iutLine)
	if err != nil {
		return nil, &exitError{code: exitUsageErr, err: fmt.Errorf("--iut: %w", err)}
	}
	return argv, nil
}

// external is the broker --nats-url names (nil: the embedded one).
func external(c harness.Credentials) (*broker.Endpoint, error) {
	ep, err := c.Endpoint(os.Getenv)
	if err != nil {
		return nil, usage(err)
	}
	return ep, nil
}

// addNATSFlags registers the flags of an external broker on f, the URL's
// help given: secrets can come from a flag (seen in ps), a file or the
// environment.
func addNATSFlags(f *pflag.FlagSet, c *harness.Credentials, urlDefault, urlHelp string) {
	f.StringVar(&c.URL, "nats-url", urlDefault, urlHelp)
	f.StringVar(&c.Token, "nats-token", "", "token for --nats-url (default $"+harness.EnvNATSToken+"; a flag value shows in ps)")
	f.StringVar(&c.TokenFile, "nats-token-file", "", "read the token for --nats-url from `FILE`")
	f.StringVar(&c.User, "nats-user", "", "user for --nats-url")
	f.StringVar(&c.Password, "nats-password", "", "password for --nats-user (default $"+harness.EnvNATSPassword+"; a flag value shows in ps)")
	f.StringVar(&c.PasswordFile, "nats-password-file", "", "read the password for --nats-user from `FILE`")
	f.StringVar(&c.Creds, "nats-creds", "", "credentials `FILE` for --nats-url")
}

// reportOut is where -o sends a report (stdout for "" or "-"), and how to
// close it.
func reportOut(stdout io.Writer, output string) (io.Writer, func(), error) {
	if output == "" || output == "-" {
		return stdout, func() {}, nil
	}
	f, err := report.Create(output)
	if err != nil {
		return nil, nil, &exitError{code: exitUsageErr, err: err}
	}
	return f, func() { f.Close() }, nil
}
