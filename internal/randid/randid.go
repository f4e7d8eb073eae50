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

// UUID returns a random (version 4) UUID, the form the Envelope page
// recommends for message ids.
func UUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
