// Package testiut lets a test binary double as the implementation under
// test of the runs its tests start: the reference peer, configured from
// the IUT environment the harness gives it, with faults.
package testiut

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/aghcheck/aghcheck/internal/peer"
)

// Peer runs the reference peer with faults until SIGTERM or SIGINT and
// returns the process's exit status: 0, 1 when it failed, 2 when its
// environment is unusable, peer.CrashExitCode when a fault crashed it.
func Peer(faults []string, noControl bool, variants ...string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := peer.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.Faults, cfg.NoControl = append(cfg.Faults, faults...), noControl
	for _, v := range variants {
		// "no-orders": a peer the initiator scenarios cannot play;
		// "long-work": work it does on its own never ends.
		cfg.NoOrders = cfg.NoOrders || v == "no-orders"
		cfg.LongWork = cfg.LongWork || v == "long-work"
	}
	if err := peer.Run(ctx, cfg); err != nil && ctx.Err() == nil {
		if errors.Is(err, peer.ErrCrashed) {
			return peer.CrashExitCode // it printed its panic
		}
		fmt.Fprintln(os.Stderr, "peer:", err)
		return 1
	}
	return 0
}
