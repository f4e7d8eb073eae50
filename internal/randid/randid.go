// Package randid makes the random parts of the ids aghcheck generates:
// workspaces, peer ids, message ids and per-scenario tags.
package randid

import (
	"crypto/rand"
	"encoding/hex"
)

// Hex returns n random bytes as 2n lower-case hex digits. crypto/rand
// never fails on the platforms Go supports (it aborts the program
// instead), so there is no error to return.
func Hex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
