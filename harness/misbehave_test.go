package harness

import (
	"context"

	"github.com/aghcheck/aghcheck/peer"
)

// misbehave plays a broken IUT for the robustness tests.
func misbehave(ctx context.Context, name string, cfg peer.Config) int {
	<-ctx.Done()
	return 0
}
