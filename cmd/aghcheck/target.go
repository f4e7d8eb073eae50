package main

import (
	"fmt"
	"io"
	"os"

	"github.com/aghcheck/aghcheck/internal/broker"
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
func external(url, token, user, password, creds string) *broker.Endpoint {
	if url == "" {
		return nil
	}
	return &broker.Endpoint{URL: url, Token: token, User: user, Password: password, Creds: creds}
}

// reportOut is where -o sends a report (stdout for "" or "-"), and how to
// close it.
func reportOut(stdout io.Writer, output string) (io.Writer, func(), error) {
	if output == "" || output == "-" {
		return stdout, func() {}, nil
	}
	f, err := os.Create(output)
	if err != nil {
		return nil, nil, &exitError{code: exitUsageErr, err: err}
	}
	return f, func() { f.Close() }, nil
}
