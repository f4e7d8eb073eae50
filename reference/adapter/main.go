// Command adapter lets aghcheck certify the reference runtime (the public Go
// repository github.com/compozy/agh): it joins an AGH Network v0 channel as
// one local peer of the runtime's own network package, so that every
// protocol decision (validation, freshness, deduplication, work lifecycle,
// rejection receipts, whois answers, greets) is the runtime's, and plays
// the agent session behind that peer, which the runtime leaves to the
// agent: an accepted receipt, a working and a completed trace for work
// opened at it, and, as initiator, the work aghcheck orders it to open
// (initiator.go), which the runtime's own send path builds and tracks.
//
// The runtime's network package is internal to its module, so the adapter
// is built inside a copy of that module: `make reference REF=<git dir of
// compozy/agh>` (scripts/reference.sh) copies main.go, config.go, agent.go,
// initiator.go and runtime.go into that copy and builds them there. Built here, without the
// runtime (stub.go instead of runtime.go), the command only says so. See
// docs/reference.md.
//
// Usage (the IUT contract of `aghcheck run`, docs/harness.md):
//
//	adapter [--nats-url URLS] [--workspace ID] [--channel NAME] [--peer-id ID]
//	        [--greet-interval DUR] [--replay-age DUR] [--initiate FILE]
//	adapter --version    # the runtime version it was built from
//
// Flags default to AGH_NATS_URL, AGH_NATS_TOKEN, AGH_NATS_USER,
// AGH_NATS_PASSWORD, AGH_WORKSPACE_ID, AGH_CHANNEL, AGH_PEER_ID,
// AGH_GREET_INTERVAL and AGH_INITIATE (the start-up file of initiation
// orders: work the agent opens, through the runtime's send path, when the
// order's target greets; docs/control-extension.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(mainExit(os.Args[1:], os.Getenv))
}

// mainExit returns the exit status: 0 after a clean stop (SIGTERM or
// SIGINT), 2 for a usage error, 1 when the runtime failed.
func mainExit(args []string, getenv func(string) string) int {
	cfg, err := parseConfig(args, getenv)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		if errors.Is(err, errNoRuntime) {
			return 2
		}
		return 1
	}
	return 0
}
