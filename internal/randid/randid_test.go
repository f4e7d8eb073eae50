package randid

import (
	"fmt"
	"regexp"
	"testing"
)

func TestHex(t *testing.T) {
	hexDigits := regexp.MustCompile(`^[0-9a-f]*$`)
	for _, n := range []int{0, 1, 4, 16} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			s := Hex(n)
			if len(s) != 2*n || !hexDigits.MatchString(s) {
				t.Errorf("Hex(%d) = %q, want %d hex digits", n, s, 2*n)
			}
		})
	}
	if Hex(16) == Hex(16) {
		t.Error("two 16-byte ids are equal")
	}
}
